// The tuned CUDA stream-collide: one thread per cell on an exact 3-D grid (no grid-stride loops, no
// bounds arithmetic beyond x), __launch_bounds__ with a minimum block count so that occupancy stays high
// enough to hide memory latency, the wall table in constant memory (no per-thread stack frame), and
// read-only loads of the flags through the non-coherent cache. The physics is the same functor as the portable reference (stream_collide.hpp);
// tests/lbm/test_tuned.cpp compares the two on random populations for every lattice, precision and
// collision model.
#include "lattice_impl.hpp"
#include "lattice_ops.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/knob.hpp"
#include "tessera/lbm/lattice_state.hpp"
#include "wall_stage.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "tessera/core/cuda_check.hpp"
#include "tuned_ld_hint.hpp"
#include "tuned_prefetch.hpp"
#include "tuned_slot.hpp"
#endif

namespace tessera::lbm {

// Default L2 prefetch distance per storage precision and kernel, KiB of population data ahead (0: off).
// Measured on an H200 (docs/performance.md, LBM items 13-14): the one-cell fp32 kernel +7-8 % in the
// periodic box and +9-10 % with walls at 1-3 MiB (flat in between); the pair kernel (fp32) best at 1 MiB
// (+0.3-0.9 % over 2 MiB, 3-4 MiB lose); fp16 1-9 % slower in the periodic box (its one-cell kernel is
// bound by issue, not latency), so it stays off there (TESSERA_LBM_PREFETCH=2048 turns it on: it gave D3Q19
// with walls +13 % at bad3a93, but since the staged even step it is 1-6 % slower there too: LBM item 28).
constexpr long kPrefetchKiBFp32 = 2048;
constexpr long kPrefetchKiBPairFp32 = 1024;
constexpr long kPrefetchKiBFp16 = 0;

namespace {
std::atomic<int64_t> g_face_launches{0};  // detail::face_kernel_launches
}  // namespace

#if TESSERA_CUDA_COMPILER
namespace {
constexpr int kBlockX = 128;
// Minimum resident blocks per SM (__launch_bounds__): the kernel is bound by memory latency and
// bandwidth, so occupancy matters more than a few spilled registers. Measured on an H200 at 256^3 (BGK,
// periodic box, with the kNoWallNeighbour fast path; MLUPs/s fp32 / fp16; bench/results/*-tune-*.jsonl):
//   D3Q19  128 x 8: 18,958 / 25,567   128 x 6: 20,626 / 25,684   128 x 4: 20,321 / 23,684
//          256 x 4: 19,339 / 26,126    64 x 16: 17,751 / 25,175
//   D3Q27  128 x 5: 14,649 / 18,575   128 x 6: 13,846 / 17,967   128 x 4: 14,346 / 17,120
//          256 x 4:  9,747 / 12,662    64 x 16:  9,167 / 12,234
// (block size x minimum blocks per SM). Tuning builds (-DTESSERA_LBM_LAUNCH_VARIANTS=ON) pick one at run
// time with TESSERA_LBM_LAUNCH=BXxMB.
template <class L>
constexpr int min_blocks() {
  return L::Q <= 19 ? 6 : 5;
}

// Wall velocities live in constant memory. Passing them inside the kernel's by-value argument and
// indexing them with a run-time wall id made nvcc copy the whole table into a per-thread stack frame
// (288 bytes of local memory traffic per cell, seen with ncu/cuobjdump); constant memory is indexable.
__constant__ WallTable c_walls;

// L2 prefetch ahead: tuned_prefetch.hpp (Prefetch, l2_prefetch_block, make_prefetch).
using detail::l2_prefetch_block;
using detail::make_prefetch;
using detail::Prefetch;
using detail::l2hint_wanted;
using detail::ld_pop;
using detail::SlotPtrs;
using detail::make_slot_ptrs;

// KF: the step has a force (uniform or per-cell); false drops the force terms (collide_cell).
template <class L, class S, CollisionKind K, int BX, int MB, bool KF>
__global__ void __launch_bounds__(BX, MB)
    stream_collide_tuned(S* __restrict__ f, const uint8_t* __restrict__ flags, StepArgs<typename Storage<S>::Real> a,
                         Prefetch pf) {
  const int64_t i = int64_t(blockIdx.x) * BX + threadIdx.x;
  if (i >= a.grid.nx) return;
  const int64_t c = a.grid.cell(i, blockIdx.y, blockIdx.z);
  l2_prefetch_block<S, L::Q>(f, a.odd, c - threadIdx.x, BX, pf);
  if (!is_fluid(__ldg(flags + c))) return;
  // Same per-cell physics as the portable reference (StreamCollideAA), wall table from constant memory.
  update_cell<L, S, K, typename Storage<S>::Real, KF>(f, flags, a, c_walls, c);
}

// The same kernel with 32-bit index arithmetic within each slot array, for grids of fewer than 2^32
// padded cells, used for fp16 storage and D3Q27. Cell indices c +- offset(c_q) are formed in 32 bits from
// px and px * py and added to the slot array's base (sp, tuned_slot.hpp: the bases are kernel arguments,
// so Q x cells may exceed 2^32), so an address costs an integer add and one wide multiply-add instead of
// 64-bit products and adds. With the force-free collision (KF = false) the fp16 kernel went from ~770 to ~400 issued instructions per cell and from 25,300 to 34,200 MLUPs/s
// at 256^3 (docs/performance.md); fp32, bound by memory latency rather than issue, measured 2 % slower
// with it and keeps the 64-bit form. Even steps and odd steps of kNoWallNeighbour cells take the 32-bit
// loads and stores; cells next to a wall keep the generic aa_load / aa_store; all collide with
// collide_cell, the reference's collision, so the values are the one-cell kernel's
// (tests/lbm/test_tuned.cpp).
struct Geom32 {
  uint32_t nx, px, py, n, pxy;
};

Geom32 make_geom32(const GridLayout& g) {
  return Geom32{uint32_t(g.nx), uint32_t(g.px()), uint32_t(g.py()), uint32_t(g.cells()), uint32_t(g.px() * g.py())};
}

// offset(c_q) = cx + px cy + px py cz in unsigned arithmetic of type I (wrapping: c +- offset is exact as
// long as the result is a valid index).
template <class L, class I>
__device__ inline I offset_u(int q, I px, I pxy) {
  const int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
  return I(cx) + (cy > 0 ? px : (cy < 0 ? I(0) - px : I(0))) + (cz > 0 ? pxy : (cz < 0 ? I(0) - pxy : I(0)));
}
template <class L>
__device__ inline uint32_t offset32(int q, const Geom32& g) {
  return offset_u<L, uint32_t>(q, g.px, g.pxy);
}

// H: the loads of the even step and of the odd step's cells without a wall neighbour carry the L2 128-byte
// hint (tuned_ld_hint.hpp: force-free BGK, by default with fp16 storage and for D3Q27; TESSERA_LBM_L2HINT).
// WU (measurement, TESSERA_LBM_WALL_WARP=uniform): in the odd step a warp with any wall-adjacent cell
// takes the wall-checking load and store (aa_load / aa_store) for all its cells, instead of the cells
// without a wall neighbour taking the direct path and the others the wall-checking one after them (two
// divergent passes: at 256^3 the two warps at the ends of each row, a quarter of them). Both paths give a
// cell without a wall neighbour the same values, so the bits do not change (tests/lbm/test_tuned.cpp).
// SP (TESSERA_LBM_SPECULATE, tuned_ld_hint.hpp): the population loads are issued before the cell's flag
// has arrived, so that a warp waits for one memory latency before its collision instead of two (the flag,
// then the populations). Every address they touch is inside the slot arrays (c is an interior cell, its
// neighbours are padded cells). A solid cell drops what it loaded; in the odd step a cell with a wall
// neighbour keeps the streamed values of its links from fluid cells (the addresses and values aa_load
// takes) and replaces those of its links from walls with aa_load's (own slot q plus the wall term:
// wall_links_from), so the bits are the default form's (tests/lbm/test_tuned.cpp).
template <class L, class S, class A>
__device__ inline void wall_links_from(const SlotPtrs<S>& sp, const uint8_t* __restrict__ flags, const Geom32& g,
                                       uint32_t c, A (&fq)[L::Q]) {
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q) {
    const uint8_t fl = flags[c - offset32<L>(q, g)];
    if (flag_kind(fl) == kWall) {
      // aa_load's value, own slot + wall term through the storage. With a term of +-0 the sum is the
      // stored value itself (or +0), which the round trip keeps: taken only for a nonzero term, the same
      // bits with the registers of the form before the round trip (D3Q27 fp16: 64 instead of 72, so 8
      // blocks per SM; cuobjdump -res-usage, sm_90).
      const A t = wall_term<L, A>(q, c_walls, fl), v = A(Storage<S>::load(sp.p[q][c])) + t;
      fq[q] = t != A(0) ? through_storage<S>(v) : v;
    }
  }
}

// SPM: 0 the direct form; 1 the SP form; 2 its odd step's wall path without the speculation (the flag
// first, then every fluid cell's streamed values and wall_links_from: TESSERA_LBM_SPECULATE=patch, the
// default for D3Q27 with fp16 storage: the wall-adjacent cells' second pass through aa_load goes, LBM item 32).
// FC (TESSERA_LBM_FACE_CELLS=on, LBM item 35): in the odd step a face cell (flag_face, flags.hpp: a cell of
// a box's face away from its edges; on the faces normal to x, one at each end of a row) streams with the
// others of its warp, its links from the wall read from and bounced into its own slots (stream_collide.hpp:
// face_slot, face_from, face_into), instead of a pass through aa_load (for the x faces a second, divergent
// pass of one lane) or the staged links' two passes (whose x-face links cost two scattered sectors each).
// Warps without a face cell skip the address selects (warp-uniform). The bits are aa_load's and aa_store's.
template <class L, class S, CollisionKind K, int BX, int MB, bool KF, bool H = false, bool WU = false, int SPM = 0,
          bool FC = false>
__global__ void __launch_bounds__(BX, MB)
    stream_collide_tuned32(S* __restrict__ f, const uint8_t* __restrict__ flags, StepArgs<typename Storage<S>::Real> a,
                           Geom32 g, Prefetch pf, SlotPtrs<S> sp) {
  static_assert(!(SPM && WU), "the speculative loads and the one-pass wall warps are separate forms");
  static_assert(!FC || (!SPM && !WU), "the face cells' streaming is a form of the direct kernel");
  constexpr bool SP = SPM == 1, Gather = SPM != 0;
  using A = typename Storage<S>::Real;
  constexpr int Q = L::Q;
  const uint32_t i = blockIdx.x * uint32_t(BX) + threadIdx.x;
  if (i >= g.nx) return;
  const uint32_t c = (i + 1u) + g.px * ((blockIdx.y + 1u) + g.py * (blockIdx.z + 1u));
  l2_prefetch_block<S, Q>(f, a.odd, int64_t(c) - int64_t(threadIdx.x), BX, pf);
  const uint8_t fl = __ldg(flags + c);
  if constexpr (!SP)
    if (!is_fluid(fl)) return;
  const bool odd = a.odd;
  bool free = odd && (fl & kStreamFree);
  if constexpr (WU)
    if (odd) free = __all_sync(__activemask(), free);
  // FC: face, a face cell's face (flag_face; 0 for any other cell), whose links from the wall
  // (face_links) are taken from its own slots; faces, whether the warp has such a cell (then its
  // addresses are selected per lane); wf, that wall's flag (the neighbour across the face). with_links
  // runs fn with the lane's links from the wall as a compile-time mask per face (a switch; nothing for a
  // cell without a face), so that each face's selects and wall terms are straight-line code and no mask
  // stays live over the collision: a mask in a register made the D3Q19 kernels spill 32-48 bytes at 80
  // registers (cuobjdump -res-usage, sm_90). D3Q27 has no FC form: with the switch it spilled 64-72
  // bytes, with the mask 0-24 at 96 registers (80 without FC for fp32).
  static_assert(!FC || Q <= 19, "the face cells' streaming is a D3Q19 form");
  int face = 0;
  bool faces = false;
  uint8_t wf = 0;
  auto with_links = [&](auto fn) {
    switch (face) {
      case 1: fn(std::integral_constant<uint32_t, face_links<L>(1)>{}); break;
      case 2: fn(std::integral_constant<uint32_t, face_links<L>(2)>{}); break;
      case 3: fn(std::integral_constant<uint32_t, face_links<L>(3)>{}); break;
      case 4: fn(std::integral_constant<uint32_t, face_links<L>(4)>{}); break;
      case 5: fn(std::integral_constant<uint32_t, face_links<L>(5)>{}); break;
      case 6: fn(std::integral_constant<uint32_t, face_links<L>(6)>{}); break;
      default: break;
    }
  };
  if constexpr (FC) {
    face = odd && !free ? flag_face(fl) : 0;
    if (face) {
      free = true;
      const uint32_t ax = uint32_t(face - 1) >> 1, d = ax == 0 ? 1u : ax == 1 ? g.px : g.pxy;
      wf = __ldg(flags + ((face - 1) & 1 ? c + d : c - d));
    }
    faces = __any_sync(__activemask(), face != 0);
  }
  A fq[Q];
  // The odd step of a cell without a wall neighbour loads direction q from adr[q] and stores direction
  // opposite(q) to the same address (AA pattern). KeepAdr: the addresses are formed once and held over the
  // collision (force-free BGK D3Q19: 40 instead of 96 instructions for the stores of a cell, no spills at
  // 80 registers); otherwise they are formed again for the stores (held, they spilled: ptxas, sm_90).
  constexpr bool KeepAdr = Q <= 19 && !KF && K == CollisionKind::BGK;
  S* adr[Q];
  auto form_adr = [&] {
    adr[0] = f + c;
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; ++q) adr[q] = sp.p[opposite(q)] + (c - offset32<L>(q, g));
    if constexpr (FC)
      if (faces)  // face_slot's choice: slot q of c for a link from the cell's wall
        with_links([&](uint32_t links) {
          TESSERA_LBM_UNROLL
          for (int q = 1; q < Q; ++q)
            if ((links >> q) & 1u) adr[q] = sp.p[q] + c;
        });
  };
  if (!odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) fq[q] = A(Storage<S>::load(ld_pop<H>(sp.p[q] + c)));
  } else if (Gather || free) {
    form_adr();
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) fq[q] = A(Storage<S>::load(ld_pop<H>(adr[q])));
  } else {
    aa_load<L, S, A>(f, flags, a.grid, true, c_walls, int64_t(c), fq);
  }
  if constexpr (SP)
    if (!is_fluid(fl)) return;
  if constexpr (Gather)
    if (odd && !free) wall_links_from<L, S, A>(sp, flags, g, c, fq);
  if constexpr (FC)
    if (faces) with_links([&](uint32_t links) { face_from<L, S, A>(fq, links, c_walls, wf); });
  collide_cell<L, K, A, KF>(a, int64_t(c), fq);
  if constexpr (FC)
    if (faces) with_links([&](uint32_t links) { face_into<L, S, A>(fq, links, c_walls, wf); });
  if (!odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) sp.p[opposite(q)][c] = Storage<S>::store(fq[q]);
  } else if (free) {
    if constexpr (!KeepAdr) form_adr();
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) *adr[opposite(q)] = Storage<S>::store(fq[q]);
  } else {
    aa_store<L, S, A>(f, flags, a.grid, true, c_walls, int64_t(c), fq);
  }
}

