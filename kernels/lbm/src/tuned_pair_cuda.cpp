// The tuned CUDA stream-collide with two x-adjacent cells per thread ("pair kernel").
//
// Why: the one-cell kernel (tuned_cuda.cpp) moves one 2-byte (fp16) or 4-byte (fp32) value per population
// and thread, so a warp's request is 64 or 128 bytes. Here a thread owns the cells at padded x = 2m and
// 2m + 1 of one row and moves both values of a population with one 4-byte (fp16: two halves) or 8-byte
// (fp32: float2) access: 128- or 256-byte warp requests and half the memory instructions and index
// arithmetic per cell. The padded row pitch px = nx + 2 must be even (nx even), so every pair starts at
// an even element and the pair accesses are aligned; a pair may hold a ghost cell (x = 0 or px - 1),
// which is never updated.
//
// Even AA step: every access is local (slot q and opp(q) at the cell itself): pair loads, pair stores
// (single 16/32-bit stores where only one cell of the pair is updated).
// Odd AA step (pure streaming): the reads at x - c_q with c_q,x = +-1 are misaligned by one cell for the
// pair. Each lane loads the aligned pair and takes the missing value from its neighbour lane
// (__shfl_up/down_sync); lane 0 (31) loads the one value that lies in the previous (next) warp's pair
// itself. The writes at x + c_q are shuffled the same way: the aligned target pair receives one value from
// this lane and one from the neighbour lane, and lanes 31/0 write the single value that falls into the
// next/previous warp's pair. A cell with a wall neighbour (no kNoWallNeighbour bit) reads its neighbours'
// flags once; its links to walls are left out of the shuffled streaming and bounced back by the cell
// itself (Ladd's moving-wall term as in aa_load/aa_store), so a warp never leaves the pair path. The
// collision is one call of the same collide() as the reference for each cell.
// The device code is in tuned_pair_kernel.hpp (also compiled on the host against an emulated warp by
// test_lbm_tuned).
//
// The default for D3Q19 with fp32 storage (BGK; TESSERA_LBM_PAIR, below): with the force-free collision and
// the L2 prefetch ahead it measured faster than the one-cell kernel in every such case on an H200, by 3-5 %
// at 512^3 (docs/performance.md, LBM item 14); D3Q27 and fp16 keep the one-cell kernel, which is faster in
// some of their cases. TRT and regularized collisions take the one-cell kernel. This file also launches the
// quad kernel (tuned_quad_kernel.hpp: four cells per thread), which takes the even steps of BGK with fp16
// storage and of D3Q19 with fp32 storage by default (TESSERA_LBM_QUAD, below; docs/performance.md, LBM item
// 16); the odd steps there stay with the pair kernel (D3Q19 fp32) or the one-cell kernel (fp16), unless
// TESSERA_LBM_QUAD_ODD=on gives them the quad kernel's odd form where px is a multiple of 4 (LBM item 17).
// Cell index arithmetic is 32-bit (unsigned) within each slot array, whose base is a kernel argument
// (SlotPtrs, tuned_slot.hpp): the pair kernel is used when the grid has fewer than 2^32 padded cells (Q x cells may
// exceed 2^32: the billion-cell grids), nx is even and the lattice is 3-D; otherwise tuned_cuda.cpp runs
// the one-cell kernel. tests/lbm/test_tuned.cpp checks it against the portable reference on random
// populations (both parities, walls, moving walls, force fields, odd and even widths).
#include "lattice_impl.hpp"
#include "lattice_ops.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/knob.hpp"
#include "tessera/lbm/lattice_state.hpp"

#include <cstdlib>
#include <string>
#include <type_traits>

#if TESSERA_CUDA_COMPILER
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "tessera/core/cuda_check.hpp"
#include "tuned_pair_kernel.hpp"
#include "tuned_quad_kernel.hpp"
#include "tuned_prefetch.hpp"
#include "tuned_slot.hpp"
#endif

