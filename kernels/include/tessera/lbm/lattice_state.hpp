// One rank's lattice: populations (one copy, SoA, shifted, fp64/fp32/fp16), one flag byte per cell,
// an optional per-cell force field, and the AA parity. Host API of the LBM kernels; the functions
// dispatch on lattice, precision and collision model to template instances (compile-time variants,
// run-time choice) and run on the state's execution space.
#pragma once
#include <array>
#include <string>
#include <cstdint>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/lbm/collision.hpp"
#include "tessera/lbm/grid.hpp"
#include "tessera/lbm/lattice.hpp"
#include "tessera/lbm/stream_collide.hpp"
#include "tessera/lbm/storage.hpp"

namespace tessera::lbm {

struct CollisionParams {
  CollisionKind kind = CollisionKind::BGK;
  double omega = 1.0;          // 1/tau, lattice units
  double magic = 3.0 / 16.0;   // TRT magic parameter Lambda
  double smagorinsky = 0.0;    // Smagorinsky constant C_s (0: off)
  double force[3] = {0, 0, 0}; // uniform body-force density, lattice units
  WallTable walls{};           // wall velocities by wall id (flags.hpp); id 0 should stay at rest
  OpenTable open{};            // open faces (velocity inlet / pressure outlet) of cells flagged kOpen
};

// Reference: exec::parallel_for over the portable functor (host or device). Tuned: the hand-written
// CUDA kernel (device only; same results to rounding, see tests/lbm/test_tuned.cpp).
enum class KernelPath { Reference, Tuned };

// A box of interior cells in local indices, [lo, hi) per axis (0 <= lo <= hi <= n). Used to split one
// step into parts (the interior while the halo moves, the boundary shell around it).
struct CellBox {
  int64_t lo[3] = {0, 0, 0};
  int64_t hi[3] = {0, 0, 0};
  int64_t extent(int a) const { return hi[a] > lo[a] ? hi[a] - lo[a] : 0; }
  int64_t volume() const { return extent(0) * extent(1) * extent(2); }
  bool empty() const { return volume() == 0; }
  static CellBox whole(const GridLayout& g) { return CellBox{{0, 0, 0}, {g.nx, g.ny, g.nz}}; }
};

class LatticeState {
 public:
  // `memory`: where populations, flags and force live; Host/Device follow `space` by default
  // (default_memkind), Managed puts them in CUDA managed memory on a device run (see prefer_device()).
  LatticeState(LatticeKind lattice, Precision precision, GridLayout grid, exec::Space space);
  LatticeState(LatticeKind lattice, Precision precision, GridLayout grid, exec::Space space, MemKind memory);

  LatticeKind lattice() const { return lattice_; }
  Precision precision() const { return precision_; }
  const GridLayout& grid() const { return grid_; }
  exec::Space space() const { return space_; }
  MemKind memkind() const { return pops_.kind(); }
  int q() const { return lattice_q(lattice_); }
  // Bytes of memory per padded cell: Q populations + 1 flag byte.
  std::size_t bytes_per_cell() const { return std::size_t(q()) * std::size_t(precision_bytes(precision_)) + 1; }
  // Bytes of the populations and flags together (the figure a managed allocation must fit in).
  std::size_t bytes() const { return bytes_per_cell() * std::size_t(grid_.cells()); }
  // Managed memory on a device run: advise every array to stay on the GPU (preferred location, accessed
  // by the GPU) and prefetch it there on ex's stream, so that steps never fault. No-op otherwise.
  void prefer_device(const exec::Exec& ex);

  void* pops() { return pops_.data(); }
  const void* pops() const { return pops_.data(); }
  uint8_t* flags() { return flags_.data(); }
  const uint8_t* flags() const { return flags_.data(); }
  // Per-cell force density, SoA [3][cells] in the state's memory kind; allocated (zero) on first use.
  float* force_field();
  const float* force_field_or_null() const { return force_.empty() ? nullptr : force_.data(); }

  // 0: natural order (next step is even); 1: after an even step.
  int parity = 0;
  int64_t step = 0;

