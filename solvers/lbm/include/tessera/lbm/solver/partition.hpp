// Minimal Cartesian partition of the global lattice over MPI ranks, used by the LBM solver.
//
// Adapter: the shared domain::Decomposition was not yet committed when this was written; this keeps
// the same conventions (x fastest, uneven splits with the first n % p ranks one cell larger, direction
// index (dx+1) + 3(dy+1) + 9(dz+1), MPI_PROC_NULL beyond a wall) so that switching over is mechanical.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>

namespace tessera::lbm {

struct Partition {
  std::array<int64_t, 3> global{1, 1, 1};
  std::array<bool, 3> periodic{false, false, false};
  std::array<int, 3> dims{1, 1, 1}, coords{0, 0, 0};
  std::array<int64_t, 3> lo{0, 0, 0}, size{1, 1, 1};  // this rank's box in global cells
  std::array<int, 27> neighbor{};                    // by direction index; MPI_PROC_NULL beyond walls
  MPI_Comm comm = MPI_COMM_NULL;                     // MPI_COMM_WORLD's ranks, Cartesian order
  int rank = 0, nranks = 1;

  // Collective. dims entries > 0 are kept; z is never split for a 2-D lattice (global z == 1). The
  // others are chosen for the fewest halo cells per rank, x faces (strided) counting double.
  static Partition make(MPI_Comm comm, std::array<int64_t, 3> global, std::array<bool, 3> periodic,
                        std::array<int, 3> dims = {0, 0, 0});
};

inline int dir_index3(int dx, int dy, int dz) { return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1); }

}  // namespace tessera::lbm