// The access pattern of the one-cell kernel without its arithmetic (stream_pattern_only, measurement):
// flag, Q loads, Q stores per fluid cell; odd steps stream every cell as if it had no wall neighbour.
// 64-bit indices for fp32 and 32-bit for fp16 where they apply, as the tuned kernel chooses.
// Collide: the force-free BGK collision of the tuned kernel between loads and stores (the tuned kernel on
// the layout under test).
template <class L, class S, class I, int BX, int MB, bool Blocked, bool Collide>
__global__ void __launch_bounds__(BX, MB) aa_pattern_only(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                          GridLayout gl, Geom32 g32, bool odd,
                                                          StepArgs<typename Storage<S>::Real> a, Prefetch pf) {
  using A = typename Storage<S>::Real;
  constexpr int Q = L::Q;
  const I i = I(blockIdx.x) * BX + threadIdx.x;
  if (i >= I(gl.nx)) return;
  const I px = I(gl.px()), py = I(gl.py()), n = std::is_same_v<I, uint32_t> ? I(g32.n) : I(gl.cells());
  const I c = (i + 1) + px * ((I(blockIdx.y) + 1) + py * (I(blockIdx.z) + 1));
  if (!Blocked) l2_prefetch_block<S, Q>(f, odd, int64_t(c) - int64_t(threadIdx.x), BX, pf);
  const I pxy = px * py;
  if (Blocked && c + pxy + px + 1 >= n / 32 * 32) return;  // a neighbour in the last, partial block
  if (!is_fluid(__ldg(flags + c))) return;
  auto at = [&](int q, I cell) { return Blocked ? ((cell >> 5) * I(Q) + I(q)) * 32 + (cell & 31) : I(q) * n + cell; };
  A v[Q];
  auto ld = [&](I e) { return A(Storage<S>::load(f[e])); };
  auto st = [&](I e, A x) { f[e] = Storage<S>::store(x); };
  auto mid = [&] {
    if constexpr (Collide) collide_cell<L, CollisionKind::BGK, A, false>(a, int64_t(c), v);
  };
  if (!odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) v[q] = ld(at(q, c));
    mid();
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) st(at(opposite(q), c), v[q]);
  } else {
    auto off = [&](int q) { return offset_u<L, I>(q, px, pxy); };
    v[0] = ld(at(0, c));
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; ++q) v[q] = ld(at(opposite(q), c - off(q)));
    mid();
    st(at(0, c), v[0]);
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; ++q) st(at(q, c + off(q)), v[q]);
  }
}

