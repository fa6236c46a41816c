// The tuned CUDA COSMO vertical advection: the column solve with its scratch kept on chip.
//
// The portable form writes c' to a scratch array and d' to out, then reads both back in the backward
// sweep: 2 x 8 B per point of extra device-memory traffic beyond the protocol's phi, w read + out
// written, and its per-level loads come one level at a time, so few bytes are in flight (24-30 % of the
// copy bandwidth, bench/results/20261130T0057Z-*). The on-chip kernels:
//  - vadv_column_twist (up to kRegLevels = 80 levels, the default, 8 levels ahead, read-only loads with the
//    L2 128-byte hint): the twisted Thomas solve, two threads
//    per column, one eliminating from the bottom and one from the top (below); bit-identical to
//    vadv_columns_portable_twisted on the device, equal to the Thomas sweep to rounding.
// The one-thread-per-column forms, one warp of 32 adjacent columns per block, evaluate VadvStep's Thomas
// arithmetic so that their results are bit-identical to vadv_columns_portable on the device:
//  - vadv_column_ring (up to 80 levels; `ring`, `ringf`): phi and w through a 14-level cp.async ring in
//    shared memory, d'_k in registers (loops fully unrolled), c'_k in shared memory (20 KB + 7 KB per warp
//    at 80 levels): eight warps per multiprocessor (217 registers).
//  - vadv_column_reg (up to 80 levels; `reg`, `regf`): the same with phi and w streamed through registers
//    8 levels ahead of the sweep (234 registers); `regf` runs "flat" (column_range: warps over the padded
//    rows, so each level's 256 B are sector-aligned).
//  - vadv_column_smem (deeper columns while 2 nz x 32 x 8 B fit in a block's shared memory, ~450
//    levels; the default there): the whole column of phi and w staged by cp.async and overwritten in
//    place by d', c'; five warps per multiprocessor at 80 levels.
// Beyond that the caller runs the portable path. Measured on an H200 (docs/performance.md, "COSMO
// stencils"), fraction of the copy bandwidth at 256^2 / 512^2 / 1024^2 x 80: twisted 0.79 / 0.87 / 0.91 with the L2 hint
// (e24ecf6; 0.77-0.79 / 0.84-0.86 / 0.89-0.90 without it, 5c7e6ba, 8 levels ahead; 0.77 / 0.83 / 0.88 with 6, c210e55; 0.75 / 0.76 / 0.78 with streaming loads, 4ee82f7); before it ring 0.58 / 0.63 / 0.67, flat reg 0.63 / 0.63 / 0.64 (c054c5b; 0.67 / 0.70 / 0.72
// without the forced shared-memory carveout, ebebfae), smem 0.41 / 0.53 / 0.59 (bad3a93). All are
// latency-bound: the scratch (1280 B per column at 80 levels) caps the columns per multiprocessor, and the
// resident warps wait on their loads (ncu); the 85 % goal is met at 1024^2 and 512^2 and not at 256^2 (two
// waves of blocks per launch there). Tried and dropped: d' through
// out in L2 (0.32-0.44: its round trip reached DRAM), a producer/consumer pair of warps per 32 columns
// passing the rows (a, b, c, d) through a shared-memory ring with named barriers (0.42-0.46: four
// blocks per multiprocessor, the producer's dependent instructions became the chain), and a persistent
// form overlapping each column's backward sweep with the next column's forward sweep in mirrored
// register slots (0.44 / 0.55 / 0.59: 254 registers, and at 256^2 only ~2 columns per thread), and whole
// 16-column tiles staged by TMA into per-warp shared-memory stages of a persistent grid (0.34-0.57 /
// 0.36-0.67 / 0.37-0.70, e64884e: the stages leave room for 2-5 solving warps per multiprocessor).
#include "cosmo_cuda.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/knob.hpp"
#include "ld_hint.hpp"
#include "pdl_launch.hpp"

