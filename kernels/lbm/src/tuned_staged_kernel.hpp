// Internal: the device code of the staged even step (the quad kernel's accesses through shared memory;
// tuned_pair_cuda.cpp launches it as a kernel, tuned_fused_cuda.cpp runs it for the fused steps' even
// items). Include after the CUDA headers. Not compiled against the host emulation (cp.async).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tuned_quad_kernel.hpp"
#include "tuned_slot.hpp"

namespace tessera::lbm::detail {

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
// The staged even step of the block's span of 4 BX cells from span0 (a multiple of 4, or of 8 with W) on
// plane k: the cells in [lo, end) (whole padded rows of the plane: quad_even_mask_in) are updated. Every
// thread of the block calls it (block barriers); s_raw: staged_smem bytes of shared memory, 16-byte aligned.
// SP (TESSERA_LBM_SPECULATE, tuned_ld_hint.hpp): the copies are issued before the flags have arrived, for
// every chunk (W) or quad inside the slot arrays; the cells that are not updated are neither collided nor
// stored, as without it.
template <class L, class S, int BX, bool H, bool W = false, bool SP = false>
__device__ inline void staged_even_span(S* __restrict__ f, const SlotPtrs<S>& sp, const uint8_t* __restrict__ flags,
                                        const StepArgs<float>& a, const QuadGeom& g, uint32_t k, uint32_t span0,
                                        uint32_t lo, uint32_t end, unsigned char* s_raw) {
  using V = typename QuadOps<S>::V;
  constexpr int Q = L::Q;
  constexpr uint32_t kSpan = 4u * BX;
  constexpr uint32_t kV = W ? uint32_t(16 / sizeof(S)) : 4u;  // cells per chunk
  constexpr uint32_t kChunks = kSpan / kV, kQuads = kV / 4u;
  S* sv = reinterpret_cast<S*>(s_raw);                           // [Q][kSpan]
  uint8_t* s_up = s_raw + sizeof(S) * size_t(Q) * kSpan;         // [BX]: each thread's quad mask
  const uint32_t tid = threadIdx.x;
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
  const uint32_t up4 = quad_even_mask_in(g, flags, c, k, lo, end);
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


}  // namespace tessera::lbm::detail