// The access-pattern measurement's 32-bit form indexes all Q slot arrays from one base: Q x cells < 2^32.
bool fits32(const GridLayout& g, int q) { return uint64_t(q) * uint64_t(g.cells()) < (uint64_t(1) << 32); }

// Whether the one-cell kernel takes its 32-bit index form (cells < 2^32: tuned_index32_fits): with fp16 storage, and
// for D3Q27 with fp32 (+2.9 % at 256^3 and 512^3, and +5.6 % with the L2 hint that comes with it: f8575bd,
// docs/performance.md, LBM item 20). D3Q19 fp32 keeps the 64-bit one, which measured 2 % faster when its
// odd steps ran on it (they run on the pair kernel now). TESSERA_LBM_INDEX=64 forces the 64-bit form, =32
// the 32-bit one wherever it fits (tests, measurement); other values are refused.
bool use_index32(const GridLayout& g, int q, Precision pr) {
  const int v = knob_choice("TESSERA_LBM_INDEX", {"32", "64", "auto"}, "auto", "auto, 32 for fp16 storage and D3Q27");
  if (v == 1) return false;
  return (v == 0 || pr == Precision::FP16 || q == 27) && detail::tuned_index32_fits(g);
}

// A sub-box of cells for the overlap of the halo exchange (stream_collide_box): the same per-cell work as
// the whole-box kernel, which stays untouched (its launch was tuned). Wide boxes (the interior, slabs
// normal to y or z) map x to threads and y, z to the grid as above; thin ones (slabs normal to x, one
// cell wide) number their cells in one flat range so that blocks do not idle on a single column.
struct BoxLaunch {
  int64_t lo0, lo1, lo2, n0, n1, hi0, volume;
  bool flat;
};