namespace tessera::lbm::detail {

namespace {
// TESSERA_LBM_PAIR (read at every step): unset or "auto" runs the pair kernel for D3Q19 with fp32 storage,
// where it measured faster than the one-cell kernel in every case (periodic and walled box, 256^3 and
// 512^3; docs/performance.md, LBM item 14), and the one-cell kernel otherwise: D3Q27 fp32 (the pair kernel
// faster in the periodic box and the walled 256^3 box, 6 % slower in the walled 512^3 box) and fp16 (slower
// at 256^3, level at 512^3). "on" selects the pair kernel wherever it applies, "off" nowhere.
// Tuning builds only (-DTESSERA_LBM_LAUNCH_VARIANTS=ON): BXxMB selects the pair kernel with that block size
// and minimum blocks per SM, mN with the cache mode N of the pair accesses (tuned_pair_kernel.hpp).
std::string pair_variant() {
  return knob_value("TESSERA_LBM_PAIR");
}
// TESSERA_LBM_QUAD (read at every step): unset or "auto" runs the quad kernel (four cells per thread,
// tuned_quad_kernel.hpp) for the even steps of BGK steps wherever it applies, where it measured faster
// (docs/performance.md, LBM item 16: D3Q19 fp16 +9-11 %, D3Q27 fp16 +6-8 %, D3Q19 fp32 +1.5 %; D3Q27 fp32
// was level, and with the L2 128-byte hint +3 % over the hinted one-cell kernel, item 20, dac0264); odd
// steps keep their kernel. The force-free even steps with fp16 storage run its staged form
// (stream_collide_quad_staged; quad_staged below). "on": the quad kernel where auto runs it, in its register
// form everywhere (the default before the staged form); "off": nowhere; "staged" (measurement): the staged
// form wherever the quad kernel runs, "staged8" the same with 8 blocks per SM for D3Q19 fp16, "staged16"
// with fp16's chunks of 8 cells (16 bytes) where the slot stride allows. Tuning builds:
// BXxMB selects the register form's launch bounds.
std::string quad_variant() {
  return knob_value("TESSERA_LBM_QUAD");
}
// The choice an on / off / auto knob makes (variable var, value v): auto_choice where unset or "auto".
// Tuning builds also take their variant names (BXxMB, mN) as "on".
bool knob_selected(const char* var, const std::string& v, bool auto_choice) {
  if (v.empty() || v == "auto") return auto_choice;
  if (v == "off") return false;
#ifndef TESSERA_LBM_LAUNCH_VARIANTS
  TESSERA_REQUIRE(v == "on", std::string(var) + "='" + v + "': expected on, off or auto (unset: auto)");
#else
  (void)var;
#endif
  return true;
}
bool quad_selected() {
  const std::string v = quad_variant();
  return v == "staged" || v == "staged8" || v == "staged16" || knob_selected("TESSERA_LBM_QUAD", v, true);
}
// fp16 storage with a slot stride of a multiple of 8 cells: the staged form can move 16-byte chunks.
bool staged_wide_fits(const LatticeState& s) {
  return s.precision() == Precision::FP16 && s.grid().cells() % 8 == 0;
}
// Whether the force-free even steps take the staged form of the quad kernel (stream_collide_quad_staged),
// and (wide) its 16-byte chunks: by default (unset / auto) for fp16 storage, in 16-byte chunks where they
// fit, and in 8-byte ones for D3Q19 where they do not (D3Q27 fp16 then keeps the register form), where
// they measured faster (docs/performance.md, LBM item 21); "staged" / "staged8" everywhere in 8-byte
// chunks, "staged16" everywhere in 16-byte ones where they fit, "on" nowhere (the register form).
bool quad_staged(const LatticeState& s, bool* wide = nullptr) {
  const std::string v = quad_variant();
  const bool fits = staged_wide_fits(s);
  if (wide) *wide = fits && (v.empty() || v == "auto" || v == "staged16");
  if (v == "staged" || v == "staged8" || v == "staged16") return true;
  return (v.empty() || v == "auto") && s.precision() == Precision::FP16 && (fits || s.lattice() == LatticeKind::D3Q19);
}
bool pair_selected(LatticeKind lk, Precision pr) {
  return knob_selected("TESSERA_LBM_PAIR", pair_variant(), lk == LatticeKind::D3Q19 && pr == Precision::FP32);
}

}  // namespace

#if TESSERA_CUDA_COMPILER
namespace {

__constant__ WallTable c_pair_walls;

// The block's 2 BX cells of plane blockIdx.y start at pair_base + 2 BX blockIdx.x; the L2 prefetch ahead
// (tuned_prefetch.hpp) asks for the same span of every slot array `pf.ahead` cells further on.
template <class L, class S, CollisionKind K, int BX, int MB, int M, bool KF, bool SP = false, bool FC = false>
__global__ void __launch_bounds__(BX, MB) stream_collide_pair(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                              StepArgs<float> a, PairGeom g, Prefetch pf,
                                                              SlotPtrs<S> sp) {
  l2_prefetch_block<S, L::Q>(f, a.odd, int64_t(pair_base(g, blockIdx.y)) + int64_t(2 * BX) * blockIdx.x, 2 * BX, pf);
  pair_update<L, S, K, M, KF, SP, FC>(f, sp, flags, a, g, c_pair_walls, blockIdx.x * uint32_t(BX) + threadIdx.x,
                                      blockIdx.y, threadIdx.x & 31u);
}

// The quad kernel: the block's 4 BX cells of plane blockIdx.y start at quad_base + 4 BX blockIdx.x. H: the
// loads with the L2 128-byte hint (force-free BGK, by default with fp16 storage: tuned_ld_hint.hpp).
template <class L, class S, CollisionKind K, int BX, int MB, bool KF, bool H = false, bool SP = false>
__global__ void __launch_bounds__(BX, MB) stream_collide_quad(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                              StepArgs<float> a, QuadGeom g, Prefetch pf,
                                                              SlotPtrs<S> sp) {
  l2_prefetch_block<S, L::Q>(f, false, int64_t(quad_base(g, blockIdx.y)) + int64_t(4 * BX) * blockIdx.x, 4 * BX, pf);
  quad_update_even<L, S, K, KF, H, SP>(sp, flags, a, g, blockIdx.x * uint32_t(BX) + threadIdx.x, blockIdx.y);
}
template <class L, class S, CollisionKind K, int BX, int MB, bool KF>
__global__ void __launch_bounds__(BX, MB) stream_collide_quad_odd(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                                  StepArgs<float> a, QuadGeom g, Prefetch pf,
                                                                  SlotPtrs<S> sp) {
  l2_prefetch_block<S, L::Q>(f, true, int64_t(quad_base(g, blockIdx.y)) + int64_t(4 * BX) * blockIdx.x, 4 * BX, pf);
  quad_update_odd<L, S, K, KF>(f, sp, flags, a, g, c_pair_walls, blockIdx.x * uint32_t(BX) + threadIdx.x, blockIdx.y,
                               threadIdx.x & 31u);
}

// The staged even step (force-free BGK; the default for fp16 storage, quad_staged; TESSERA_LBM_QUAD=staged
// elsewhere): the quad kernel's accesses without its registers. Each thread copies its quad of every
// population into shared memory with cp.async (16 bytes per population in fp32, 8 in fp16, or with W the
// block's span in 16-byte chunks, below; no register held while in flight, with the
// L2 128-byte hint where H), the block's threads then collide its 4 BX cells one at a time (cell m of the
// span by thread m mod BX) in place, and each thread stores its quads back from shared memory as the
// quad kernel does. The values are the quad kernel's bit for bit (the same collide() per cell on the same
// inputs). Why: the quad kernel holds Q quads in registers (D3Q27 fp32: 108 of its 168, with 76 bytes of
// spills, 3 blocks of 128 per SM); staged, the registers only carry one cell (staged_launch: 4 blocks
// for D3Q27 fp32, as many as its 55 KB of shared memory allow, 5 for D3Q19 fp32), so more bytes are in flight.
// Measured (docs/performance.md, LBM item 21): fp16 +1-3 % (with W, below), fp32 1-3 % slower.
template <class S>
__device__ inline float staged_get(const S* p) {
  if constexpr (std::is_same_v<S, float>) return *p;
  else return half_bits_to_float(p->bits);
}
template <class S>
__device__ inline void staged_set(S* p, float x) {
  if constexpr (std::is_same_v<S, float>) *p = x;
  else p->bits = uint16_t(float_to_half_bits(x));  // rounds as QuadOps<half_t>::set
}
// 16 bytes from global to shared memory (fp32's quads, W's 8-cell fp16 chunks).
template <bool H, class S>
__device__ inline void staged_copy16(S* dst, const S* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (H) asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
  else asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
// One quad: 16 bytes in fp32, 8 in fp16.
template <class S, bool H>
__device__ inline void staged_copy(S* dst, const S* src) {
  if constexpr (sizeof(S) == 4) {
    staged_copy16<H>(dst, src);
  } else {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    if constexpr (H) asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
  }
}
template <class L, class S>
constexpr size_t staged_smem(int bx) {
  return size_t(L::Q) * 4 * size_t(bx) * sizeof(S) + size_t(bx);  // [Q][4 BX] values, [BX] masks
}
// W (fp16 where the slot stride is a multiple of 8 cells: the default there, and `staged16`; quad_staged):
// the block's span starts
// at a multiple of 8 cells (staged_base8) and is copied in and stored back in 16-byte chunks of 8 cells,
// consecutive threads taking consecutive chunks of a population (512-byte warp requests instead of 256);
// a chunk none of whose cells is updated is skipped, one partly updated is stored cell by cell.
__device__ inline uint32_t staged_base8(const QuadGeom& g, uint32_t k) { return (g.pxy * (k + 1u) + g.px) & ~7u; }
// SP (TESSERA_LBM_SPECULATE, tuned_ld_hint.hpp): the copies are issued before the flags have arrived, for
// every chunk (W) or quad inside the slot arrays; the cells that are not updated are neither collided nor
// stored, as without it.
template <class L, class S, int BX, int MB, bool H, bool W = false, bool SP = false>
__global__ void __launch_bounds__(BX, MB) stream_collide_quad_staged(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                                     StepArgs<float> a, QuadGeom g, Prefetch pf,
                                                                     SlotPtrs<S> sp) {
  using V = typename QuadOps<S>::V;
  constexpr int Q = L::Q;
  constexpr uint32_t kSpan = 4u * BX;
  constexpr uint32_t kV = W ? uint32_t(16 / sizeof(S)) : 4u;  // cells per chunk
  constexpr uint32_t kChunks = kSpan / kV, kQuads = kV / 4u;
  extern __shared__ __align__(16) unsigned char s_raw[];
  S* sv = reinterpret_cast<S*>(s_raw);                           // [Q][kSpan]
  uint8_t* s_up = s_raw + sizeof(S) * size_t(Q) * kSpan;         // [BX]: each thread's quad mask
  const uint32_t k = blockIdx.y, tid = threadIdx.x;
  const uint32_t span0 = (W ? staged_base8(g, k) : quad_base(g, k)) + kSpan * blockIdx.x;
  l2_prefetch_block<S, Q>(f, false, int64_t(span0), kSpan, pf);
  const uint32_t c = span0 + 4u * tid;
  const uint32_t n = g.n;
  if constexpr (SP) {
    if constexpr (W) {
      for (uint32_t i = tid; i < uint32_t(Q) * kChunks; i += BX) {
        const uint32_t q = i / kChunks, ch = i - q * kChunks;
        if (span0 + (ch + 1u) * kV <= n) staged_copy16<H>(sv + q * kSpan + ch * kV, slot(f, q, n) + (span0 + ch * kV));
      }
    } else if (c + 4u <= n) {
      TESSERA_LBM_UNROLL
      for (int q = 0; q < Q; ++q) staged_copy<S, H>(sv + uint32_t(q) * kSpan + 4u * tid, sp.p[q] + c);
    }
  }
  const uint32_t up4 = quad_even_mask(g, flags, c, k);
  s_up[tid] = uint8_t(up4);
  // The mask of chunk ch (bit j: its cell j is updated).
  const auto chunk_mask = [&](uint32_t ch) {
    uint32_t m = 0;
    TESSERA_LBM_UNROLL
    for (uint32_t j = 0; j < kQuads; ++j) m |= uint32_t(s_up[ch * kQuads + j]) << (4u * j);
    return m;
  };
  if constexpr (!SP) {  // (the SP form issued its copies above, before the flags)
    if constexpr (W) {
      __syncthreads();  // the masks
      for (uint32_t i = tid; i < uint32_t(Q) * kChunks; i += BX) {
        const uint32_t q = i / kChunks, ch = i - q * kChunks;
        if (chunk_mask(ch) != 0u) staged_copy16<H>(sv + q * kSpan + ch * kV, slot(f, q, n) + (span0 + ch * kV));  // q known at run time
      }
    } else if (up4 != 0u) {
      TESSERA_LBM_UNROLL
      for (int q = 0; q < Q; ++q) staged_copy<S, H>(sv + uint32_t(q) * kSpan + 4u * tid, sp.p[q] + c);
    }
  }
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
#pragma unroll 1
  for (uint32_t m = tid; m < kSpan; m += BX) {
    if (!((s_up[m >> 2] >> (m & 3u)) & 1u)) continue;
    float x[Q];
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) x[q] = staged_get(sv + uint32_t(q) * kSpan + m);
    collide<L, CollisionKind::BGK, float, false>(x, a.relax, 0.f, 0.f, 0.f);
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) staged_set(sv + uint32_t(q) * kSpan + m, x[q]);
  }
  __syncthreads();
  if constexpr (W) {
    constexpr uint32_t kFull = (1u << kV) - 1u;
    for (uint32_t i = tid; i < uint32_t(Q) * kChunks; i += BX) {
      const uint32_t q = i / kChunks, ch = i - q * kChunks;
      const uint32_t m = chunk_mask(ch);
      if (m == 0u) continue;
      const S* src = sv + q * kSpan + ch * kV;
      S* dst = slot(f, opposite(int(q)), n) + (span0 + ch * kV);
      if (m == kFull) {
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
      } else {
        TESSERA_LBM_UNROLL
        for (uint32_t j = 0; j < kV; ++j)
          if ((m >> j) & 1u) dst[j] = src[j];
      }
    }
  } else {
    if (up4 == 0u) return;
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q)
      quad_put<S>(sp.p[opposite(q)], c, *reinterpret_cast<const V*>(sv + uint32_t(q) * kSpan + 4u * tid), up4);
  }
}

