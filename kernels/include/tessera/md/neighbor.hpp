// Cell list + Verlet neighbour list with a skin, built in the execution space of the particles.
//
// Build (every step that needs it, all on the device in a GPU run):
//   1. wrap positions into the box (updating image counts) and bin each particle into a cell of side
//      >= rc + skin;
//   2. sort (cell, particle) pairs: CUB radix sort on the GPU, std::stable_sort on the host;
//   3. mark the first/last entry of each cell (cell_start/cell_end);
//   4. for every particle scan the 27 neighbouring cells (fewer when an axis has < 3 cells) and keep
//      j != i with |r_ij| < rc + skin (minimum image). The list is full (each pair stored twice), so
//      every particle sums its own forces in a fixed order without atomics.
// Layout: neigh[k * n + i] (k-th neighbour of i), so a warp reading k for 32 consecutive i coalesces;
// offsets are 64-bit. The true count is always stored; if any count exceeds the capacity the list is
// regrown and rebuilt, never truncated.
// Rebuild criterion: any particle moved more than skin/2 since the last build (Verlet 1967; with
// both ends moving, no pair can have crossed rc + skin before then).
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

struct NeighborView {
  const int* neigh = nullptr;
  const int* count = nullptr;
  int64_t stride = 0;  // = n
  int capacity = 0;
};

struct NeighborStats {
  int64_t builds = 0;
  int64_t regrows = 0;
  int max_count = 0;
  double build_ms = 0;  // wall time spent in build(), host clock around fenced work
};

class NeighborList {
 public:
  NeighborList(exec::Space space, double rc, double skin, int initial_capacity = 64);
  double rc() const { return rc_; }
  double skin() const { return skin_; }
  // Full rebuild: wraps positions (updates images), bins, sorts, builds the list, records positions.
  // Bins all p.total() particles (owned + ghosts) and lists neighbours of the p.size() owned ones; in a
  // decomposed run `box` is the rank's list box (md/decomposition.hpp), not periodic along split axes.
  void build(const exec::Exec& ex, Particles& p, const Box& box);
  // True when any particle moved more than skin/2 since the last build (one reduction).
  bool needs_rebuild(const exec::Exec& ex, Particles& p, const Box& box) const;
  // Sorted order of the last build (particle indices by cell), for spatial re-sorting of particles.
  const int* cell_order() const { return sorted_.data(); }
  NeighborView view() const { return NeighborView{neigh_.data(), count_.data(), stride_, capacity_}; }
  const NeighborStats& stats() const { return stats_; }
  int ncell(int a) const { return nc_[a]; }
  // Positions recorded at the last build (wrapped into the box), in the particles' memory order. With
  // them a restart rebuilds exactly the list of the interrupted run (see Simulation::restore).
  const Buffer<double>& reference_x() const { return x0_; }
  const Buffer<double>& reference_y() const { return y0_; }
  const Buffer<double>& reference_z() const { return z0_; }

 private:
  void bin_and_sort(const exec::Exec& ex, Particles& p, const Box& box);
  int fill(const exec::Exec& ex, Particles& p, const Box& box);  // returns max count

  exec::Space space_;
  double rc_, skin_;
  int capacity_;
  int64_t stride_ = 0;
  int nc_[3] = {1, 1, 1};
  Buffer<int> key_, sorted_, key_sorted_, cell_start_, cell_end_, neigh_, count_;
  Buffer<double> x0_, y0_, z0_;
  Buffer<unsigned char> sort_tmp_;
  NeighborStats stats_;
};

// Reference O(N^2) full list for tests: for each i the sorted indices j with |r_ij| < range.
std::vector<std::vector<int>> brute_force_neighbors(const HostParticles& h, const Box& box, double range);

}  // namespace tessera::md