namespace tessera::weather::detail {
namespace {

constexpr int kCols = 32;   // columns per block (one warp, adjacent in x: coalesced 256 B rows)
constexpr int kChunk = 16;  // levels per cp.async commit group

__device__ __forceinline__ void copy_async8(double* dst, const double* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Wait until at most n groups are pending (n is clipped to 7, which only waits longer).
__device__ __forceinline__ void wait_pending(int n) {
  switch (n < 7 ? n : 7) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;\n" ::: "memory"); break;
  }
}

__global__ void __launch_bounds__(kCols) vadv_column_smem(Grid G, VadvStep S, const double* __restrict__ in,
                                                          const double* __restrict__ w, double* __restrict__ out) {
  extern __shared__ double s_mem[];
  const int lane = threadIdx.x;
  const int nz = int(G.nz);
  double* s_phi = s_mem;              // [nz][kCols]: phi(k), then d'_k
  double* s_w = s_mem + nz * kCols;   // [nz][kCols]: w(k+1/2), then c'_k
  const int64_t i = int64_t(blockIdx.x) * kCols + lane;
  if (i >= G.nx) return;
  const int64_t plane = G.plane();
  for (int64_t j = blockIdx.y; j < G.ny; j += gridDim.y) {
    const int64_t n0 = G.idx(i, j);
    // Issue the whole column: group q holds levels [q kChunk, (q+1) kChunk).
    const int groups = (nz + kChunk - 1) / kChunk;
    for (int q = 0; q < groups; ++q) {
      const int k1 = (q + 1) * kChunk < nz ? (q + 1) * kChunk : nz;
      for (int k = q * kChunk; k < k1; ++k) {
        copy_async8(s_phi + k * kCols + lane, in + n0 + plane * k);
        if (k + 1 < nz) copy_async8(s_w + k * kCols + lane, w + n0 + plane * k);  // w(nz-1/2) unused: lid
      }
      commit_group();
    }
    // Forward sweep (VadvStep::forward), one group at a time as it lands.
    VadvStep::Carry cs;
    wait_pending(groups - 1);
    double phi = s_phi[lane];
    for (int q = 0; q < groups; ++q) {
      // Level k reads phi(k+1) and w(k): the next group must have landed for the last level of this one.
      wait_pending(groups - 2 - q < 0 ? 0 : groups - 2 - q);
      const int k1 = (q + 1) * kChunk < nz ? (q + 1) * kChunk : nz;
      for (int k = q * kChunk; k < k1; ++k) {
        const double wp = k + 1 < nz ? s_w[k * kCols + lane] : 0.0;
        const double phip = k + 1 < nz ? s_phi[(k + 1) * kCols + lane] : 0.0;
        S.forward(cs, wp, phi, phip);
        s_w[k * kCols + lane] = cs.cp;
        s_phi[k * kCols + lane] = cs.dp;
        phi = phip;
      }
    }
    // Backward sweep: x_k = d'_k - c'_k x_{k+1}, straight to out.
    double x = s_phi[(nz - 1) * kCols + lane];
    out[n0 + plane * (nz - 1)] = x;
    for (int k = nz - 2; k >= 0; --k) {
      x = VadvStep::back(s_phi[k * kCols + lane], s_w[k * kCols + lane], x);
      out[n0 + plane * k] = x;
    }
  }
}


// The columns of a thread. By x chunks (kFlat = false): block (x chunk of 32 columns, row blockIdx.y), rows
// blockIdx.y + m gridDim.y. Flat: the rows 0 .. ny-1 of the padded plane, ghost columns included, as one
// sequence of positions cut into blocks of 32, one row per thread: every level of a warp is then 32
// consecutive doubles starting at a multiple of 256 B from the row 0 ghost column (the x-chunk form starts
// g columns in, so each level's 256 B touch 9 sectors instead of 8), at the cost of the ghost lanes
// (2g of nx + 2g idle).
struct ColumnRange {
  int64_t i, j0, dj;
  bool live;
};
template <bool kFlat>
__device__ __forceinline__ ColumnRange column_range(const Grid& G, int lane) {
  if constexpr (kFlat) {
    const int64_t v = int64_t(blockIdx.x) * kCols + lane, sx = G.sx();
    const int64_t j = v / sx, i = v - j * sx - G.g;
    return ColumnRange{i, j, G.ny, j < G.ny && i >= 0 && i < G.nx};
  } else {
    const int64_t i = int64_t(blockIdx.x) * kCols + lane;
    return ColumnRange{i, int64_t(blockIdx.y), int64_t(gridDim.y), i < G.nx};
  }
}

// Register form: one thread per column, phi and w streamed through registers kRegAhead levels ahead of
// the sweep (ld.global.cs: read once, first out of L2), d'_k kept in registers (a compile-time bound of
// kRegLevels levels, loops fully unrolled) and c'_k in shared memory (nz x 32 x 8 B per warp, half of the
// staged form's): the scratch never leaves the multiprocessor, loads overlap the sweep within each warp,
// and more columns fit on a multiprocessor than in the staged form (8 warps against 5 at 80 levels).
// Each level ends in an exit of the sweep (`if (k >= nz) break;`, see the loop): a form with a compile-time
// level count and padded levels, one basic block per sweep, let the compiler keep c' in registers, spill,
// and bring the loads next to their use: 0.37-0.39 of copy against 0.60 (docs/performance.md).
constexpr int kRegLevels = 80;
constexpr int kRegAhead = 8;  // levels of phi and w in flight per thread (4 measured 9 % slower)

// Backward sweep of the register and ring forms: x_{nz-1} = d'_{nz-1}, x_k = d'_k - c'_k x_{k+1}, straight
// to out (column base po) with streaming stores. Inlined: dp stays in registers.
__device__ __forceinline__ void back_sweep(const double (&dp)[kRegLevels], const double* cps, double* po, int64_t plane,
                                           int nz) {
  double x = 0.0;
  double* o = po + plane * (nz - 1);
#pragma unroll
  for (int k = kRegLevels - 1; k >= 0; --k) {
    if (k < nz) {
      x = k == nz - 1 ? dp[k] : VadvStep::back(dp[k], cps[k * kCols], x);
      __stcs(o, x);
      o -= plane;
    }
  }
}

template <bool kFlat>
__global__ void __launch_bounds__(kCols) vadv_column_reg(Grid G, VadvStep S, const double* __restrict__ in,
                                                         const double* __restrict__ w, double* __restrict__ out) {
  extern __shared__ double s_cp[];  // [nz][kCols]: c'_k
  const int lane = threadIdx.x;
  const int nz = int(G.nz);  // <= kRegLevels (the caller checks)
  const ColumnRange cr = column_range<kFlat>(G, lane);
  if (!cr.live) return;
  const int64_t i = cr.i;
  const int64_t plane = G.plane();
  double* cps = s_cp + lane;
  for (int64_t j = cr.j0; j < G.ny; j += cr.dj) {
    const int64_t n0 = G.idx(i, j);
    const double* pin = in + n0;
    const double* pw = w + n0;
    double* po = out + n0;
    double rphi[kRegAhead], rw[kRegAhead];  // slot k % kRegAhead: phi(k + 1), w(k) for level k
#pragma unroll
    for (int m = 0; m < kRegAhead; ++m) {
      rphi[m] = m + 1 < nz ? __ldcs(pin + plane * (m + 1)) : 0.0;
      rw[m] = m + 1 < nz ? __ldcs(pw + plane * m) : 0.0;  // w(nz - 1/2) unused: lid
    }
    VadvStep::Carry cs;
    double phi = __ldcs(pin);
    double dp[kRegLevels];
    // phi(k + kRegAhead + 1) and w(k + kRegAhead) at level k: pointers bumped per level, not recomputed.
    const double* lphi = pin + plane * (kRegAhead + 1);
    const double* lw = pw + plane * kRegAhead;
    // `break` rather than `if (k < nz) {...}`: with the guard, every level ended in a join where the window's
    // registers had to agree with the path that skipped the level, and nvcc rotated them with moves that
    // read the loads just issued, so each level waited for its own prefetch (ncu: long-scoreboard stalls).
    // With an exit per level the window is dead at every join.
#pragma unroll
    for (int k = 0; k < kRegLevels; ++k) {
      if (k >= nz) break;
      const double wp = rw[k % kRegAhead], phip = rphi[k % kRegAhead];
      const bool more = k + kRegAhead + 1 < nz;
      rphi[k % kRegAhead] = more ? __ldcs(lphi) : 0.0;
      rw[k % kRegAhead] = more ? __ldcs(lw) : 0.0;
      lphi += plane;
      lw += plane;
      S.forward(cs, wp, phi, phip);
      cps[k * kCols] = cs.cp;
      dp[k] = cs.dp;
      phi = phip;
    }
    back_sweep(dp, cps, po, plane, nz);
  }
}

// Ring form (the default up to kRegLevels levels from 2^18 columns up): the register form with its 8-level
// window of phi and w replaced by a ring of kRing levels in shared memory filled by cp.async (one commit
// group per level, zero-filled above the column). ncu's source counters on the register form showed its
// long-scoreboard stalls (half of all samples) on the first use of a window value every 8 levels: a warp
// that runs unstalled covers 8 levels in less than a DRAM latency. The ring holds 14 levels in flight for
// the same 8 warps per multiprocessor (c' 20 KB + ring 7 KB per warp at 80 levels) and frees the window's
// registers (217 against 234). Same VadvStep arithmetic in the same order: bit-identical to the portable
// path. Measured (97dc871): 0.583 / 0.630 / 0.674 of copy at 256^2 / 512^2 / 1024^2 x 80, against 0.615 /
// 0.610 / 0.640 for the register form in the same run.
constexpr int kRing = 14;

__device__ __forceinline__ void copy_async8_zfill(double* dst, const double* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 8u : 0u) : "memory");
}

