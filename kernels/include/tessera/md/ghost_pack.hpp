// Pack and unpack of ghost positions for a decomposed md run (solvers/md: decomposition.hpp).
//
// A ghost exchange stage sends the positions of a recorded list of local particles (owned, or ghosts
// received in an earlier stage, so that edge and corner images come through) to one neighbour rank,
// shifted by a box length where the message crosses a periodic boundary. The message is laid out as
// three planes [x0..x(m-1)][y0..][z0..]; the receiver's ghosts of a stage are contiguous, so unpacking
// is three plain copies. The two stages of an axis (low and high face) are packed by one kernel and
// unpacked by one kernel. No MPI here (kernels never include it): the solver moves the bytes.
#pragma once
#include <cstdint>

#include "tessera/core/exec.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

// One stage's send side: buf[k] = x[idx[k]] + shift[0], buf[m + k] = y[idx[k]] + shift[1],
// buf[2m + k] = z[idx[k]] + shift[2], k < m (idx and buf in the particles' memory space).
struct GhostSend {
  const int* idx = nullptr;
  int64_t m = 0;
  double shift[3] = {0, 0, 0};
  double* buf = nullptr;
};
// One stage's receive side: x[first + k] = buf[k], y[first + k] = buf[m + k], z[first + k] = buf[2m + k].
struct GhostRecv {
  int64_t first = 0, m = 0;
  const double* buf = nullptr;
};

// Up to two stages in one launch each.
void pack_positions(const exec::Exec& ex, Particles& p, const GhostSend* s, int k);
void unpack_positions(const exec::Exec& ex, Particles& p, const GhostRecv* r, int k);

}  // namespace tessera::md