  // Counts write_flags() calls: state derived from the flags (the tuned path's staged wall links) is
  // rebuilt when it changes. Flags written into flags() directly after the first step need write_flags().
  uint64_t flags_version() const { return flags_version_; }
  void flags_written(int64_t face_cells = 0) {
    ++flags_version_;
    face_cells_ = face_cells;
  }
  // Cells that write_flags() gave a face (flags.hpp, flag_face); 0 for flags written directly.
  int64_t face_cells() const { return face_cells_; }
  // The tuned path's wall links staged for odd steps (kernels/lbm/src/wall_stage.hpp), built on first
  // use for the current flags.
  struct WallStage {
    Buffer<uint64_t> links;      // StageLink entries, in the state's memory kind
    Buffer<unsigned char> save;  // one population per link
    int64_t count = 0;           // 0: nothing staged (no wall links, or too many to stage)
    uint64_t version = 0;        // flags_version() it was built for (0: never)
    bool skip_faces = false;     // built without the face cells (flag_face; TESSERA_LBM_FACE_CELLS)
  };
  WallStage& wall_stage() { return wall_stage_; }
  // The fused steps' counters (kernels/lbm/src/tuned_fused_cuda.cpp), device memory, grown on first use.
  Buffer<unsigned>& fused_counters() { return fused_counters_; }