template <bool kFlat>
__global__ void __launch_bounds__(kCols) vadv_column_ring(Grid G, VadvStep S, const double* __restrict__ in,
                                                          const double* __restrict__ w, double* __restrict__ out) {
  extern __shared__ double s_mem[];
  const int lane = threadIdx.x;
  const int nz = int(G.nz);  // <= kRegLevels (the caller checks)
  const ColumnRange cr = column_range<kFlat>(G, lane);
  if (!cr.live) return;
  const int64_t i = cr.i;
  const int64_t plane = G.plane();
  double* cps = s_mem + lane;                 // [nz][kCols]: c'_k
  double* ring = s_mem + nz * kCols + lane;   // [kRing][2][kCols]: phi(k + 1), w(k) of level k in slot k % kRing
  for (int64_t j = cr.j0; j < G.ny; j += cr.dj) {
    const int64_t n0 = G.idx(i, j);
    const double* pin = in + n0;
    const double* pw = w + n0;
    double* po = out + n0;
    // phi(k + 1) and w(k) of the next level to request (w(nz - 1/2) unused: lid; zero-filled past the top).
    const double* lphi = pin + plane;
    const double* lw = pw;
#pragma unroll
    for (int m = 0; m < kRing; ++m) {
      const bool v = m + 1 < nz;
      copy_async8_zfill(ring + (2 * m) * kCols, v ? lphi : pin, v);
      copy_async8_zfill(ring + (2 * m + 1) * kCols, v ? lw : pw, v);
      commit_group();
      lphi += plane;
      lw += plane;
    }
    VadvStep::Carry cs;
    double phi = __ldcs(pin);
    double dp[kRegLevels];
#pragma unroll
    for (int k = 0; k < kRegLevels; ++k) {
      if (k >= nz) break;
      asm volatile("cp.async.wait_group %0;\n" ::"n"(kRing - 1) : "memory");  // level k's group has landed
      double* slot = ring + 2 * (k % kRing) * kCols;
      const double phip = slot[0], wp = slot[kCols];
      S.forward(cs, wp, phi, phip);
      cps[k * kCols] = cs.cp;
      dp[k] = cs.dp;
      phi = phip;
      // Level k + kRing into the slot just read (its values are consumed above).
      const bool v = k + kRing + 1 < nz;
      copy_async8_zfill(slot, v ? lphi : pin, v);
      copy_async8_zfill(slot + kCols, v ? lw : pw, v);
      commit_group();
      lphi += plane;
      lw += plane;
    }
    wait_pending(0);  // the zero fills past the top land before the ring is reused for the next column
    back_sweep(dp, cps, po, plane, nz);
  }
}