template <class L, class S, CollisionKind K, int BX, int MB, bool KF>
__global__ void __launch_bounds__(BX, MB) stream_collide_tuned_box(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                                   StepArgs<typename Storage<S>::Real> a, BoxLaunch b) {
  int64_t i, j, k;
  if (b.flat) {
    const int64_t t = int64_t(blockIdx.x) * BX + threadIdx.x;
    if (t >= b.volume) return;
    const int64_t r = t / b.n0;
    i = b.lo0 + (t - r * b.n0);
    j = b.lo1 + r % b.n1;
    k = b.lo2 + r / b.n1;
  } else {
    i = b.lo0 + int64_t(blockIdx.x) * BX + threadIdx.x;
    if (i >= b.hi0) return;
    j = b.lo1 + blockIdx.y;
    k = b.lo2 + blockIdx.z;
  }
  const int64_t c = a.grid.cell(i, j, k);
  if (!is_fluid(__ldg(flags + c))) return;
  update_cell<L, S, K, typename Storage<S>::Real, KF>(f, flags, a, c_walls, c);
}

template <class L, class S, CollisionKind K>
void launch_box(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& box) {
  using A = typename Storage<S>::Real;
  constexpr int BX = kBlockX, MB = min_blocks<L>();
  const StepArgs<A> a = detail::make_step_args<A>(s, p);
  const auto st = static_cast<cudaStream_t>(ex.stream);
  TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  BoxLaunch b{box.lo[0], box.lo[1], box.lo[2], box.extent(0), box.extent(1), box.hi[0], box.volume(), false};
  b.flat = b.n0 < BX / 2 || box.extent(1) > 65535 || box.extent(2) > 65535;
  const dim3 grid = b.flat ? dim3(unsigned((b.volume + BX - 1) / BX))
                           : dim3(unsigned((b.n0 + BX - 1) / BX), unsigned(box.extent(1)), unsigned(box.extent(2)));
  TESSERA_REQUIRE(!b.flat || (b.volume + BX - 1) / BX <= 2147483647, "tuned LBM kernel: sub-box too large for a flat launch");
  if (detail::tuned_force_terms(s, p))  // force, LES or TESSERA_LBM_FORCE_TERMS=1: as the whole-box launch
    stream_collide_tuned_box<L, S, K, BX, MB, true><<<grid, BX, 0, st>>>(static_cast<S*>(s.pops()), s.flags(), a, b);
  else
    stream_collide_tuned_box<L, S, K, BX, MB, false><<<grid, BX, 0, st>>>(static_cast<S*>(s.pops()), s.flags(), a, b);
  TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_tuned_box");
}