// Launch configuration: block size BX x minimum resident blocks per SM MB (__launch_bounds__). Measured
// on an H200 at 256^3 (BGK, periodic; MLUPs/s; docs/performance.md): first version, D3Q19 fp16 128 x 5 (96
// registers) 28,187, 128 x 4 25,266; D3Q19 fp32 128 x 5 21,112, 128 x 4 (118 registers) 19,744. Force-free
// with the prefetch (LBM item 14, 256^3 / 512^3): D3Q19 fp32 128 x 5 (96 registers, no spills) 22,627 /
// 23,415, 128 x 4 21,429 / 22,342, 128 x 6 (80 registers, spills) 21,538 / 22,074; D3Q27 stays at 128 x 4
// (128 x 6 spills heavily: 10,081 / 10,251 against 15,537 / 15,948).
struct PairLaunch {
  int bx, mb;
};
template <class L, class S>
constexpr PairLaunch pair_launch() {
  return L::Q <= 19 ? PairLaunch{128, 5} : PairLaunch{128, 4};
}

// The quad kernel's launch bounds: the least that ptxas fits without spilling in the force-free form
// (D3Q19 fp16 128 registers, fp32 168; D3Q27 168, where fp32 still spills 76 bytes and is not a default
// case). Measured: docs/performance.md, LBM item 16.
template <class L, class S>
constexpr PairLaunch quad_launch() {
  return L::Q <= 19 && !std::is_same_v<S, float> ? PairLaunch{128, 4} : PairLaunch{128, 3};
}