// Twisted forms (`twistq8gh128`, the default up to kRegLevels levels: 8 levels ahead, read-only loads with
// the L2 128-byte prefetch-size hint; `twistq8g` (the same with plain read-only loads, the default before),
// `twistq8gh`, `twistq8gna` (twist_load), `twistq6` (6 ahead), `twistq6cs`, `twistq4`, `twistq8`, `twistb4`, `twisto4` with
// streaming loads, for measurement): two threads per column. A block of 2 kTC threads takes kTC adjacent flat positions (as
// column_range<true>: the padded rows 0 .. ny-1 as one sequence, ghost columns included); its first kTC
// threads eliminate levels 0 .. m = ceil(nz/2) - 1 of their columns upwards (the Thomas sweep), the other
// kTC levels nz-1 .. m+1 downwards with the mirrored step (VadvStep::mirrored: the same instructions with
// hr, her negated), so every warp runs one instruction stream. The two threads of a column exchange their
// last c', d' through shared memory, both solve the 2 x 2 system where they meet (VadvStep::meet) and
// substitute back outwards. A thread carries half a column: d' of kTwistLevels = 40 levels in registers,
// c' in shared memory (10 KB per warp), phi and w kAhead levels ahead in registers: 126-128 registers, 16
// warps per multiprocessor (the one-thread forms: 8), and each column's chain of dependent levels is half
// as long. The result equals vadv_columns_portable_twisted bit for bit (same VadvStep calls in the same
// order) and the Thomas sweep to rounding. Threads of ghost positions compute on a clamped column and store
// nothing (the barriers need the whole block). Launched with programmatic dependent launch (pdl_launch.hpp):
// +2.9 % at 256^2 x 80 in back-to-back launches, +0.5-0.8 % at 512^2 and 1024^2.
//
// Measured (docs/performance.md, "COSMO stencils"), fraction of copy at 256^2 / 512^2 / 1024^2 x 80: the
// default 0.771 / 0.829 / 0.883 (c210e55, read-only loads, below). With streaming loads and PDL (4ee82f7):
// 64 columns per block and 6 levels ahead (now twistq6cs) 0.748 / 0.759 / 0.780, 4 (twistq4) 0.743
// / 0.755 / 0.774, 8 (twistq8) 0.733 / 0.759 / 0.783; 32 columns (twistb4) 0.728 / 0.739 / 0.755, 128
// (twisto4) 0.736 / 0.754 / 0.771. The flat register form measured 0.627 / 0.630 / 0.639 in the run of
// a8355cb. Dropped after measuring (records 20261201T0244Z .. 0257Z): the two halves as lanes l, l + 16 of
// one warp with a shuffle (0.63-0.67), c' in registers (195 registers, 10 warps: 0.64-0.71), phi, w through a
// ring of bulk copies in shared memory (cp.async.bulk + mbarrier, 3-5 levels: 0.64-0.77, capped by the
// shared memory that c' leaves), and 12-16 levels ahead. The forms must not force the largest shared-memory
// carveout: the loads in flight hold L1 lines, and with the carveout at 100 % twistb4 fell from 0.71-0.76 to
// 0.65-0.66 (TESSERA_VADV_CARVEOUT measures it). Deeper windows (`twistd12/16/20`: 12-20 levels ahead,
// 142-156 registers, 3 blocks per SM; `twistbd16`: 32 columns per block) and fewer resident blocks
// (TESSERA_VADV_BLOCKS) were measured for shorter blocks at 256^2: level with the default at 192 columns
// per SM with 16-20 ahead, slower at 128 (0.72 at 256^2, c84d815), so they stay measurement forms. Prefetching
// the first 8-40 levels into L2 between the PDL trigger and the wait (a4f4d3a, reverted) was level at 8-16
// levels and slower beyond (0.68 at 256^2 with 40).
constexpr int kTwistLevels = kRegLevels / 2;

// c' only: the exchange reuses each thread's last c' slot, which the back substitution does not read. At
// 64 columns per block, four blocks then need 4 x (40 KB + 1 KB reserved) = 164 KB, a carveout step, and
// leave 92 KB of L1 instead of 56 KB with a separate 2 KB exchange area (measured: no change in speed,
// 4ee82f7 against ffd8fb3).
template <int kTC>
constexpr size_t twist_smem() {
  return size_t(kTwistLevels) * 2 * kTC * sizeof(double);
}