template <class L, class S, CollisionKind K>
void launch(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
  using A = typename Storage<S>::Real;
  const GridLayout& g = s.grid();
  TESSERA_REQUIRE(g.ny <= 65535 && g.nz <= 65535, "tuned LBM kernel: ny and nz per rank must be <= 65535");
  const StepArgs<A> a = detail::make_step_args<A>(s, p);
  const auto st = static_cast<cudaStream_t>(ex.stream);
  TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  const bool use32 = use_index32(g, L::Q, Storage<S>::precision);
  const bool force = detail::tuned_force_terms(s, p);
  const Prefetch pf = make_prefetch<L, S>(g, st);
  auto go = [&](auto bx, auto mb) {
    constexpr int BX = decltype(bx)::value, MB = decltype(mb)::value;
    const dim3 grid(unsigned((g.nx + BX - 1) / BX), unsigned(g.ny), unsigned(g.nz));
    auto run = [&](auto kf) {
      constexpr bool KF = decltype(kf)::value;
      if (use32) {
        const Geom32 g32 = make_geom32(g);
        S* f = static_cast<S*>(s.pops());
        const SlotPtrs<S> sp = make_slot_ptrs(f, L::Q, g.cells());
        if constexpr (!KF && K == CollisionKind::BGK)
          if (l2hint_wanted(std::is_same_v<S, half_t> || L::Q == 27)) {
            const detail::Speculate spm = detail::speculate_mode(
                L::Q == 27 && std::is_same_v<S, half_t> ? detail::Speculate::Patch : detail::Speculate::Off);
            if (spm == detail::Speculate::On || spm == detail::Speculate::Odd)
              stream_collide_tuned32<L, S, K, BX, MB, KF, true, false, 1><<<grid, BX, 0, st>>>(f, s.flags(), a, g32, pf, sp);
            else if (spm == detail::Speculate::Patch)
              stream_collide_tuned32<L, S, K, BX, MB, KF, true, false, 2><<<grid, BX, 0, st>>>(f, s.flags(), a, g32, pf, sp);
            else if (detail::wall_warp_uniform())
              stream_collide_tuned32<L, S, K, BX, MB, KF, true, true><<<grid, BX, 0, st>>>(f, s.flags(), a, g32, pf, sp);
            else if (L::Q == 19 && s.parity == 1 && detail::face_cells_streamed(s)) {
              if constexpr (L::Q == 19) {
                stream_collide_tuned32<L, S, K, BX, MB, KF, true, false, 0, true>
                    <<<grid, BX, 0, st>>>(f, s.flags(), a, g32, pf, sp);
                detail::note_face_launch();
              }
            } else
              stream_collide_tuned32<L, S, K, BX, MB, KF, true><<<grid, BX, 0, st>>>(f, s.flags(), a, g32, pf, sp);
            return;
          }
        stream_collide_tuned32<L, S, K, BX, MB, KF><<<grid, BX, 0, st>>>(f, s.flags(), a, g32, pf, sp);
      } else {
        stream_collide_tuned<L, S, K, BX, MB, KF><<<grid, BX, 0, st>>>(static_cast<S*>(s.pops()), s.flags(), a, pf);
      }
    };
    if (force) run(std::true_type{});
    else run(std::false_type{});
  };
  using std::integral_constant;
#ifdef TESSERA_LBM_LAUNCH_VARIANTS
  // Tuning builds only (-DTESSERA_LBM_LAUNCH_VARIANTS=ON): TESSERA_LBM_LAUNCH=BXxMB picks the block size
  // and the __launch_bounds__ minimum blocks per SM at run time, so one build measures them all.
  static const std::string v = [] {
    const char* e = std::getenv("TESSERA_LBM_LAUNCH");
    return std::string(e ? e : "");
  }();
  if (v == "128x8") go(integral_constant<int, 128>{}, integral_constant<int, 8>{});
  else if (v == "256x4") go(integral_constant<int, 256>{}, integral_constant<int, 4>{});
  else if (v == "64x16") go(integral_constant<int, 64>{}, integral_constant<int, 16>{});
  else if (v == "128x6") go(integral_constant<int, 128>{}, integral_constant<int, 6>{});
  else if (v == "128x5") go(integral_constant<int, 128>{}, integral_constant<int, 5>{});
  else if (v == "256x3") go(integral_constant<int, 256>{}, integral_constant<int, 3>{});
  else if (v == "128x4") go(integral_constant<int, 128>{}, integral_constant<int, 4>{});
  else
#endif
    go(integral_constant<int, kBlockX>{}, integral_constant<int, min_blocks<L>()>{});
  TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_tuned");
}

