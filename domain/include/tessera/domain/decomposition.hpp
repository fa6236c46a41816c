// Cartesian domain decomposition of a global grid of cells over MPI ranks.
//
// The global grid has nx*ny*nz cells (2-D problems: nz = 1) and is split into a rank grid
// dims[0] x dims[1] x dims[2]. Along an axis of n cells over p ranks, each rank gets n/p cells and the
// first n%p ranks one more (uneven splits). Each axis is periodic or walled; a walled axis has no
// neighbour beyond its ends (MPI_PROC_NULL). Every rank knows all 26 neighbours (faces, edges,
// corners), the box of every rank, and which rank owns a global cell.
//
// Ghost width: the decomposition is built for the widest ghost layer g the solver will use. An axis is
// "active" (carries ghosts) when it has more than one cell or is periodic; along an active axis every
// rank must own at least g cells, otherwise a ghost layer would reach past its neighbour: such a
// decomposition is refused with a message saying what to change.
#pragma once
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "tessera/domain/box.hpp"
#include "tessera/domain/direction.hpp"

namespace tessera::domain {

// One axis of n cells over `parts` ranks: where part `part` starts and how many cells it has.
struct Span {
  int64_t offset = 0, size = 0;
};
Span split_axis(int64_t n, int parts, int part);
// Which part of split_axis(n, parts, .) holds cell i (0 <= i < n).
int part_of(int64_t n, int parts, int64_t i);

struct DecompositionSpec {
  Int3 global{1, 1, 1};                       // cells along x, y, z
  std::array<bool, 3> periodic{false, false, false};
  int ghost = 1;                              // widest ghost layer any field will use
  std::array<int, 3> dims{0, 0, 0};           // ranks per axis; 0 = choose automatically
};

class Decomposition {
 public:
  // Collective over comm. Builds a Cartesian communicator (rank order kept from comm).
  Decomposition(MPI_Comm comm, const DecompositionSpec& spec);
  ~Decomposition();
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;
  Decomposition(Decomposition&& o) noexcept;
  Decomposition& operator=(Decomposition&& o) noexcept;

  MPI_Comm comm() const { return comm_; }  // the Cartesian communicator
  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::array<int, 3>& dims() const { return dims_; }
  const std::array<int, 3>& coords() const { return coords_; }
  std::array<int, 3> coords_of(int rank) const;
  int rank_of(std::array<int, 3> coords) const;

  Int3 global() const { return global_; }
  Box3 global_box() const { return Box3{Int3{0, 0, 0}, global_}; }
  bool periodic(int axis) const { return periodic_[size_t(axis)]; }
  const std::array<bool, 3>& periodicity() const { return periodic_; }
  int ghost() const { return ghost_; }
  // Whether an axis carries ghost cells (more than one cell, or periodic).
  bool axis_active(int axis) const { return global_[axis] > 1 || periodic_[size_t(axis)]; }
  // Ghost width g per axis: g along active axes, 0 along the others (a 2-D problem has no z ghosts).
  Int3 ghost_extent(int g) const;

  // This rank's cells, in global indices.
  const Box3& local_box() const { return local_box_; }
  Box3 box_of(int rank) const;
  // Rank that owns a global cell (which must lie inside the global box).
  int owner(Int3 cell) const;

  // Neighbour in direction d (each component -1, 0 or 1), or MPI_PROC_NULL beyond a wall. With one
  // rank along a periodic axis the neighbour is this rank itself.
  int neighbor(Int3 d) const { return neighbors_[size_t(dir_index(d))]; }
  int neighbor(int dir) const { return neighbors_[size_t(dir)]; }

  // "37x23x19 cells over 3x2x1 ranks, periodic x,z, ghost 2"
  std::string describe() const;

 private:
  void release() noexcept;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::array<int, 3> dims_{1, 1, 1};
  std::array<int, 3> coords_{0, 0, 0};
  std::array<bool, 3> periodic_{false, false, false};
  Int3 global_{1, 1, 1};
  int ghost_ = 0;
  Box3 local_box_{};
  std::array<int, kNumDirIndices> neighbors_{};
};

// Rank grid for `nranks` over `global`: MPI_Dims_create with axes of one cell kept at one rank, and
// the largest factors given to the longest axes. Entries of `fixed` that are > 0 are kept.
std::array<int, 3> choose_rank_grid(int nranks, Int3 global, std::array<int, 3> fixed = {0, 0, 0});

}  // namespace tessera::domain