// Loads of phi and w: kMem = 1 through the read-only path (ld.global.nc, the default), 0 with the streaming
// hint (ld.global.cs, evict-first; `twistq6cs`, the default before c210e55). The read-only loads are 3 % /
// 9 % / 13 % faster at 256^2 / 512^2 / 1024^2 x 80 (c210e55: 0.771 / 0.827 / 0.886 of copy against 0.748 /
// 0.756 / 0.781; default-cached loads measured the same as .nc; default stores instead of st.global.cs were
// mixed, +2 % at 256^2 and -2 % at 512^2). At 256^2 ncu of one launch with flushed caches shows no change
// (35.7 us): there the gain is the inputs kept in L2 between back-to-back launches; the larger gains at 512^2
// and 1024^2 (working sets of 0.5 and 2 GB) were not profiled. Stores stay streaming (st.global.cs).
// kMem = 3, the default since this was measured (`twistq8gh128` = `auto`): the read-only load with the
// L2 prefetch-size hint of 128 bytes (ld_hint.hpp: +2 % / +2.5-3 % / +3 % at 256^2 / 512^2 / 1024^2 x 80
// against kMem = 1, e24ecf6); kMem = 2 and 4 (measurement: `twistq8gh`, `twistq8gna`): the 256-byte hint,
// or loads that do not allocate in L1 (L1::no_allocate, 5-13 % slower).
template <int kMem>
__device__ __forceinline__ double twist_load(const double* p) {
  if constexpr (kMem == 1) return __ldg(p);
  else if constexpr (kMem == 2) return ldg_l2_256(p);
  else if constexpr (kMem == 3) return ldg_l2_128(p);
  else if constexpr (kMem == 4) return ldg_l1_no_allocate(p);
  else return __ldcs(p);
}

// The global timer (ns) and the multiprocessor of the calling thread, for the block timeline below.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// kStamp (measurement only, TESSERA_VADV_TIMELINE): thread 0 of each block writes, to stamps[4 b ..], the
// time the block became resident, the time it passed pdl_enter (the previous launch complete), the time
// its last thread finished, and its multiprocessor. Off in every other instantiation (no code).
template <int kTC, int kAhead, int kMem, bool kStamp = false>
__global__ void __launch_bounds__(2 * kTC) vadv_column_twist(Grid G, VadvStep S, const double* __restrict__ in,
                                                           const double* __restrict__ w, double* __restrict__ out,
                                                           unsigned long long* __restrict__ stamps) {
  constexpr int kT = 2 * kTC;  // threads per block
  extern __shared__ double s_cp[];  // [kTwistLevels][kT]: c'_k (lower threads), a''_k (upper)
  unsigned long long t_resident = 0;
  if constexpr (kStamp) t_resident = global_ns();
  pdl_enter();  // programmatic dependent launch (pdl_launch.hpp; TESSERA_VADV_PDL=0 turns it off)
  if constexpr (kStamp)
    if (threadIdx.x == 0) {
      stamps[4 * blockIdx.x] = t_resident;
      stamps[4 * blockIdx.x + 1] = global_ns();
      stamps[4 * blockIdx.x + 3] = sm_id();
    }
  const int tid = threadIdx.x;
  const bool upper = tid >= kTC;
  const int nz = int(G.nz);  // <= kRegLevels (the caller checks)
  const int nt = (nz + 1) / 2;
  const int nl = upper ? nz - nt : nt;  // levels of this thread
  const int64_t v = int64_t(blockIdx.x) * kTC + (tid & (kTC - 1)), sx = G.sx();
  int64_t j = v / sx;
  const int64_t i = v - j * sx - G.g;
  const bool live = j < G.ny && i >= 0 && i < G.nx;
  if (j >= G.ny) j = G.ny - 1;  // past the last row: compute on a real column, store nothing
  const int64_t plane = G.plane();
  const int64_t n0 = G.idx(i, j);
  const int64_t step = upper ? -plane : plane;
  const VadvStep D = upper ? S.mirrored() : S;
  // Level t of this thread is k = t (lower) or nz-1-t (upper); it reads phi(k), and w and phi of its next
  // level: w(k+1/2), phi(k+1) below; w(k-1/2), phi(k-1) above. Both exist iff t + 1 < nz.
  const double* lphi = in + n0 + plane * (upper ? nz - 2 : 1);
  const double* lw = w + n0 + plane * (upper ? nz - 2 : 0);
  double rphi[kAhead], rw[kAhead];  // slot t % kAhead: phi and w of level t's next level
#pragma unroll
  for (int m = 0; m < kAhead; ++m) {
    const bool ok = m < nl && m + 1 < nz;
    rphi[m] = ok ? twist_load<kMem>(lphi) : 0.0;
    rw[m] = ok ? twist_load<kMem>(lw) : 0.0;
    lphi += step;
    lw += step;
  }
  VadvStep::Carry cs;
  double phi = twist_load<kMem>(in + n0 + (upper ? plane * (nz - 1) : 0));
  double* cps = s_cp + tid;
  double dp[kTwistLevels];
  // An exit per level, as in the register form (vadv_column_reg).
#pragma unroll
  for (int t = 0; t < kTwistLevels; ++t) {
    if (t >= nl) break;
    const double wp = rw[t % kAhead], phip = rphi[t % kAhead];
    const bool more = t + kAhead < nl && t + kAhead + 1 < nz;
    rphi[t % kAhead] = more ? twist_load<kMem>(lphi) : 0.0;
    rw[t % kAhead] = more ? twist_load<kMem>(lw) : 0.0;
    lphi += step;
    lw += step;
    D.forward(cs, wp, phi, phip);
    cps[t * kT] = cs.cp;
    dp[t] = cs.dp;
    phi = phip;
  }
  // Lower thread: c'_m, d'_m; upper thread: a''_{m+1}, d''_{m+1} (zero when nz = 1). Exchanged through each
  // thread's last c' slot (level nl - 1, which the back substitution does not read; slot 0 when nl = 0):
  // c' is there already, then d' replaces it once the partner has read it.
  const int last = nl > 0 ? nl - 1 : 0;
  const int pnl = upper ? nt : nz - nt;  // the partner's levels
  double* mine = s_cp + last * kT + tid;
  const double* theirs = s_cp + (pnl > 0 ? pnl - 1 : 0) * kT + (tid ^ kTC);
  *mine = cs.cp;  // (nl = 0: its zero, into an unused slot)
  __syncthreads();
  const double ocp = *theirs;
  __syncthreads();
  *mine = cs.dp;
  __syncthreads();
  const double odp = *theirs;
  double xm, xn;
  if (upper) VadvStep::meet(ocp, odp, cs.cp, cs.dp, xm, xn);
  else VadvStep::meet(cs.cp, cs.dp, ocp, odp, xm, xn);
  // Back substitution outwards from the meeting point: x_k = d'_k - c'_k x_{k+1} below, d''_k - a''_k x_{k-1}
  // above, to out with streaming stores.
  double x = upper ? xn : xm;
  double* o = out + n0 + (upper ? plane * (nz - 1) : 0) + step * (nl - 1);
  if (live && nl > 0) __stcs(o, x);
#pragma unroll
  for (int t = kTwistLevels - 2; t >= 0; --t) {
    if (t < nl - 1) {
      x = VadvStep::back(dp[t], cps[t * kT], x);
      o -= step;
      if (live) __stcs(o, x);
    }
  }
  if constexpr (kStamp) {
    __syncthreads();
    if (threadIdx.x == 0) stamps[4 * blockIdx.x + 2] = global_ns();
  }
}