// box == nullptr: the whole box (the tuned launch); else the sub-box launch.
template <class L, class S, CollisionKind K>
void launch_any(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox* box) {
  if (box)
    launch_box<L, S, K>(ex, s, p, *box);
  else
    launch<L, S, K>(ex, s, p);
}

// The two passes around a staged odd step (wall_stage.hpp), one thread per link.
template <class L, class S, bool In>
__global__ void __launch_bounds__(256) wall_stage_kernel(S* __restrict__ f, uint8_t* __restrict__ flags, GridLayout g,
                                                         const detail::StageLink* __restrict__ links,
                                                         S* __restrict__ save, int64_t count) {
  const int64_t t = int64_t(blockIdx.x) * 256 + threadIdx.x;
  if (t >= count) return;
  detail::stage_link<L, S, In>(f, flags, g, c_walls, links[t], save + t);
}

template <class L, class S>
void stage_pass(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, bool in) {
  LatticeState::WallStage& w = s.wall_stage();
  const auto st = static_cast<cudaStream_t>(ex.stream);
  if (in) TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  const auto* links = reinterpret_cast<const detail::StageLink*>(w.links.data());
  S* save = reinterpret_cast<S*>(w.save.data());
  const dim3 grid(unsigned((w.count + 255) / 256));
  if (in)
    wall_stage_kernel<L, S, true><<<grid, 256, 0, st>>>(static_cast<S*>(s.pops()), s.flags(), s.grid(), links, save, w.count);
  else
    wall_stage_kernel<L, S, false><<<grid, 256, 0, st>>>(static_cast<S*>(s.pops()), s.flags(), s.grid(), links, save, w.count);
  TESSERA_CUDA_CHECK_LAUNCH("lbm::wall_stage");
}

template <class L, class S>
void by_collision(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox* box) {
  switch (p.kind) {
    case CollisionKind::BGK: launch_any<L, S, CollisionKind::BGK>(ex, s, p, box); break;
    case CollisionKind::TRT: launch_any<L, S, CollisionKind::TRT>(ex, s, p, box); break;
    case CollisionKind::Regularized: launch_any<L, S, CollisionKind::Regularized>(ex, s, p, box); break;
  }
}

template <class L>
void by_precision(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox* box) {
  switch (s.precision()) {
    case Precision::FP32: by_collision<L, float>(ex, s, p, box); break;
    case Precision::FP16: by_collision<L, half_t>(ex, s, p, box); break;
    case Precision::FP64: TESSERA_THROW("the tuned LBM kernel covers fp32 and fp16 storage; use the reference path for fp64");
  }
}
}  // namespace
#endif

long tuned_prefetch_kib(Precision precision, bool pair) {
  const long fallback = precision != Precision::FP32 ? kPrefetchKiBFp16 : pair ? kPrefetchKiBPairFp32 : kPrefetchKiBFp32;
  return knob_integer("TESSERA_LBM_PREFETCH", fallback, 0, "KiB of population data ahead, >= 0 (0: off)");
}

const char* tuned_kernel_form(const LatticeState& s, CollisionKind kind) {
#if TESSERA_CUDA_COMPILER
  if (!tuned_available(s.lattice(), s.precision())) return "none";
  const bool quad = detail::tuned_quad_used(s, kind);  // even steps; the odd ones take the form named after it
  const bool staged = detail::tuned_quad_staged_used(s, kind);  // the even steps' staged form (force-free steps)
  if (quad && detail::tuned_quad_odd_used(s, kind)) return staged ? "quad-staged" : "quad";
  if (detail::tuned_pair_used(s, kind)) return staged ? "quad-staged+pair" : quad ? "quad+pair" : "pair";
  if (use_index32(s.grid(), s.q(), s.precision()))
    return staged ? "quad-staged+one-cell-32" : quad ? "quad+one-cell-32" : "one-cell-32";
  return staged ? "quad-staged+one-cell" : quad ? "quad+one-cell" : "one-cell";
#else
  (void)s;
  (void)kind;
  return "none";
#endif
}

