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
// Device-resident builds (build_async, for the CUDA-graph step of md/step_graph.hpp): the same steps with
// no host round trip. They cannot regrow the list inside a graph, so a count above the capacity is
// stored as it is and the force kernel of forces_cuda.cpp computes such a particle from the cells
// (CellView) instead of its list; the host reads the largest count later (max_count_seen) and regrows.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

// 16 bytes with the alignment of CUDA's float4 (the device-resident fill reads positions as float4).
struct alignas(16) float4_storage {
  float x, y, z, w;
};

struct NeighborView {
  const int* neigh = nullptr;
  const int* count = nullptr;
  int64_t stride = 0;  // = n
  int capacity = 0;
};

// The cell list of the last build, for computing a particle's neighbours from the cells directly.
struct CellView {
  const int* key = nullptr;     // cell of each particle at the last build (particle order)
  const int* sorted = nullptr;  // particle indices in cell order
  const int* start = nullptr;   // first / one-past-last position in `sorted` of each cell
  const int* end = nullptr;
  int nc0 = 1, nc1 = 1, nc2 = 1;
  int reach = 1;  // cells are >= (rc + skin) / reach wide; the stencil spans +-reach cells per axis
};

// Cells visited along one axis from cell c: c - reach .. c + reach (periodic) when the axis has at least
// 2 reach + 1 cells, otherwise every cell once. m: how many; cell(a): the a-th.
struct StencilAxis {
  int c, nc, reach;
  TESSERA_HD int m() const { return nc >= 2 * reach + 1 ? 2 * reach + 1 : nc; }
  TESSERA_HD int cell(int a) const { return nc >= 2 * reach + 1 ? (c + a - reach + nc) % nc : a; }
};

// Calls f(j) for every particle j in the cells around particle i's cell (the build's stencil, the same
// cells in the same order as the list fill), j == i included; lane/lanes split each cell's entries.
template <class F>
TESSERA_HD inline void for_each_cell_candidate(const CellView& c, int64_t i, int lane, int lanes, F&& f) {
  const int k = c.key[i];
  const StencilAxis s0{k % c.nc0, c.nc0, c.reach}, s1{(k / c.nc0) % c.nc1, c.nc1, c.reach},
      s2{k / (c.nc0 * c.nc1), c.nc2, c.reach};
  for (int a2 = 0; a2 < s2.m(); ++a2) {
    const int d2 = s2.cell(a2);
    for (int a1 = 0; a1 < s1.m(); ++a1) {
      const int d1 = s1.cell(a1);
      for (int a0 = 0; a0 < s0.m(); ++a0) {
        const int cell = s0.cell(a0) + c.nc0 * (d1 + c.nc1 * d2);
        for (int s = c.start[cell] + lane; s < c.end[cell]; s += lanes) f(c.sorted[s]);
      }
    }
  }
}

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
  // Cells at least (rc + skin) / reach wide, the stencil +-reach cells (1: 27 cells; 2: 125 smaller ones,
  // which the device-resident fill culls by their distance from the particle). Before the first build.
  void set_cell_reach(int reach);
  int cell_reach() const { return reach_; }
  double skin() const { return skin_; }
  // Full rebuild: wraps positions (updates images), bins, sorts, builds the list, records positions.
  // Bins all p.total() particles (owned + ghosts) and lists neighbours of the p.size() owned ones; in a
  // decomposed run `box` is the rank's list box (md/decomposition.hpp), not periodic along split axes.
  void build(const exec::Exec& ex, Particles& p, const Box& box);
  // True when any particle moved more than skin/2 since the last build (one reduction).
  bool needs_rebuild(const exec::Exec& ex, Particles& p, const Box& box) const;
  // The build without host round trips (device only; see the top of this file), for recording into a
  // CUDA graph: wrap, bin, sort, [reorder the particles into cell order], cells, fill, reference
  // positions. Needs a build() of the same particle count first (it sizes every buffer). With
  // `reorder` the particles are permuted in place (Particles::permute_in_place; no bonds) so that the
  // list and the force gathers walk memory in cell order. The largest count is kept on the device and
  // mirrored to pinned host memory (max_count_seen(), read without synchronising).
  // `counted`: the build counts in stats().builds (false when it repeats a host build() just made).
  void build_async(const exec::Exec& ex, Particles& p, const Box& box, bool reorder, bool counted = true);
  // Largest neighbour count of the device-resident builds since the last build() (may lag the device).
  int max_count_seen() const;
  CellView cells() const;
  // Whether device-resident builds are (or will be) in use: then a force kernel must handle counts above
  // the capacity. Set by build_async and by expect_device_builds (before recording a graph that calls it).
  bool device_builds() const { return device_builds_; }
  void expect_device_builds() { device_builds_ = true; }
  // Device word: the largest count of the device-resident builds since the last build() (0 after it).
  const int* device_max_count() const { return d_max_count_.data(); }
  // Sorted order of the last build (particle indices by cell), for spatial re-sorting of particles.
  const int* cell_order() const { return sorted_.data(); }
  NeighborView view() const { return NeighborView{neigh_.data(), count_.data(), stride_, capacity_}; }
  // Host builds plus the device-resident ones (counted on the device and read from pinned memory without
  // synchronising: up to date once the device work is done, e.g. after a fence); max_count likewise.
  const NeighborStats& stats() const;
  int ncell(int a) const { return nc_[a]; }
  // Positions recorded at the last build (wrapped into the box), in the particles' memory order. With
  // them a restart rebuilds exactly the list of the interrupted run (see Simulation::restore).
  const Buffer<double>& reference_x() const { return x0_; }
  const Buffer<double>& reference_y() const { return y0_; }
  const Buffer<double>& reference_z() const { return z0_; }

 private:
  void bin_and_sort(const exec::Exec& ex, Particles& p, const Box& box, bool reorder = false);
  int fill(const exec::Exec& ex, Particles& p, const Box& box);  // returns max count

  exec::Space space_;
  double rc_, skin_;
  int capacity_;
  int64_t stride_ = 0;
  int nc_[3] = {1, 1, 1};
  int reach_ = 1;
  Buffer<int> key_, sorted_, key_sorted_, cell_start_, cell_end_, neigh_, count_;
  Buffer<double> x0_, y0_, z0_;
  Buffer<unsigned char> sort_tmp_;
  Buffer<int> d_max_count_;       // device: running max of the device-resident builds' counts
  Buffer<float4_storage> pos4_;   // device-resident builds: float positions for the fill
  Buffer<unsigned> d_done_;       // device: block counter of the max kernel
  Buffer<int> h_max_count_;       // pinned mirror of d_max_count_
  Buffer<long long> d_builds_;    // device: device-resident builds so far; h_builds_ its pinned mirror
  Buffer<long long> h_builds_;
  mutable NeighborStats stats_view_;
  bool reordered_ = false;        // the last build permuted the particles: key_sorted_ is per particle
  bool device_builds_ = false;
  NeighborStats stats_;
};

// Reference O(N^2) full list for tests: for each i the sorted indices j with |r_ij| < range.
std::vector<std::vector<int>> brute_force_neighbors(const HostParticles& h, const Box& box, double range);

}  // namespace tessera::md