// TESSERA_VADV_TIMELINE=path (measurement): the default twisted kernel runs its kStamp instantiation, each
// launch of the first grid size seen into its own slot of a device ring of kTimelineLaunches launches (no
// synchronisation between launches, so back-to-back timing is kept), and at exit the slots filled are
// written to `path` as CSV (launch, block, sm, resident_ns, start_ns, end_ns; the times relative to the
// first launch's first block). bench/weather/vadv-timeline runs it and summarises the waves.
constexpr int kTimelineLaunches = 256;
struct Timeline {
  std::string path;
  unsigned long long* d = nullptr;
  unsigned blocks = 0;
  int launches = 0;
};
Timeline& timeline() {
  static Timeline t;
  return t;
}
void timeline_dump() {
  Timeline& t = timeline();
  if (!t.d || t.launches == 0) return;
  const int nl = std::min(t.launches, kTimelineLaunches);
  std::vector<unsigned long long> h(size_t(nl) * t.blocks * 4);
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(h.data(), t.d, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::fprintf(stderr, "TESSERA_VADV_TIMELINE: could not read the stamps back; %s not written\n", t.path.c_str());
    return;
  }
  unsigned long long t0 = ~0ull;
  for (unsigned b = 0; b < t.blocks; ++b) t0 = std::min(t0, h[4 * size_t(b)]);
  const std::string tmp = t.path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "TESSERA_VADV_TIMELINE: cannot write %s\n", tmp.c_str());
    return;
  }
  std::fprintf(f, "launch,block,sm,resident_ns,start_ns,end_ns\n");
  for (int l = 0; l < nl; ++l)
    for (unsigned b = 0; b < t.blocks; ++b) {
      const unsigned long long* e = &h[(size_t(l) * t.blocks + b) * 4];
      std::fprintf(f, "%d,%u,%llu,%lld,%lld,%lld\n", l, b, e[3], (long long)(e[0] - t0), (long long)(e[1] - t0),
                   (long long)(e[2] - t0));
    }
  const bool ok = std::fclose(f) == 0 && std::rename(tmp.c_str(), t.path.c_str()) == 0;
  std::fprintf(stderr, "TESSERA_VADV_TIMELINE: %d launches of %u blocks %s %s\n", nl, t.blocks,
               ok ? "written to" : "NOT written to", t.path.c_str());
}
// The stamp slot for the next launch of `blocks` blocks, or nullptr (timeline off, or another grid size).
unsigned long long* timeline_slot(unsigned blocks) {
  const char* e = std::getenv("TESSERA_VADV_TIMELINE");
  if (!e || !*e) return nullptr;
  Timeline& t = timeline();
  if (!t.d) {
    TESSERA_CUDA_CHECK(cudaMalloc(&t.d, size_t(kTimelineLaunches) * blocks * 4 * sizeof(unsigned long long)));
    t.blocks = blocks;
    t.path = e;
    std::atexit(timeline_dump);
  }
  if (blocks != t.blocks) return nullptr;
  return t.d + size_t(t.launches++ % kTimelineLaunches) * blocks * 4;
}

