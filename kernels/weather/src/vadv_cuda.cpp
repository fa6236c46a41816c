// The tuned CUDA COSMO vertical advection: one thread per column, the Thomas scratch kept on chip.
//
// The portable form writes c' to a scratch array and d' to out, then reads both back in the backward
// sweep: 2 x 8 B per point of extra device-memory traffic beyond the protocol's phi, w read + out
// written, and its per-level loads are dependent on nothing but come one level at a time, so few bytes
// are in flight (24-30 % of the copy bandwidth, bench/results/20261130T0057Z-*).
// Here a block is one warp of 32 adjacent columns. Each thread stages its own column of phi and w in
// shared memory with asynchronous copies (cp.async, sm_80+): all 2 nz loads are issued at once, in
// commit groups of kChunk levels, so a whole column is in flight without holding registers, and the
// forward sweep starts as soon as the first group has landed. The sweep then overwrites phi(k) with
// d'_k and w(k) with c'_k in place (both are read before they are overwritten), and the backward sweep
// writes out directly: the scratch never leaves the multiprocessor. Shared memory per block is
// 2 nz x 32 x 8 B (40 KB at nz = 80, five blocks per multiprocessor); a column that does not fit falls
// back to the portable path. Each thread touches only its own column, so no barrier is needed beyond
// cp.async.wait_group. The per-level arithmetic is VadvStep's, so results are bit-identical to
// vadv_columns_portable on the device.
// Measured on an H200 (docs/performance.md, "COSMO stencils"): 38 / 49 / 57 % of the copy bandwidth at
// 256^2 / 512^2 / 1024^2 x 80 (portable: 24 / 29 / 29 %); with five one-warp blocks per multiprocessor
// the serial Thomas chain (a double division per level) leaves it latency-bound, short of the 85 % goal.
// A streaming variant (phi, w through registers, c' in shared memory, d' through out in L2) kept the
// scratch off DRAM too but measured 39-44 %, and nvcc contracted its flux difference into an FMA the
// other way round (a few ulp from the portable path), so it was dropped.
#include "cosmo_cuda.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/error.hpp"

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
    double wm = 0.0, phim = 0.0, cpm = 0.0, dpm = 0.0;
    wait_pending(groups - 1);
    double phi = s_phi[lane];
    for (int q = 0; q < groups; ++q) {
      // Level k reads phi(k+1) and w(k): the next group must have landed for the last level of this one.
      wait_pending(groups - 2 - q < 0 ? 0 : groups - 2 - q);
      const int k1 = (q + 1) * kChunk < nz ? (q + 1) * kChunk : nz;
      for (int k = q * kChunk; k < k1; ++k) {
        const double wp = k + 1 < nz ? s_w[k * kCols + lane] : 0.0;
        const double phip = k + 1 < nz ? s_phi[(k + 1) * kCols + lane] : 0.0;
        S.forward(wm, wp, phim, phi, phip, cpm, dpm);
        s_w[k * kCols + lane] = cpm;
        s_phi[k * kCols + lane] = dpm;
        wm = wp;
        phim = phi;
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


// Register form: one thread per column, phi and w streamed through registers P levels ahead of the sweep
// (ld.global.cs: read once, first out of L2), d'_k kept in registers (a compile-time bound of kRegLevels
// levels, loops fully unrolled) and c'_k in shared memory (nz x 32 x 8 B per warp, half of the staged
// form's): the scratch never leaves the multiprocessor, loads overlap the sweep within each warp, and
// twice as many columns fit on a multiprocessor as in the staged form.
constexpr int kRegLevels = 80;

template <int P>
__global__ void __launch_bounds__(kCols) vadv_column_reg(Grid G, VadvStep S, const double* __restrict__ in,
                                                         const double* __restrict__ w, double* __restrict__ out) {
  extern __shared__ double s_cp[];  // [nz][kCols]: c'_k
  const int lane = threadIdx.x;
  const int nz = int(G.nz);  // <= kRegLevels (the caller checks)
  const int64_t i = int64_t(blockIdx.x) * kCols + lane;
  if (i >= G.nx) return;
  const int64_t plane = G.plane();
  double* cps = s_cp + lane;
  for (int64_t j = blockIdx.y; j < G.ny; j += gridDim.y) {
    const int64_t n0 = G.idx(i, j);
    const double* pin = in + n0;
    const double* pw = w + n0;
    double* po = out + n0;
    double rphi[P], rw[P];  // slot k % P: phi(k + 1), w(k) for level k
#pragma unroll
    for (int m = 0; m < P; ++m) {
      rphi[m] = m + 1 < nz ? __ldcs(pin + plane * (m + 1)) : 0.0;
      rw[m] = m + 1 < nz ? __ldcs(pw + plane * m) : 0.0;  // w(nz - 1/2) unused: lid
    }
    double wm = 0.0, phim = 0.0, cpm = 0.0, dpm = 0.0;
    double phi = __ldcs(pin);
    double dp[kRegLevels];
    const double* lphi = pin + plane * (P + 1);  // phi(k + P + 1) and w(k + P) at level k (bumped, not
    const double* lw = pw + plane * P;           // recomputed: fewer 64-bit multiplies per level)
#pragma unroll
    for (int k = 0; k < kRegLevels; ++k) {
      if (k < nz) {
        const double wp = rw[k % P], phip = rphi[k % P];
        const bool more = k + P + 1 < nz;
        rphi[k % P] = more ? __ldcs(lphi) : 0.0;
        rw[k % P] = more ? __ldcs(lw) : 0.0;
        lphi += plane;
        lw += plane;
        S.forward(wm, wp, phim, phi, phip, cpm, dpm);
        cps[k * kCols] = cpm;
        dp[k] = dpm;
        wm = wp;
        phim = phi;
        phi = phip;
      }
    }
    // Backward sweep: x_{nz-1} = d'_{nz-1}, x_k = d'_k - c'_k x_{k+1}.
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
}

// Warp-specialised form: a block of two warps per 32 adjacent columns. The producer warp streams phi
// and w (kAhead levels in flight in registers), forms the rows (a, b, c, d) of the tridiagonal systems
// and hands them over in groups of kGroup levels through a ring of kRing slots in shared memory; the
// consumer warp runs only the elimination chain (an fma, a division and two multiplies per level), keeps
// c'_k and d'_k in shared memory and writes out in the backward sweep. The warps signal each other with
// named barriers of 64 threads (compile-time ids, so a block holds only a few): 1 + s "slot s is full",
// 1 + kRing + s "slot s is free", 1 + 2 kRing "the consumer has taken the whole column" (the producer
// then starts the next column while the consumer runs its backward sweep). Levels are unrolled up to
// kWsLevels; deeper columns take the staged kernel. Shared memory: 2 nz x 32 x 8 B + the ring.
constexpr int kWsLevels = 80;
constexpr int kAhead = 32;  // levels of phi and w in flight in the producer
constexpr int kGroup = 8;   // levels per ring slot
constexpr int kRing = 2;    // ring slots

template <int Id>
__device__ __forceinline__ void bar_sync() { asm volatile("bar.sync %0, 64;\n" ::"n"(Id) : "memory"); }
template <int Id>
__device__ __forceinline__ void bar_arrive() { asm volatile("bar.arrive %0, 64;\n" ::"n"(Id) : "memory"); }
constexpr int kColumnDone = 1 + 2 * kRing;

size_t ws_smem_bytes(int64_t nz) { return (size_t(2) * size_t(nz) + size_t(kRing) * kGroup * 4) * kCols * sizeof(double); }

__global__ void __launch_bounds__(2 * kCols) vadv_column_ws(Grid G, VadvStep S, const double* __restrict__ in,
                                                           const double* __restrict__ w, double* __restrict__ out) {
  extern __shared__ double sm[];
  const int lane = threadIdx.x & 31;
  const bool producer = threadIdx.x < 32;
  const int nz = int(G.nz);  // <= kWsLevels (the caller checks)
  const int groups = (nz + kGroup - 1) / kGroup;
  double* cpd = sm + lane;                    // c'_k at cpd[2k x 32], d'_k at cpd[(2k+1) x 32]
  double* ring = sm + 2 * nz * kCols + lane;  // [slot][level in group][a, b, c, d][32]
  const int64_t i = int64_t(blockIdx.x) * kCols + lane;
  const bool active = i < G.nx;  // idle lanes still take part in the barriers
  const int64_t plane = G.plane();
  for (int64_t j = blockIdx.y; j < G.ny; j += gridDim.y) {
    const int64_t n0 = G.idx(active ? i : 0, j);
    if (producer) {
      const double* pin = in + n0;
      const double* pw = w + n0;
      double rphi[kAhead], rw[kAhead];  // slot k % kAhead: phi(k + 1), w(k) of level k
#pragma unroll
      for (int m = 0; m < kAhead; ++m) {
        const bool ok = active && m + 1 < nz;
        rphi[m] = ok ? __ldcs(pin + plane * (m + 1)) : 0.0;
        rw[m] = ok ? __ldcs(pw + plane * m) : 0.0;  // w(nz - 1/2) unused: lid
      }
      const double* lphi = pin + plane * (kAhead + 1);
      const double* lw = pw + plane * kAhead;
      double wm = 0.0, phim = 0.0, phi = active ? __ldcs(pin) : 0.0;
#pragma unroll
      for (int k = 0; k < kWsLevels; ++k) {
        if (k < nz) {
          const int g = k / kGroup, m = k % kGroup, slot = g % kRing;
          if (m == 0 && g >= kRing) {  // wait until the consumer has freed the slot
            if (slot == 0) bar_sync<1 + kRing>();
            else bar_sync<2 + kRing>();
          }
          const double wp = rw[k % kAhead], phip = rphi[k % kAhead];
          const bool more = active && k + kAhead + 1 < nz;
          rphi[k % kAhead] = more ? __ldcs(lphi) : 0.0;
          rw[k % kAhead] = more ? __ldcs(lw) : 0.0;
          lphi += plane;
          lw += plane;
          const VadvStep::Row q = S.row(wm, wp, phim, phi, phip);
          double* r = ring + (slot * kGroup + m) * 4 * kCols;
          r[0] = q.a;
          r[kCols] = q.b;
          r[2 * kCols] = q.c;
          r[3 * kCols] = q.d;
          wm = wp;
          phim = phi;
          phi = phip;
          if (m == kGroup - 1 || k == nz - 1) {  // slot full
            if (slot == 0) bar_arrive<1>();
            else bar_arrive<2>();
          }
        }
      }
      bar_sync<kColumnDone>();  // the consumer has taken every group: the ring restarts at slot 0
    } else {
      double cp = 0.0, dp = 0.0;
#pragma unroll
      for (int k = 0; k < kWsLevels; ++k) {
        if (k < nz) {
          const int g = k / kGroup, m = k % kGroup, slot = g % kRing;
          if (m == 0) {
            if (slot == 0) bar_sync<1>();
            else bar_sync<2>();
          }
          const double* r = ring + (slot * kGroup + m) * 4 * kCols;
          VadvStep::eliminate(VadvStep::Row{r[0], r[kCols], r[2 * kCols], r[3 * kCols]}, cp, dp);
          cpd[2 * k * kCols] = cp;
          cpd[(2 * k + 1) * kCols] = dp;
          if ((m == kGroup - 1 || k == nz - 1) && g + kRing < groups) {  // slot free for a later group
            if (slot == 0) bar_arrive<1 + kRing>();
            else bar_arrive<2 + kRing>();
          }
        }
      }
      bar_arrive<kColumnDone>();
      // Backward sweep: x_{nz-1} = d'_{nz-1}, x_k = d'_k - c'_k x_{k+1}.
      if (active) {
        double* o = out + n0 + plane * (nz - 1);
        double x = dp;
        __stcs(o, x);
        for (int k = nz - 2; k >= 0; --k) {
          o -= plane;
          x = VadvStep::back(cpd[(2 * k + 1) * kCols], cpd[2 * k * kCols], x);
          __stcs(o, x);
        }
      }
    }
  }
}

// Raise a kernel's dynamic shared-memory limit to `bytes` (once per increase) and prefer shared memory
// over L1 in the carveout.
template <class Kernel>
void allow_smem(Kernel k, size_t bytes, size_t& raised) {
  if (bytes <= raised) return;
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  raised = bytes;
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
  // TESSERA_VADV_KERNEL (benchmark knob, read per call): reg4 / reg8 (d' in registers, c' in shared
  // memory, 4 or 8 levels in flight; up to kRegLevels levels, else smem) or smem (the column staged).
  const char* e = std::getenv("TESSERA_VADV_KERNEL");
  std::string kind = e && *e ? e : "smem";
  if (kind != "smem" && kind != "reg4" && kind != "reg8" && kind != "ws")
    TESSERA_THROW("TESSERA_VADV_KERNEL='" + kind + "': expected smem, reg4, reg8 or ws");
  if ((kind.rfind("reg", 0) == 0 && gr.nz > kRegLevels) || (kind == "ws" && gr.nz > kWsLevels)) kind = "smem";
  const bool reg = kind == "reg4" || kind == "reg8";
  const size_t bytes = kind == "ws" ? ws_smem_bytes(gr.nz) : size_t(reg ? 1 : 2) * size_t(gr.nz) * kCols * sizeof(double);
  if (gr.nz > 65535 || bytes > size_t(optin)) return false;  // portable path (c' through scratch)
  // Blocks in y: one per row j up to 65535 (more rows: each block loops over several);
  // TESSERA_VADV_GRID_Y caps it lower (tests exercise the loop with it).
  int64_t gy = gr.ny < 65535 ? gr.ny : 65535;
  if (const char* c = std::getenv("TESSERA_VADV_GRID_Y"); c && *c) gy = std::min<int64_t>(gy, std::max(1, std::atoi(c)));
  const dim3 grid(unsigned((gr.nx + kCols - 1) / kCols), unsigned(gy));
  const cudaStream_t s = static_cast<cudaStream_t>(ex.stream);
  const VadvStep S = VadvStep::make(vp);
  if (kind == "ws") {
    static size_t raised = 0;
    allow_smem(vadv_column_ws, bytes, raised);
    vadv_column_ws<<<grid, 2 * kCols, bytes, s>>>(gr, S, in, w, out);
  } else if (kind == "smem") {
    static size_t raised = 0;
    allow_smem(vadv_column_smem, bytes, raised);
    vadv_column_smem<<<grid, kCols, bytes, s>>>(gr, S, in, w, out);
  } else if (kind == "reg4") {
    static size_t raised = 0;
    allow_smem(vadv_column_reg<4>, bytes, raised);
    vadv_column_reg<4><<<grid, kCols, bytes, s>>>(gr, S, in, w, out);
  } else {
    static size_t raised = 0;
    allow_smem(vadv_column_reg<8>, bytes, raised);
    vadv_column_reg<8><<<grid, kCols, bytes, s>>>(gr, S, in, w, out);
  }
  TESSERA_CUDA_CHECK_LAUNCH(kind == "ws" ? "weather::vadv_column_ws" : reg ? "weather::vadv_column_reg" : "weather::vadv_column_smem");
  return true;
}

}  // namespace tessera::weather::detail
#endif
