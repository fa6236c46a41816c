// Geometry of a halo exchange, computed once: which cells go to which neighbour and where they land.
//
// For direction d (a face, edge or corner) and exchange width w along each axis, in local indices:
//   send box:  d=-1 -> [0, w)    d=+1 -> [n-w, n)    d=0 -> [0, n)     (interior cells next to side d)
//   recv box:  d=-1 -> [-w, 0)   d=+1 -> [n, n+w)    d=0 -> [0, n)     (ghost cells on side d)
// The ghost cells on side d are owned by neighbour(d), which sends its send box for the opposite
// direction: every ghost cell, corners included, comes straight from its owner in one round (no
// forwarding through face neighbours). Message tags are the sender's direction index, so the
// several messages two ranks exchange on a small periodic grid cannot be confused.
// With one rank along a periodic axis the neighbour is this rank: the ghost cells are a direct copy
// of the periodic image (src = dst - d*n), with no MPI message.
#pragma once
#include <string>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/domain/box.hpp"
#include "tessera/domain/decomposition.hpp"

namespace tessera::domain {

struct HaloMessage {
  int dir = 0;          // direction index of the ghost side (see direction.hpp)
  int peer = -1;        // neighbour rank (this rank for a periodic self-copy)
  bool self = false;    // periodic image of this rank: direct copy, no message
  Box3 send_box{};      // local indices of the cells sent toward `dir` (remote messages)
  Box3 recv_box{};      // local indices of the ghost cells on side `dir`
  Box3 src_box{};       // self copies: the interior cells copied into recv_box (same size and order)
  int64_t cells = 0;    // cells per component in the message
  int64_t send_offset = 0, recv_offset = 0;  // elements into the staging buffers (remote only)
};

struct HaloPlan {
  std::vector<HaloMessage> remote;  // messages to and from other ranks
  std::vector<HaloMessage> self;    // periodic self-copies
  int64_t send_elems = 0, recv_elems = 0;  // staging sizes in elements (all components of all fields)
};

// extent: interior cells of this rank; width: cells exchanged per axis (0 = axis carries no ghosts);
// ncomp_total: components summed over all fields of the exchange.
HaloPlan make_halo_plan(const Decomposition& d, Int3 extent, Int3 width, int ncomp_total, bool faces_only);

// Checks of a halo exchange, kept out of the kernel source (nvcc cannot compile fmt).
struct FieldShape {
  std::string name;
  Box3 box;
  Int3 ghost;
  MemKind kind;
};
// Fields share box (this rank's), ghost width and memory kind, number 1..max_fields, and are
// accessible from `space`; returns the exchange width per axis (`width` < 0: the ghost width).
Int3 check_halo_fields(const Decomposition& d, const std::vector<FieldShape>& fields, int max_fields, int width,
                       exec::Space space);
// Byte count of one message as MPI's int, or a clear error.
int halo_message_bytes(int64_t elems, int64_t elem_size);
void halo_check_mpi(int rc, const char* call);

}  // namespace tessera::domain