// Raise a kernel's dynamic shared-memory limit to `bytes` (once per increase). The carveout is left to the
// driver (the least shared memory the resident blocks need, the rest L1): forcing the largest shared
// share made the forms that keep loads in flight slower (the flat register form 0.63 / 0.63 / 0.64 of copy
// against 0.67 / 0.70 / 0.72 with the driver's choice, the ring form unchanged; ebebfae).
template <class Kernel>
void allow_smem(Kernel k, size_t bytes, size_t& raised) {
  if (bytes <= raised) return;
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  raised = bytes;
}

// TESSERA_VADV_BLOCKS=n (measurement): at most n blocks of the twisted forms per multiprocessor, by asking
// each block for enough dynamic shared memory that n + 1 do not fit (the registers may allow fewer).
size_t blocks_cap_smem(size_t bytes) {
  const char* c = std::getenv("TESSERA_VADV_BLOCKS");
  if (!c || !*c) return bytes;
  const int n = std::atoi(c);
  if (n < 1) TESSERA_THROW(std::string("TESSERA_VADV_BLOCKS='") + c + "': expected a whole number of blocks, 1 or more");
  static const std::pair<int, int> sm = [] {  // shared memory per multiprocessor, reserved per block
    int dev = 0, a = 0, r = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&a, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&r, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    return std::pair<int, int>{a, r};
  }();
  // n + 1 blocks need more than the multiprocessor has: (n + 1) (bytes + reserved) > per SM.
  const size_t cap = (size_t(sm.first) / size_t(n + 1) - size_t(sm.second) + 16) & ~size_t(15);
  return std::max(bytes, cap);
}

// TESSERA_VADV_CARVEOUT (measurement): the shared-memory carveout preference in percent for the next launch
// (`default` lets the driver choose); unset keeps each form's own choice.
template <class Kernel>
void carveout_override(Kernel k) {
  const char* c = std::getenv("TESSERA_VADV_CARVEOUT");
  if (!c || !*c) return;
  const int pct = std::string(c) == "default" ? int(cudaSharedmemCarveoutDefault) : std::atoi(c);
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, pct));
}

}  // namespace

