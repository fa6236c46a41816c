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
// Transport: MPI through host buffers (pinned when the state lives on the GPU).
#pragma once
#include <mpi.h>

#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/lbm/lattice_state.hpp"
#include "tessera/lbm/solver/partition.hpp"

namespace tessera::lbm {

class AAHalo {
 public:
  AAHalo(const Partition& part, const LatticeState& s);
  // Call after every step: forward after an even step (state parity 1), reverse after an odd one.
  void exchange(const exec::Exec& ex, LatticeState& s);
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
  void run(const exec::Exec& ex, LatticeState& s, bool forward);
  void sub_box(const Region& r, const LatticeState& s, int q, bool forward, bool ghost_side, int64_t lo[3],
               int64_t n[3]) const;

  MPI_Comm comm_;
  std::vector<Region> regions_;
  Buffer<unsigned char> d_send_, d_recv_;  // state memory kind
  Buffer<unsigned char> h_send_, h_recv_;  // host staging (pinned) when the state is on the device
  std::vector<int64_t> off_;               // byte offset of each region in the buffers
};

}  // namespace tessera::lbm
