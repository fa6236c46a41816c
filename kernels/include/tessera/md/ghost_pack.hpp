// Pack and unpack of ghost positions for a decomposed md run (solvers/md: decomposition.hpp).
//
// A ghost exchange stage sends the positions of a recorded list of local particles (owned, or ghosts
// received in an earlier stage, so that edge and corner images come through) to one neighbour rank,
// shifted by a box length where the message crosses a periodic boundary. The message is laid out as
// three planes [x0..x(m-1)][y0..][z0..]; the receiver's ghosts of a stage are contiguous, so unpacking
// is three plain copies. No MPI here (kernels never include it): the solver moves the bytes.
#pragma once
#include <cstdint>

#include "tessera/core/exec.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

// buf[k] = x[idx[k]] + shift[0], buf[m + k] = y[idx[k]] + shift[1], buf[2m + k] = z[idx[k]] + shift[2].
// idx and buf live in the particles' memory space.
void pack_positions(const exec::Exec& ex, Particles& p, const int* idx, int64_t m, const double shift[3],
                    double* buf);
// x[first + k] = buf[k], y[first + k] = buf[m + k], z[first + k] = buf[2m + k] (buf in the same space).
void unpack_positions(const exec::Exec& ex, Particles& p, int64_t first, int64_t m, const double* buf);

}  // namespace tessera::md
