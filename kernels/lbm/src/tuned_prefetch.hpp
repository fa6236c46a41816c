// Internal: the L2 prefetch ahead of the tuned stream-collide kernels (one-cell kernel, tuned_cuda.cpp;
// pair kernel, tuned_pair_cuda.cpp). CUDA translation units only; each one that includes this header gets
// its own constant table (anonymous namespace), filled by make_prefetch before its launches.
//
// Threads 0..Q-1 of a block each ask the L2 (Hopper bulk prefetch: one instruction, no register held
// until the data arrives) for the span of one population array that a block `ahead` cells further on
// will read on this step: slot q of the cell on even steps, slot opp(q) of the upstream neighbour on odd
// steps. When that block runs, its loads hit in L2, so the bytes in flight from DRAM no longer depend on
// how many warps are resident. The distance is a byte count of population data ahead (KiB, all Q arrays
// together: tuned_prefetch_kib); docs/performance.md (LBM item 13) has the measurements.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/core/cuda_check.hpp"
#include "tessera/lbm/lattice_state.hpp"

namespace tessera::lbm::detail {
namespace {

// c_pf[odd][q]: element offset of the read of population q relative to the cell (set per launch).
__constant__ int64_t c_pf[2][27];

struct Prefetch {
  int64_t ahead = 0;  // cells ahead (the KiB distance over Q slot bytes per cell); 0: off
  int64_t total = 0;  // elements of the population array (Q cells)
};

// The block whose first cell is cell0 and which reads `span` consecutive cells of each slot array asks
// for the same span `ahead` cells further on (nothing where that falls outside the array).
template <class S, int Q>
__device__ __forceinline__ void l2_prefetch_block(const S* f, bool odd, int64_t cell0, int64_t span,
                                                  const Prefetch& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const int q = int(threadIdx.x);
  if (p.ahead == 0 || q >= Q) return;
  const int64_t e0 = cell0 + p.ahead + c_pf[odd ? 1 : 0][q], e1 = e0 + span;
  if (e0 < 0 || e1 > p.total) return;
  const uint64_t a0 = reinterpret_cast<uint64_t>(f + e0) & ~uint64_t(15);
  const uint64_t a1 = (reinterpret_cast<uint64_t>(f + e1) + 15) & ~uint64_t(15);
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(a0), "r"(unsigned(a1 - a0)));
#else
  (void)f;
  (void)odd;
  (void)cell0;
  (void)span;
  (void)p;
#endif
}

// The prefetch of one launch over grid g in storage S by the pair kernel (pair) or the one-cell kernel
// (distance: tuned_prefetch_kib, read per launch; 0 turns it off), with the offset table copied to this
// translation unit's c_pf on stream st.
template <class L, class S>
Prefetch make_prefetch(const GridLayout& g, cudaStream_t st, bool pair = false) {
  Prefetch p;
  const long kib = tuned_prefetch_kib(std::is_same_v<S, float> ? Precision::FP32 : Precision::FP16, pair);
  if (kib == 0) return p;
  const int64_t n = g.cells(), px = g.px(), pxy = g.px() * g.py();
  int64_t t[2][27] = {};
  for (int q = 0; q < L::Q; ++q) {
    const int64_t off = L::c(q, 0) + px * L::c(q, 1) + pxy * L::c(q, 2);
    t[0][q] = int64_t(q) * n;
    t[1][q] = q == 0 ? 0 : int64_t(opposite(q)) * n - off;
  }
  TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pf, t, sizeof t, 0, cudaMemcpyHostToDevice, st));
  p.ahead = std::max<int64_t>(1, int64_t(kib) * 1024 / int64_t(L::Q * sizeof(S)));
  p.total = int64_t(L::Q) * n;
  return p;
}

}  // namespace
}  // namespace tessera::lbm::detail