bool vadv_cuda(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
               double* out) {
  if (gr.nx <= 0 || gr.ny <= 0 || gr.nz <= 0) return true;
  static const int optin = [] {
    int dev = 0, v = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return v;
  }();
  // Up to kRegLevels levels the twisted form, else the staged kernel; TESSERA_VADV_KERNEL names a form and
  // forces it where it fits (read per call: benchmarks and tests switch it).
  const std::string want(knob_name("TESSERA_VADV_KERNEL",
                                   {"auto", "twistq6", "twistq6cs", "twistq8g", "twistq8gh", "twistq8gh128", "twistq8gna",
                                    "twistd12", "twistd16", "twistd20", "twistbd16", "twistq4", "twistq8", "twistb4",
                                    "twisto4", "ring", "reg", "smem", "ringf", "regf"},
                                   "auto", "auto, twistq8gh128 up to 80 levels"));
  // auto: the twisted form with 64 columns per block, 8 levels ahead, loads through the read-only path with
  // the L2 128-byte hint, up to kRegLevels levels (0.786-0.787 / 0.866-0.871 / 0.913-0.915 of copy at 256^2 /
  // 512^2 / 1024^2 x 80 against 0.771-0.773 / 0.845 / 0.885-0.889 without the hint, e24ecf6; 8 ahead against 6:
  // 0.779 / 0.856 / 0.899 against 0.775-0.777 / 0.835-0.837 / 0.893-0.894, 5c7e6ba; 0.626 / 0.631 / 0.672 for
  // the one-thread forms at 6f7dffd).
  const int tc = want == "twistb4" || want == "twistbd16"                                         ? 32
                 : want == "twisto4"                                                            ? 128
                 : want.rfind("twistq", 0) == 0 || want.rfind("twistd", 0) == 0 || want == "auto" ? 64
                                                                                                : 0;
  if (tc && gr.nz <= kRegLevels) {
    const dim3 tg(unsigned((gr.sx() * gr.ny + tc - 1) / tc));
    const cudaStream_t ts = static_cast<cudaStream_t>(ex.stream);
    const VadvStep S = VadvStep::make(vp);
    const bool pdl = pdl_wanted("TESSERA_VADV_PDL");
    auto go = [&](auto kernel, size_t bytes, size_t& raised, unsigned long long* stamps = nullptr) {
      bytes = blocks_cap_smem(bytes);
      allow_smem(kernel, bytes, raised);
      carveout_override(kernel);
      launch_maybe_pdl(pdl, kernel, tg, dim3(2 * tc), bytes, ts, gr, S, in, w, out, stamps);
      vadv_note_form("twist");
    };
    static size_t r32 = 0, r64 = 0, r64b = 0, r64c = 0, r128 = 0, rcs = 0, r6g = 0, rst = 0, rh = 0, rh1 = 0, rna = 0,
                  rd12 = 0, rd16 = 0, rd20 = 0, rbd16 = 0;
    // The variants other than the default keep the streaming loads they were measured (and GPU-tested) with.
    if (want == "twistbd16") go(vadv_column_twist<32, 16, 3>, twist_smem<32>(), rbd16);
    else if (tc == 32) go(vadv_column_twist<32, 4, 0>, twist_smem<32>(), r32);
    else if (want == "twistd12") go(vadv_column_twist<64, 12, 3>, twist_smem<64>(), rd12);
    else if (want == "twistd16") go(vadv_column_twist<64, 16, 3>, twist_smem<64>(), rd16);
    else if (want == "twistd20") go(vadv_column_twist<64, 20, 3>, twist_smem<64>(), rd20);
    else if (tc == 128) go(vadv_column_twist<128, 4, 0>, twist_smem<128>(), r128);
    else if (want == "twistq4") go(vadv_column_twist<64, 4, 0>, twist_smem<64>(), r64);
    else if (want == "twistq8") go(vadv_column_twist<64, 8, 0>, twist_smem<64>(), r64c);
    else if (want == "twistq6cs") go(vadv_column_twist<64, 6, 0>, twist_smem<64>(), rcs);
    else if (want == "twistq6") go(vadv_column_twist<64, 6, 1>, twist_smem<64>(), r6g);
    else if (want == "twistq8g") go(vadv_column_twist<64, 8, 1>, twist_smem<64>(), r64b);
    else if (want == "twistq8gh") go(vadv_column_twist<64, 8, 2>, twist_smem<64>(), rh);
    else if (want == "twistq8gna") go(vadv_column_twist<64, 8, 4>, twist_smem<64>(), rna);
    else if (unsigned long long* st = timeline_slot(tg.x)) go(vadv_column_twist<64, 8, 3, true>, twist_smem<64>(), rst, st);
    else go(vadv_column_twist<64, 8, 3>, twist_smem<64>(), rh1);  // auto, twistq8gh128
    TESSERA_CUDA_CHECK_LAUNCH("weather::vadv_column_twist");
    return true;
  }
  // Named one-thread forms (and auto beyond kRegLevels levels: the staged form): the ring and register
  // forms were the defaults before the twisted form (ring from 2^18 columns, flat register form below).
  const bool flat = want == "ringf" || want == "regf";
  enum class K { Ring, Reg, Smem };
  const K kind = want == "smem" || want == "auto" || gr.nz > kRegLevels ? K::Smem
                 : want == "reg" || want == "regf"                       ? K::Reg
                                                                         : K::Ring;
  const size_t levels = kind == K::Smem ? 2 * size_t(gr.nz) : kind == K::Reg ? size_t(gr.nz) : size_t(gr.nz) + 2 * kRing;
  const size_t bytes = levels * kCols * sizeof(double);
  if (gr.nz > 65535 || bytes > size_t(optin)) return false;  // portable path (c' through scratch)
  // Blocks in y: one per row j up to 65535 (more rows: each block loops over several);
  // TESSERA_VADV_GRID_Y caps it lower (tests exercise the loop with it). The flat forms take one row per
  // thread from a 1-D grid and ignore both.
  int64_t gy = gr.ny < 65535 ? gr.ny : 65535;
  if (const char* c = std::getenv("TESSERA_VADV_GRID_Y"); c && *c) gy = std::min<int64_t>(gy, std::max(1, std::atoi(c)));
  const dim3 grid = flat && kind != K::Smem ? dim3(unsigned((gr.sx() * gr.ny + kCols - 1) / kCols))
                                            : dim3(unsigned((gr.nx + kCols - 1) / kCols), unsigned(gy));
  const cudaStream_t s = static_cast<cudaStream_t>(ex.stream);
  const VadvStep S = VadvStep::make(vp);
  // The ring and register forms, flat or by x chunks (each kernel raises its own shared-memory limit).
  const auto one_thread = [&](auto chunked, auto flat_form, size_t& raised, size_t& raised_f) {
    const auto kernel = flat ? flat_form : chunked;
    allow_smem(kernel, bytes, flat ? raised_f : raised);
    carveout_override(kernel);
    kernel<<<grid, kCols, bytes, s>>>(gr, S, in, w, out);
    TESSERA_CUDA_CHECK_LAUNCH("weather::vadv_column_ring/reg");
    vadv_note_form(kind == K::Ring ? "ring" : "reg");
  };
  if (kind == K::Ring) {
    static size_t raised = 0, raised_f = 0;
    one_thread(vadv_column_ring<false>, vadv_column_ring<true>, raised, raised_f);
  } else if (kind == K::Reg) {
    static size_t raised = 0, raised_f = 0;
    one_thread(vadv_column_reg<false>, vadv_column_reg<true>, raised, raised_f);
  } else {
    static size_t raised = 0;
    allow_smem(vadv_column_smem, bytes, raised);
    vadv_column_smem<<<grid, kCols, bytes, s>>>(gr, S, in, w, out);
    TESSERA_CUDA_CHECK_LAUNCH("weather::vadv_column_smem");
    vadv_note_form("smem");
  }
  return true;
}

}  // namespace tessera::weather::detail
#endif
