// Particles as a structure of arrays, resident in the memory of one execution space.
//
// Every per-particle quantity is its own array (positions, velocities, forces, type, id, periodic image
// counts, per-atom energy and virial), so a GPU warp reads each with coalesced loads. Masses are per
// type (a small table), as in LAMMPS' atom styles without per-atom mass. HostParticles is the same data
// in std::vectors for set-up, I/O and tests; upload/download move it between the two.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"

namespace tessera::md {

// Raw pointers handed to kernels (captured by value).
struct ParticleView {
  int64_t n = 0;
  double *x, *y, *z, *vx, *vy, *vz, *fx, *fy, *fz;
  double *pe, *vir;  // per-atom potential energy and virial sum(r.F)/2, filled when energies are asked for
  int* type;
  int64_t* id;
  int *ix, *iy, *iz;        // periodic image counts (unwrapped x = x + ix * Lx)
  const double* inv_mass;   // per type
};

struct HostParticles {
  std::vector<double> x, y, z, vx, vy, vz;
  std::vector<int> type;
  std::vector<int64_t> id;
  std::vector<int> ix, iy, iz;
  std::vector<double> mass;  // per type
  int64_t size() const { return int64_t(x.size()); }
  void resize(int64_t n);
};

class Particles {
 public:
  Particles() = default;
  Particles(exec::Space space, int64_t n, const std::vector<double>& mass_per_type);
  exec::Space space() const { return space_; }
  // Owned particles: every integrator, reduction and force loop runs over [0, size()).
  int64_t size() const { return n_; }
  // Owned + ghost copies of other ranks' particles (decomposed runs, md/decomposition): ghosts sit at
  // [size(), total()) and are only read (neighbour binning, pair and bond partners). One rank: total() == size().
  int64_t total() const { return n_ + nghost_; }
  int64_t ghosts() const { return nghost_; }
  // Reallocate for n owned particles and g ghosts (contents undefined; forces, pe, vir zeroed).
  void reset(int64_t n, int64_t g);
  // Decomposed runs (md/decomposition): n owned and g ghosts without reallocating while the arrays hold
  // n + g entries; otherwise they grow (with head-room) keeping their first total() entries. The MSD
  // references (rx0..) are not touched: the caller sizes them.
  void set_counts(int64_t n, int64_t g);
  // Entries every per-particle array holds (>= total()).
  int64_t capacity() const { return int64_t(x.size()); }
  int ntypes() const { return int(h_mass_.size()); }
  const std::vector<double>& mass() const { return h_mass_; }
  ParticleView view();

  void upload(const HostParticles& h);
  void download(HostParticles& h) const;
  // Reorder every per-particle array: new[i] = old[order[i]] (order lives in this space's memory).
  void permute(const exec::Exec& ex, const int* order);
  // The same reordering of the owned particles without reallocating (pointers stay valid, so it can be
  // recorded into a CUDA graph): two kernels through scratch arrays, no host synchronisation. Forces,
  // pe and vir are not carried (they are recomputed after a rebuild). Allocate the scratch with
  // reserve_permute_scratch() before recording.
  void permute_in_place(const exec::Exec& ex, const int* order);
  void reserve_permute_scratch();
  // x, y, z as 32-bit fixed point over the box and the type, 16 bytes per particle (owned and ghosts):
  // what the tuned pair kernel gathers per neighbour in mixed precision (forces_cuda.cpp). Grown to
  // 4 total() ints here (before any CUDA-graph recording: the graph path's first force evaluation runs
  // outside the capture and the count never changes there); the caller fills it before each use.
  int* fixed_positions();

  Buffer<double> x, y, z, vx, vy, vz, fx, fy, fz, pe, vir;
  Buffer<int> type, ix, iy, iz;
  Buffer<int64_t> id;
  // Unwrapped reference positions for the mean-square displacement (msd.hpp): empty unless enabled.
  // They travel with their particle through permute(), so re-sorting (and later migration) keeps them.
  Buffer<double> rx0, ry0, rz0;
  bool has_reference() const { return rx0.size() == std::size_t(n_) && n_ > 0; }

 private:
  exec::Space space_ = exec::Space::Host;
  int64_t n_ = 0;
  int64_t nghost_ = 0;
  std::vector<double> h_mass_;
  Buffer<double> d_inv_mass_;
  Buffer<double> scratch_d_;  // permute_in_place: 9 doubles, 4 ints and one id per particle
  Buffer<int> scratch_i_;
  Buffer<int64_t> scratch_l_;
  Buffer<int> fixed_;  // fixed_positions()
};

}  // namespace tessera::md