// The odd-step form's (TESSERA_LBM_QUAD_ODD=on; more state: the wall masks, the shuffled values): D3Q19 at
// 128 x 3 (168 registers, no spills in the force-free forms; fp16 spills 32 bytes at 128 x 4), D3Q27 at
// 128 x 2 (224-250 registers; it spills at 168).
template <class L, class S>
constexpr PairLaunch quad_odd_launch() {
  return L::Q <= 19 ? PairLaunch{128, 3} : PairLaunch{128, 2};
}

// The staged even step's launch bounds (128 threads; blocks per SM as its shared memory allows: D3Q27
// fp32 55 KB per block, D3Q19 fp32 39 KB, fp16 half that), within the registers of one cell's collision.
template <class L, class S>
constexpr PairLaunch staged_launch() {
  if constexpr (std::is_same_v<S, float>) return L::Q <= 19 ? PairLaunch{128, 5} : PairLaunch{128, 4};
  else return L::Q <= 19 ? PairLaunch{128, 6} : PairLaunch{128, 5};
}

// The staged even step (force-free BGK only), with the hint or without; MB > 0 overrides staged_launch's
// blocks per SM (`staged8`).
template <class L, class S, int BX, int MB, bool H, bool W = false, bool SP = false>
void go_quad_staged_as(cudaStream_t st, LatticeState& s, const StepArgs<float>& a) {
  const GridLayout& g = s.grid();
  const QuadGeom qg = make_quad_geom(g);
  // W: the span from staged_base8, up to 7 cells before row 1 (make_quad_geom counts up to 3).
  const uint64_t quads = W ? (uint64_t(qg.px) * uint64_t(g.ny) + 7u + 3u) / 4u : uint64_t(qg.quads);
  const dim3 grid(unsigned((quads + BX - 1) / BX), unsigned(g.nz));
  const Prefetch pf = make_prefetch<L, S>(g, st, true);
  const size_t bytes = staged_smem<L, S>(BX);
  static const bool raised = [&] {  // once per instantiation: above 48 KB a kernel must opt in
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(stream_collide_quad_staged<L, S, BX, MB, H, W, SP>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    return true;
  }();
  (void)raised;
  S* f = static_cast<S*>(s.pops());
  stream_collide_quad_staged<L, S, BX, MB, H, W, SP>
      <<<grid, BX, bytes, st>>>(f, s.flags(), a, qg, pf, make_slot_ptrs(f, L::Q, g.cells()));
}
template <class L, class S, int MB = 0>
void go_quad_staged(cudaStream_t st, LatticeState& s, const StepArgs<float>& a, bool wide = false) {
  constexpr PairLaunch D = staged_launch<L, S>();
  constexpr int mb = MB > 0 ? MB : D.mb;
  const bool hint = l2hint_wanted(std::is_same_v<S, half_t> || L::Q == 27);
  if constexpr (std::is_same_v<S, half_t> && MB == 0)
    if (wide) {
      if (hint && speculate_wanted()) go_quad_staged_as<L, S, D.bx, mb, true, true, true>(st, s, a);
      else if (hint) go_quad_staged_as<L, S, D.bx, mb, true, true>(st, s, a);
      else go_quad_staged_as<L, S, D.bx, mb, false, true>(st, s, a);
      return;
    }
  if (hint && speculate_wanted()) go_quad_staged_as<L, S, D.bx, mb, true, false, true>(st, s, a);
  else if (hint) go_quad_staged_as<L, S, D.bx, mb, true>(st, s, a);
  else go_quad_staged_as<L, S, D.bx, mb, false>(st, s, a);
}

// MBO: the odd step's minimum blocks per SM.
template <class L, class S, CollisionKind K, int BX, int MB, int MBO = MB>
void go_quad(cudaStream_t st, LatticeState& s, const StepArgs<float>& a, bool force) {
  const GridLayout& g = s.grid();
  const QuadGeom qg = make_quad_geom(g);
  const dim3 grid(unsigned((uint64_t(qg.quads) + BX - 1) / BX), unsigned(g.nz));
  const Prefetch pf = make_prefetch<L, S>(g, st, true);
  S* f = static_cast<S*>(s.pops());
  const SlotPtrs<S> sp = make_slot_ptrs(f, L::Q, g.cells());
  if (a.odd) {
    if (force) stream_collide_quad_odd<L, S, K, BX, MBO, true><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
    else stream_collide_quad_odd<L, S, K, BX, MBO, false><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
  } else {
    if constexpr (K == CollisionKind::BGK)
      if (!force && l2hint_wanted(std::is_same_v<S, half_t> || L::Q == 27)) {
        if (speculate_wanted())
          stream_collide_quad<L, S, K, BX, MB, false, true, true><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
        else
          stream_collide_quad<L, S, K, BX, MB, false, true><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
        return;
      }
    if (force) stream_collide_quad<L, S, K, BX, MB, true><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
    else if (K == CollisionKind::BGK && speculate_wanted())
      stream_collide_quad<L, S, K, BX, MB, false, false, true><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
    else stream_collide_quad<L, S, K, BX, MB, false><<<grid, BX, 0, st>>>(f, s.flags(), a, qg, pf, sp);
  }
}

template <class L, class S, CollisionKind K>
void launch_quad(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
  const StepArgs<float> a = make_step_args<float>(s, p);
  const auto st = static_cast<cudaStream_t>(ex.stream);
  if (a.odd)
    TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pair_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  constexpr PairLaunch D = quad_launch<L, S>(), DO = quad_odd_launch<L, S>();
  static_assert(D.bx == DO.bx);
  const bool force = tuned_force_terms(s, p);
  if constexpr (K == CollisionKind::BGK)
    if (bool wide = false; !a.odd && !force && quad_staged(s, &wide)) {
      bool done = false;
      if constexpr (L::Q == 19 && std::is_same_v<S, half_t>)
        if (quad_variant() == "staged8") {
          go_quad_staged<L, S, 8>(st, s, a);
          done = true;
        }
      if (!done) go_quad_staged<L, S>(st, s, a, wide);
      TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_quad_staged");
      return;
    }
#ifdef TESSERA_LBM_LAUNCH_VARIANTS
  const std::string v = quad_variant();
  if (v == "128x3") go_quad<L, S, K, 128, 3>(st, s, a, force);
  else if (v == "128x4") go_quad<L, S, K, 128, 4>(st, s, a, force);
  else if (v == "128x5") go_quad<L, S, K, 128, 5>(st, s, a, force);
  else if (v == "128x6") go_quad<L, S, K, 128, 6>(st, s, a, force);
  else go_quad<L, S, K, D.bx, D.mb, DO.mb>(st, s, a, force);
#else
  go_quad<L, S, K, D.bx, D.mb, DO.mb>(st, s, a, force);
#endif
  TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_quad");
}

// KF: the step has a force (the one-cell kernel's has_force, or TESSERA_LBM_FORCE_TERMS=1).
template <class L, class S, CollisionKind K, int BX, int MB, int M>
void go(cudaStream_t st, LatticeState& s, const StepArgs<float>& a, const PairGeom& pg, bool force) {
  const GridLayout& g = s.grid();
  const dim3 grid(unsigned((uint64_t(pg.pairs) + BX - 1) / BX), unsigned(g.nz));
  const Prefetch pf = make_prefetch<L, S>(g, st, true);
  S* f = static_cast<S*>(s.pops());
  const SlotPtrs<S> sp = make_slot_ptrs(f, L::Q, g.cells());
  if (force)
    stream_collide_pair<L, S, K, BX, MB, M, true><<<grid, BX, 0, st>>>(f, s.flags(), a, pg, pf, sp);
  else if (K == CollisionKind::BGK && speculate_odd_wanted())
    stream_collide_pair<L, S, K, BX, MB, M, false, true><<<grid, BX, 0, st>>>(f, s.flags(), a, pg, pf, sp);
  else if (L::Q == 19 && a.odd && face_cells_streamed(s)) {  // the face cells' walls from their own flags
    if constexpr (L::Q == 19) {
      stream_collide_pair<L, S, K, BX, MB, M, false, false, true><<<grid, BX, 0, st>>>(f, s.flags(), a, pg, pf, sp);
      note_face_launch();
    }
  } else
    stream_collide_pair<L, S, K, BX, MB, M, false><<<grid, BX, 0, st>>>(f, s.flags(), a, pg, pf, sp);
}

// TESSERA_LBM_PAIR_ALIGN=N (cells, a power of two >= 2): the warps' base alignment (PairGeom); tuning.
uint32_t pair_align() {
  static const uint32_t a = [] {
    const char* e = std::getenv("TESSERA_LBM_PAIR_ALIGN");
    const long v = e ? std::atol(e) : 2;
    return (v >= 2 && v <= 256 && (v & (v - 1)) == 0) ? uint32_t(v) : 2u;
  }();
  return a;
}

template <class L, class S, CollisionKind K>
void launch(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const PairGeom& pg) {
  const StepArgs<float> a = make_step_args<float>(s, p);
  const auto st = static_cast<cudaStream_t>(ex.stream);
  TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pair_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  constexpr PairLaunch D = pair_launch<L, S>();
  const bool force = tuned_force_terms(s, p);
#ifdef TESSERA_LBM_LAUNCH_VARIANTS
  if constexpr (K == CollisionKind::BGK) {
    const std::string v = pair_variant();
    if (v == "128x4") go<L, S, K, 128, 4, 0>(st, s, a, pg, force);
    else if (v == "128x5") go<L, S, K, 128, 5, 0>(st, s, a, pg, force);
    else if (v == "128x6") go<L, S, K, 128, 6, 0>(st, s, a, pg, force);
    else if (v == "m1") go<L, S, K, D.bx, D.mb, 1>(st, s, a, pg, force);
    else if (v == "m2") go<L, S, K, D.bx, D.mb, 2>(st, s, a, pg, force);
    else if (v == "m4") go<L, S, K, D.bx, D.mb, 4>(st, s, a, pg, force);
    else if (v == "m8") go<L, S, K, D.bx, D.mb, 8>(st, s, a, pg, force);
    else go<L, S, K, D.bx, D.mb, 0>(st, s, a, pg, force);
  } else {
    go<L, S, K, D.bx, D.mb, 0>(st, s, a, pg, force);
  }
#else
  go<L, S, K, D.bx, D.mb, 0>(st, s, a, pg, force);
#endif
  TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_pair");
}

template <class L>
bool by_precision(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const PairGeom& pg) {
  if (tuned_quad_used(s, p.kind) && (s.parity == 0 || tuned_quad_odd_used(s, p.kind))) {  // tuned_quad_kernel.hpp
    if (s.precision() == Precision::FP32) launch_quad<L, float, CollisionKind::BGK>(ex, s, p);
    else launch_quad<L, half_t, CollisionKind::BGK>(ex, s, p);
    return true;
  }
  switch (s.precision()) {
    case Precision::FP32: launch<L, float, CollisionKind::BGK>(ex, s, p, pg); return true;
    case Precision::FP16: launch<L, half_t, CollisionKind::BGK>(ex, s, p, pg); return true;
    case Precision::FP64: return false;
  }
  return false;
}
}  // namespace
#endif