 private:
  LatticeKind lattice_;
  Precision precision_;
  GridLayout grid_;
  exec::Space space_;
  Buffer<unsigned char> pops_;
  Buffer<uint8_t> flags_;
  Buffer<float> force_;
  uint64_t flags_version_ = 1;
  int64_t face_cells_ = 0;
  WallStage wall_stage_;
  Buffer<unsigned> fused_counters_;
};

// Populations at equilibrium with the given rho[cells] and u[3][cells] (padded arrays in the state's
// memory kind); parity and step reset to 0.
void init_equilibrium(const exec::Exec& ex, LatticeState& s, const float* rho, const float* u);
// One fused stream-collide step over every interior fluid cell; flips the parity.
void stream_collide(const exec::Exec& ex, LatticeState& s, const CollisionParams& p,
                    KernelPath path = KernelPath::Reference);
// Part of a step: updates the fluid cells of `box` at the current parity and leaves the parity alone.
// A step may be split into disjoint boxes that cover the local box, launched in any order (with AA each
// cell reads and writes only its own fixed set of slots, so cells are independent within a step), and
// then closed with end_step(). Each cell's arithmetic is that of stream_collide(): the result is
// bit-identical. Empty boxes launch nothing.
void stream_collide_box(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& box,
                        KernelPath path = KernelPath::Reference);
// Closes a step made of stream_collide_box() calls: flips the parity, counts the step.
void end_step(LatticeState& s);
// Two steps, an even one and the odd one after it, in one pass over memory (the fused steps: CUDA,
// measurement and opt-in; kernels/lbm/src/tuned_fused_cuda.cpp, docs/performance.md LBM item 36): the odd
// step of each plane runs while the planes the even step left are still in the L2. The values are those of
// two stream_collide() calls on the tuned path, bit for bit. Needs parity 0 and fused_steps_available();
// nothing may happen between the two steps (no halo exchange: one rank whose ghost layer needs none, such
// as a closed box; bench_lbm's periodic box times the kernels without its exchange). Advances the parity and
// the step count by two.
void stream_collide_two(const exec::Exec& ex, LatticeState& s, const CollisionParams& p);
// `pairs` such pairs of steps (2 x pairs steps, the same bits as 2 x pairs stream_collide() calls on the tuned
// path), up to TESSERA_LBM_FUSED_PAIRS of them in one launch (default 1; more: the next pair's first planes
// run while this pair's last ones finish, measurement, LBM item 39). The same conditions as
// stream_collide_two for every pair; pairs = 0 does nothing.
// `periodic` (bits x = 1, y = 2, z = 4; one pair per call): the axes along which one rank is periodic, so
// that its ghost layer is its own image (lbm::AAHalo's self-exchange): the even step writes the forward
// exchange itself (each cell on a periodic side stores its slots into its ghost images, as the exchange
// would copy them), and the caller runs the reverse exchange after the pair, as after any odd step. The
// bits are those of the two steps with their exchanges.
void stream_collide_pairs(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, int64_t pairs,
                          unsigned periodic = 0);
// Whether stream_collide_two applies: a GPU build, D3Q19 or D3Q27 with fp32 or fp16 storage, BGK without
// any force or LES, an even nx (the pair kernel's layout), ny >= 2.
bool fused_steps_available(const LatticeState& s, const CollisionParams& p);
// How a run that can take its steps in fused pairs (nothing between the two steps of a pair: no halo
// exchange with another rank, no interpolated links, fused_steps_available) should, from TESSERA_LBM_FUSED
// (read per call):
// "auto" (unset: the default since 2026-12-06) times both forms on the run's own first steps and keeps
// the faster (lbm::Simulation; the bits are the same either way: the fused pair is two tuned steps bit
// for bit), "on" always fused, "off" never. Other values are refused. Why auto: the fused launch is 17-22 %
// (D3Q19) and 9-16 % (D3Q27) faster than the default kernels in the walled box on an H100, but on an H200
// it was up to 6 % (D3Q19) and 20 % (D3Q27) slower there (docs/performance.md, LBM items 38, 40 and 41).
enum class FusedSteps { Off, On, Auto };
FusedSteps fused_steps_mode();
// The shape stream_collide_pairs would take for s now: {rows per slab, planes the even step runs ahead, the
// most step pairs per launch}.
std::array<int, 3> fused_steps_shape(const LatticeState& s);
// The form stream_collide_pairs would run for s now without periodic axes (bench_lbm's records):
// "fused-quad-even" where its even items take the quad step (fp16 storage and a slot stride of a multiple of
// 4, unless TESSERA_LBM_FUSED_EVEN=pair), else "fused-pair".
std::string fused_steps_form(const LatticeState& s);
// Measurement only (bench_lbm --kernel pattern; CUDA, 3-D lattices, fp32/fp16): one step of the AA
// access pattern of the tuned kernel with no collision: every fluid cell reads its flag and its Q slots
// and writes them back where the step would (odd steps all as pure streaming, walls ignored). The
// populations keep no physical meaning; it is the memory-traffic ceiling of the kernel's access pattern.
// blocked = true: the same pattern on a blocked layout (32 consecutive cells x Q slots contiguous, slot q of
// cell c at ((c / 32) Q + q) 32 + c mod 32; the cells of the last, partial block of 32 are skipped), to
// measure what such a layout would allow before building it. collide (BGK without any force): also run
// the tuned kernel's collision between the loads and the stores, i.e. the tuned kernel itself on that
// layout (bench_lbm --kernel tuned-blocked).
void stream_pattern_only(const exec::Exec& ex, LatticeState& s, bool blocked = false,
                         const CollisionParams* collide = nullptr);
// Density and velocity (Guo-corrected, as in the collision) at the current time, padded arrays.
// Non-fluid cells get rho = 1, u = 0.
void compute_moments(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p, float* rho, float* u);
// Force and moment (about the global origin) on the walls of one wall id by momentum exchange over this
// rank's fluid cells: (Fx, Fy, Fz, Mx, My, Mz), lattice units (momentum_exchange.hpp). lo: the rank's first
// owned cell in global indices. Valid after at least one step.
std::array<double, 6> wall_force(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                                 const int64_t lo[3], int wall_id);
// Whether the tuned path exists in this build for this lattice and precision.
bool tuned_available(LatticeKind lattice, Precision precision);
// The tuned kernel's L2 prefetch distance for this storage precision and kernel (pair: the two-cells-per-
// thread kernel, else the one-cell kernel), KiB of population data ahead of each block
// (TESSERA_LBM_PREFETCH if set, else the default; 0: off). Benchmarks record it.
long tuned_prefetch_kib(Precision precision, bool pair = false);
// Which tuned kernel a whole-box step of s with collision `kind` runs: "pair" (two cells per thread: by
// default for D3Q19 with fp32 storage where it applies, TESSERA_LBM_PAIR=on|off|auto), "one-cell-32" (32-bit
// indices: fp16 storage where Q x cells < 2^32) or "one-cell"; "none" in a build without CUDA.
// Benchmarks record it.
const char* tuned_kernel_form(const LatticeState& s, CollisionKind kind);

// Raw slot contents as unshifted f (slot q of padded cell c at [q * cells + c]), for tests and
// checkpoints; write_slots() is the inverse (rounding to the storage precision).
std::vector<double> read_slots(const LatticeState& s);
void write_slots(LatticeState& s, const std::vector<double>& f);
// The flags as a host vector, and back.
std::vector<uint8_t> read_flags(const LatticeState& s);
void write_flags(LatticeState& s, const std::vector<uint8_t>& flags);

// Relaxation constants for the kernels (TRT's w- from the magic parameter).
template <class A>
Relaxation<A> make_relaxation(const CollisionParams& p) {
  Relaxation<A> r;
  r.omega = A(p.omega);
  r.magic = A(p.magic);
  r.omega_minus = trt_omega_minus(A(p.omega), A(p.magic));
  r.smag_c2 = A(p.smagorinsky * p.smagorinsky);
  return r;
}

}  // namespace tessera::lbm