bool tuned_available(LatticeKind lattice, Precision precision) {
#if TESSERA_CUDA_COMPILER
  return lattice != LatticeKind::D2Q9 && precision != Precision::FP64;
#else
  (void)lattice;
  (void)precision;
  return false;
#endif
}

namespace detail {
bool has_force(const LatticeState& s, const CollisionParams& p) {
  return p.force[0] != 0 || p.force[1] != 0 || p.force[2] != 0 || s.force_field_or_null() != nullptr;
}
bool tuned_force_terms(const LatticeState& s, const CollisionParams& p) {
  const char* ft = std::getenv("TESSERA_LBM_FORCE_TERMS");
  // The force-free form also leaves the Smagorinsky model out (collide's kLes), so LES steps keep the terms.
  return has_force(s, p) || p.smagorinsky != 0.0 || (ft && std::string(ft) == "1");
}

namespace {
void tuned_dispatch(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox* box) {
  TESSERA_REQUIRE(ex.on_device(), "the tuned LBM kernel runs on the GPU only: use --device gpu or the reference path");
#if TESSERA_CUDA_COMPILER
  switch (s.lattice()) {
    case LatticeKind::D3Q19: by_precision<D3Q19>(ex, s, p, box); break;
    case LatticeKind::D3Q27: by_precision<D3Q27>(ex, s, p, box); break;
    case LatticeKind::D2Q9: TESSERA_THROW("the tuned LBM kernel covers D3Q19 and D3Q27; D2Q9 uses the reference path");
  }
#else
  (void)s;
  (void)p;
  (void)box;
  TESSERA_THROW("this build has no CUDA back end: the tuned LBM kernel is unavailable");
#endif
}
}  // namespace

// Measured on an H200 (docs/performance.md, LBM item 34): the two staging passes cost 130 us per odd
// step at 256^3 (D3Q19 fp16), less than the wall path they remove only where that path is the one-cell
// kernel's divergent pass of D3Q19 with fp16 storage (+7.5 % / +2.7 % at 256^3 / 512^3); fp32 (the pair
// kernel walks its walls inside the warp) and D3Q27 (twice the links) lost 2-7 %.
bool wall_stage_wanted(LatticeKind lattice, Precision precision) {
  const int v = knob_choice("TESSERA_LBM_WALL_STAGE", {"on", "off", "auto"}, "auto", "auto, D3Q19 with fp16 storage");
  return v == 2 ? lattice == LatticeKind::D3Q19 && precision == Precision::FP16 : v == 0;
}

int64_t face_kernel_launches() { return g_face_launches.load(); }
void note_face_launch() { ++g_face_launches; }

// TESSERA_LBM_WALL_WARP (read at every step): "uniform" gives the hinted force-free one-cell kernel's odd
// step one pass per warp (WU above); unset, "" or "divergent" the default two; other values are refused.
bool wall_warp_uniform() {
  return knob_choice("TESSERA_LBM_WALL_WARP", {"uniform", "divergent"}, "divergent", "divergent") == 0;
}

// On by default (LBM item 35: the walled D3Q19 box, fp16 +9-13 %, fp32 +0.2-0.8 %, on an H100). Off with
// TESSERA_LBM_WALL_WARP=uniform: its one-pass warps have no face form, and a warp holding a face cell (not
// staged) would take its staged cells through the wall-checking loads as well, their wall links twice.
bool face_cells_flagged(const LatticeState& s) {
  const bool on = knob_choice("TESSERA_LBM_FACE_CELLS", {"on", "off"}, "on", "on, where there are face cells") == 0;
  return on && !wall_warp_uniform() && s.face_cells() > 0;
}
bool face_cells_streamed(const LatticeState& s) { return s.lattice() == LatticeKind::D3Q19 && face_cells_flagged(s); }

namespace {
// The staged links for s's current flags (built when they changed); false when there is nothing to stage.
// Without the face cells where the odd step's kernels take them in their face forms (face_cells_streamed).
bool wall_stage_ready(LatticeState& s) {
  LatticeState::WallStage& w = s.wall_stage();
  const bool skip = face_cells_streamed(s);
  if (w.version == s.flags_version() && w.skip_faces == skip) return w.count > 0;
  // At most one link per 4 cells (at most 3 bytes per cell with the kept slots: fp32 D3Q19 stays within
  // 80 bytes per cell) or 2^20 links (12 MiB), whichever is more: porous media beyond that keep the
  // wall-checking path. A box with walls on every face has about 30 / n (D3Q19) or 54 / n (D3Q27) links
  // per cell at n^3.
  const std::size_t cap = std::max<std::size_t>(std::size_t(s.grid().cells() / 4), std::size_t(1) << 20);
  const std::vector<StageLink> links = stage_links(s.lattice(), s.grid(), read_flags(s), cap, skip);
  w.count = int64_t(links.size());
  if (w.count > 0) {
    w.links = Buffer<uint64_t>(links.size(), s.memkind(), "lbm::wall_stage_links");
    copy_n(w.links.data(), w.links.kind(), reinterpret_cast<const uint64_t*>(links.data()), MemKind::Host, links.size());
    w.save = Buffer<unsigned char>(links.size() * std::size_t(precision_bytes(s.precision())), s.memkind(),
                                   "lbm::wall_stage_save");
  } else {
    w.links = Buffer<uint64_t>();
    w.save = Buffer<unsigned char>();
  }
  w.version = s.flags_version();
  w.skip_faces = skip;
  return w.count > 0;
}

void wall_stage_pass(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, bool in) {
#if TESSERA_CUDA_COMPILER
  const bool h = s.precision() == Precision::FP16;
  switch (s.lattice()) {
    case LatticeKind::D3Q19: h ? stage_pass<D3Q19, half_t>(ex, s, p, in) : stage_pass<D3Q19, float>(ex, s, p, in); break;
    case LatticeKind::D3Q27: h ? stage_pass<D3Q27, half_t>(ex, s, p, in) : stage_pass<D3Q27, float>(ex, s, p, in); break;
    case LatticeKind::D2Q9: break;
  }
#else
  (void)ex, (void)s, (void)p, (void)in;
#endif
}
}  // namespace

void tuned_step(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
  TESSERA_REQUIRE(ex.on_device(), "the tuned LBM kernel runs on the GPU only: use --device gpu or the reference path");
  // Odd steps: the links from walls staged in the walls' slots, so that the kernels stream the
  // wall-adjacent cells like the others (wall_stage.hpp; TESSERA_LBM_WALL_STAGE, wall_stage_wanted).
  const bool staged = s.parity == 1 && tuned_available(s.lattice(), s.precision()) &&
                      wall_stage_wanted(s.lattice(), s.precision()) && wall_stage_ready(s);
  if (staged) wall_stage_pass(ex, s, p, true);
  if (!tuned_pair_step(ex, s, p))  // two cells per thread where the layout allows (tuned_pair_cuda.cpp)
    tuned_dispatch(ex, s, p, nullptr);
  if (staged) wall_stage_pass(ex, s, p, false);
}
void tuned_pattern_step(const exec::Exec& ex, LatticeState& s, bool blocked, const CollisionParams* collide) {
  TESSERA_REQUIRE(ex.on_device(), "the LBM access-pattern measurement runs on the GPU only");
#if TESSERA_CUDA_COMPILER
  const GridLayout& g = s.grid();
  TESSERA_REQUIRE(g.gz == 1 && g.ny <= 65535 && g.nz <= 65535, "access-pattern measurement: 3-D, ny, nz <= 65535");
  const auto st = static_cast<cudaStream_t>(ex.stream);
  const Geom32 g32 = make_geom32(g);
  const dim3 grid(unsigned((g.nx + kBlockX - 1) / kBlockX), unsigned(g.ny), unsigned(g.nz));
  const bool odd = s.parity == 1;
  const CollisionParams none{};
  const StepArgs<float> a = make_step_args<float>(s, collide ? *collide : none);
  auto go = [&](auto lat, auto sto) {
    using L = decltype(lat);
    using S = decltype(sto);
    constexpr int MB = min_blocks<L>();
    S* f = static_cast<S*>(s.pops());
    const Prefetch pf = make_prefetch<L, S>(g, st);
    const bool i32 = use_index32(g, L::Q, Storage<S>::precision) && fits32(g, L::Q);  // the tuned kernel's choice
    auto launch = [&](auto idx, auto blk, auto col) {
      // With the collision one block fewer per SM than the tuned kernel: the blocked index arithmetic of
      // the odd step needs the registers (no spills then).
      constexpr bool C = decltype(col)::value;
      aa_pattern_only<L, S, decltype(idx), kBlockX, C ? MB - 1 : MB, decltype(blk)::value, C>
          <<<grid, kBlockX, 0, st>>>(f, s.flags(), g, g32, odd, a, pf);
    };
    auto by_layout = [&](auto col) {
      if (blocked) {
        if (i32) launch(uint32_t{}, std::true_type{}, col);
        else launch(uint64_t{}, std::true_type{}, col);
      } else {
        if (i32) launch(uint32_t{}, std::false_type{}, col);
        else launch(uint64_t{}, std::false_type{}, col);
      }
    };
    if (collide) by_layout(std::true_type{});
    else by_layout(std::false_type{});
  };
  const bool h = s.precision() == Precision::FP16;
  TESSERA_REQUIRE(s.precision() != Precision::FP64 && s.lattice() != LatticeKind::D2Q9,
                  "access-pattern measurement: D3Q19/D3Q27, fp32/fp16");
  if (s.lattice() == LatticeKind::D3Q19) h ? go(D3Q19{}, half_t{}) : go(D3Q19{}, float{});
  else h ? go(D3Q27{}, half_t{}) : go(D3Q27{}, float{});
  TESSERA_CUDA_CHECK_LAUNCH("lbm::aa_pattern_only");
#else
  (void)s;
  (void)blocked;
  (void)collide;
#endif
}

void tuned_step_box(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& box) {
  tuned_dispatch(ex, s, p, &box);
}
}  // namespace detail

}  // namespace tessera::lbm