bool tuned_pair_applicable(const LatticeState& s) {
  const GridLayout& g = s.grid();
  return s.lattice() != LatticeKind::D2Q9 && s.precision() != Precision::FP64 && g.gz == 1 && g.nx % 2 == 0 &&
         tuned_index32_fits(g) && uint64_t(g.px() / 2) * uint64_t(g.ny) < (uint64_t(1) << 31) &&
         g.nz <= 65535;
}

bool tuned_pair_used(const LatticeState& s, CollisionKind kind) {
  return kind == CollisionKind::BGK && tuned_pair_applicable(s) && pair_selected(s.lattice(), s.precision());
}

bool tuned_quad_applicable(const LatticeState& s) {
  return tuned_pair_applicable(s) && s.grid().cells() % 4 == 0;
}

bool tuned_quad_used(const LatticeState& s, CollisionKind kind) {
  return kind == CollisionKind::BGK && tuned_quad_applicable(s) && quad_selected();
}

bool tuned_quad_staged_used(const LatticeState& s, CollisionKind kind) {
  return tuned_quad_used(s, kind) && quad_staged(s);
}

bool tuned_quad_odd_used(const LatticeState& s, CollisionKind kind) {
  return tuned_quad_used(s, kind) && s.grid().px() % 4 == 0 &&
         knob_selected("TESSERA_LBM_QUAD_ODD", knob_value("TESSERA_LBM_QUAD_ODD"), false);
}

bool tuned_pair_step(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
#if TESSERA_CUDA_COMPILER
  // Neither kernel for this step (an odd step of a quad case without the pair kernel): the one-cell kernel.
  if (!tuned_pair_used(s, p.kind) &&
      !(tuned_quad_used(s, p.kind) && (s.parity == 0 || tuned_quad_odd_used(s, p.kind))))
    return false;
  const PairGeom pg = make_pair_geom(s.grid(), pair_align());
  switch (s.lattice()) {
    case LatticeKind::D3Q19: return by_precision<D3Q19>(ex, s, p, pg);
    case LatticeKind::D3Q27: return by_precision<D3Q27>(ex, s, p, pg);
    case LatticeKind::D2Q9: return false;
  }
  return false;
#else
  (void)ex;
  (void)s;
  (void)p;
  return false;
#endif
}

}  // namespace tessera::lbm::detail
