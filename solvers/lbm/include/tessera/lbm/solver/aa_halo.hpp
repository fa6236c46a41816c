// Halo exchange for the AA pattern: only the populations that cross a face, edge or corner move.
//
// After an even step a rank's ghost cells must hold the post-collision populations of the neighbour's
// boundary cells that the next odd step pulls inward (forward exchange: owner -> ghost). After an odd
// step the populations that boundary cells pushed into ghost cells belong to the neighbour's cells
// (reverse exchange: ghost -> owner). For the ghost region in direction e (components -1, 0, 1):
//   forward: slot opp(q) for every q with c_q,a = -e_a on each axis where e_a != 0
//   reverse: slot q      for every q with c_q,a = +e_a on each axis where e_a != 0
// so a D3Q19 face moves 5 populations, an edge 1 and a corner none. One rank along a periodic axis
// exchanges with itself through the same code path, which is why 1 rank and N ranks agree bit for bit.
// Transport: any domain::Transport (host-staged MPI, CUDA-aware MPI, NCCL), through
// domain::HaloTransport; one transport per direction of the exchange (forward and reverse messages
// differ in size). Pack and unpack are fused: one launch packs every message, one launch unpacks each
// arriving message (a table of (region, population) segments per direction, built once).
// Messages a rank sends to itself (one rank along a periodic axis) never touch the transport: they are
// packed into a local buffer and unpacked from it on the solver's stream, in finish(). Every (ghost or
// boundary cell, slot) pair is written by exactly one message and no message reads a slot another one
// writes, so the remote and the self messages may move in any order: same bits.
// exchange() = start() + finish(); between the two, work on the same stream may update cells that
// neither send to nor receive from another rank (see Simulation::advance).
#pragma once
#include <mpi.h>

#include <array>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/domain/halo_transport.hpp"
#include "tessera/lbm/lattice_state.hpp"
#include "tessera/lbm/solver/partition.hpp"

namespace tessera::lbm {

class AAHalo {
 public:
  // Collective (NCCL: creates or shares the communicator). `ex` runs pack/unpack; its stream orders them
  // with the solver's kernels.
  AAHalo(const Partition& part, const LatticeState& s, const exec::Exec& ex,
         domain::Transport transport = domain::Transport::HostStaged);
  AAHalo(const Partition& part, const LatticeState& s) : AAHalo(part, s, exec::Exec(s.space())) {}
  // Call after every step: forward after an even step (state parity 1), reverse after an odd one.
  void exchange(const exec::Exec& ex, LatticeState& s) {
    start(ex, s);
    finish(ex, s);
  }
  // Pack and send (the step's boundary cells must be done); finish() receives and unpacks. No host
  // synchronisation with NCCL; MPI transports sync once in start() (MPI reads the packed buffer).
  // The direction follows the state's parity after the step (1: an even step was taken: forward).
  void start(const exec::Exec& ex, LatticeState& s) { start(ex, s, s.parity == 1); }
  // Same, for a step whose parity is not flipped yet (overlap: the interior of the step is still to be
  // updated): forward = the step being taken is even.
  void start(const exec::Exec& ex, LatticeState& s, bool forward);
  // The sides of the local box that exchange populations with another rank, [axis][0: low, 1: high]:
  // the cells within one cell of these sides form the boundary shell of the overlap
  // (Simulation::advance). Sides that exchange only with this rank itself are not among them.
  std::array<std::array<bool, 2>, 3> exchanging_sides() const;
  // Moves this rank's messages to itself (every cell of the step must be done by now), then receives
  // and unpacks the others.
  void finish(const exec::Exec& ex, LatticeState& s);
  domain::Transport transport() const { return wire_[0].transport(); }
  // Number of population values sent per exchange (all directions), for tests and telemetry.
  int64_t values_per_exchange(bool forward) const;

 private:
  struct Region {
    int dir;             // direction index of the ghost region (and of the neighbour)
    int neighbor;        // MPI rank
    int64_t lo[3], n[3]; // ghost region in padded local coordinates
    int64_t blo[3];      // matching boundary slab (owned cells) in padded local coordinates
    std::vector<int> q_fwd, q_rev;  // slots moved forward / in reverse
  };
  void sub_box(const Region& r, const LatticeState& s, int q, bool forward, bool ghost_side, int64_t lo[3],
               int64_t n[3]) const;

 public:
  // One (region, population) box of a message, for the fused pack / unpack kernels (aa_halo.cpp).
  struct Segment {
    int64_t lo[3], n[3];  // cells, padded local coordinates
    int64_t start;        // first element in the send / receive buffer
    int64_t src_off;      // reverse unpack: offset to the cell the population came from (its flag is checked)
    int32_t slot;         // population slot
    int32_t check_flags;  // 1: skip cells whose source cell is not fluid
  };

 private:
  // Where message m (region m) is packed and where its counterpart is unpacked from, in bytes: remote
  // messages (m < nremote_) in the transport's buffers, self messages in self_[dir].
  struct Placement {
    int64_t send_offset, recv_offset;
  };
  // Segments of every message in buffer order; first[m] .. first[m + 1] are message m's.
  struct Table {
    std::vector<Segment> h;
    Buffer<Segment> d;  // the same in the exchange's memory (read by the kernels)
    std::vector<int> first;
  };
  void exchange_self(const exec::Exec& ex, LatticeState& s);
  void build_table(Table& t, const LatticeState& s, const exec::Exec& ex, bool forward, bool pack,
                   const std::vector<Placement>& place);
  void copy_messages(const exec::Exec& ex, LatticeState& s, const Table& t, int m0, int m1, unsigned char* buf,
                     bool pack);
  Table pack_[2], unpack_[2];  // [0] reverse, [1] forward
  Table unpack_self_[2];       // the self messages' unpack segments in self_ order (one launch)

  std::vector<Region> regions_;            // those with another rank first: [0, nremote_)
  int nremote_ = 0;
  domain::HaloTransport wire_[2];          // [0] reverse, [1] forward: buffers and remote messages
  Buffer<unsigned char> self_[2];          // [0] reverse, [1] forward: the self messages
  bool forward_ = false;                   // direction of the exchange in flight
};

}  // namespace tessera::lbm
