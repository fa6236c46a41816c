// The tuned CUDA COSMO horizontal diffusion (Xue 2000; formulas in hdiff.hpp): a warp per 28 output
// columns marching up a strip of rows in registers (below). It reads each input once from device memory
// per warp (the 2-column and 2-row halos shared with neighbouring warps come from L2) and writes the
// output once: the protocol's 3 x 8 B per point. The portable form recomputes five Laplacians per point
// through L1 (55-64 % of the copy bandwidth, bench/results/20261130T0057Z-*). A shared-memory tile per
// (32 x 8 cells, level), Laplacian and fluxes staged in shared memory, measured 49-53 %: its staging,
// two barriers and shared-memory traffic per point cost more than they saved (docs/performance.md).
// The point formulas are HdiffPoint's static functions, so results are bit-identical to hdiff_portable
// on the device (tests/weather/test_cosmo_tuned.cpp).
#include "cosmo_cuda.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/error.hpp"
#include "tessera/weather/hdiff.hpp"

namespace tessera::weather::detail {
namespace {

// Warp-marching form: a warp covers 32 adjacent columns i (lanes 2..29 produce output, 28 per warp)
// and marches up a strip of rows j in registers. Per row it loads one new value of `in` per lane
// (two rows ahead) and one coefficient; the x-neighbours of `in` and of the Laplacian come from the
// neighbouring lanes by shuffles, the y-neighbours from the registers of the previous rows. No shared
// memory, no barriers, and every global load is a coalesced row.
constexpr int kOut = 28;  // outputs per warp along x
constexpr int kMarchWarps = 4;

__global__ void __launch_bounds__(32 * kMarchWarps) hdiff_march(Grid G, const double* __restrict__ in,
                                                               const double* __restrict__ coeff, double coeff0,
                                                               double* __restrict__ out, int strip) {
  const int lane = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * kOut - 2 + lane;
  const int64_t js = (int64_t(blockIdx.y) * kMarchWarps + threadIdx.y) * strip;
  if (js >= G.ny) return;  // the whole warp (threadIdx.y is uniform over a warp)
  const int64_t je = js + strip < G.ny ? js + strip : G.ny;
  const int64_t sx = G.sx(), lvl = G.plane() * int64_t(blockIdx.z);
  const bool col_ok = i < G.nx + 2;                        // inside the allocation (ghosts included)
  const bool out_ok = lane >= 2 && lane < 2 + kOut && i < G.nx;
  const int64_t base = lvl + G.idx(col_ok ? i : 0, js);    // (i, js) of this level
  // Rows js-2 .. je+1 are read; past those (or past the allocation) a lane reads nothing.
  auto ld = [&](int64_t j) { return col_ok && j <= je + 1 ? __ldg(in + base + sx * (j - js)) : 0.0; };
  auto ldc = [&](int64_t j) { return coeff ? (out_ok && j < je ? __ldg(coeff + base + sx * (j - js)) : 0.0) : coeff0; };
  constexpr unsigned all = 0xffffffffu;
  auto east = [&](double v) { return __shfl_down_sync(all, v, 1); };  // the value of lane + 1
  auto west = [&](double v) { return __shfl_up_sync(all, v, 1); };    // the value of lane - 1
  const double am2 = ld(js - 2);
  double am1 = ld(js - 1), a0 = ld(js), a1 = ld(js + 1), a2 = ld(js + 2), a3 = ld(js + 3);
  double cf0 = ldc(js), cf1 = ldc(js + 1);
  double lm1 = HdiffPoint::lap5(am1, east(am1), west(am1), a0, am2);
  double e0 = east(a0), w0 = west(a0);
  double l0 = HdiffPoint::lap5(a0, e0, w0, a1, am1);
  for (int64_t j = js; j < je; ++j) {
    const double a4 = ld(j + 4), cf2 = ldc(j + 2);  // prefetch
    const double e1 = east(a1), w1 = west(a1);
    const double l1 = HdiffPoint::lap5(a1, e1, w1, a2, a0);  // lap(i, j+1)
    const double le = east(l0), lw = west(l0);
    const double fe = HdiffPoint::limit(l0, le, a0, e0);
    const double fw = HdiffPoint::limit(lw, l0, w0, a0);
    const double fn = HdiffPoint::limit(l0, l1, a0, a1);
    const double fs = HdiffPoint::limit(lm1, l0, am1, a0);
    if (out_ok) out[base + sx * (j - js)] = HdiffPoint::combine(a0, fe, fw, fn, fs, cf0);
    am1 = a0, a0 = a1, a1 = a2, a2 = a3, a3 = a4;
    lm1 = l0, l0 = l1, e0 = e1, w0 = w1;
    cf0 = cf1, cf1 = cf2;
  }
}

void launch_march(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                  double* out, int strip) {
  const int64_t strips = (gr.ny + strip - 1) / strip;
  TESSERA_REQUIRE((strips + kMarchWarps - 1) / kMarchWarps <= 65535,
                  "weather::hdiff_march: too many rows per rank for TESSERA_HDIFF_STRIP (raise it)");
  const dim3 grid(unsigned((gr.nx + kOut - 1) / kOut), unsigned((strips + kMarchWarps - 1) / kMarchWarps),
                  unsigned(gr.nz));
  hdiff_march<<<grid, dim3(32, kMarchWarps), 0, static_cast<cudaStream_t>(ex.stream)>>>(gr, in, coeff, coeff0, out,
                                                                                       strip);
  TESSERA_CUDA_CHECK_LAUNCH("weather::hdiff_march");
}

// Whole-strip form: the same warp of 32 columns (28 outputs), but a strip of a compile-time R rows is
// loaded into registers at once (R + 4 rows of `in`, R coefficients) before any arithmetic, so one memory
// latency per warp instead of one per two rows; the arithmetic then walks the rows as the march does.
template <int R>
__global__ void __launch_bounds__(32 * kMarchWarps) hdiff_strip(Grid G, const double* __restrict__ in,
                                                               const double* __restrict__ coeff, double coeff0,
                                                               double* __restrict__ out) {
  const int lane = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * kOut - 2 + lane;
  const int64_t js = (int64_t(blockIdx.y) * kMarchWarps + threadIdx.y) * R;
  if (js >= G.ny) return;  // the whole warp
  const int64_t je = js + R < G.ny ? js + R : G.ny;
  const int64_t sx = G.sx(), lvl = G.plane() * int64_t(blockIdx.z);
  const bool col_ok = i < G.nx + 2;
  const bool out_ok = lane >= 2 && lane < 2 + kOut && i < G.nx;
  const int64_t base = lvl + G.idx(col_ok ? i : 0, js);
  constexpr unsigned all = 0xffffffffu;
  auto east = [](double v) { return __shfl_down_sync(all, v, 1); };
  auto west = [](double v) { return __shfl_up_sync(all, v, 1); };
  double a[R + 4], cf[R];  // a[m] = in(row js - 2 + m); cf[m] = coeff(row js + m)
#pragma unroll
  for (int m = 0; m < R + 4; ++m) a[m] = col_ok && js - 2 + m <= je + 1 ? __ldg(in + base + sx * (m - 2)) : 0.0;
#pragma unroll
  for (int m = 0; m < R; ++m)
    cf[m] = coeff ? (out_ok && js + m < je ? __ldg(coeff + base + sx * m) : 0.0) : coeff0;
  double lm1 = HdiffPoint::lap5(a[1], east(a[1]), west(a[1]), a[2], a[0]);
  double e0 = east(a[2]), w0 = west(a[2]);
  double l0 = HdiffPoint::lap5(a[2], e0, w0, a[3], a[1]);
#pragma unroll
  for (int m = 0; m < R; ++m) {  // output row js + m: in at a[m + 2]
    const double e1 = east(a[m + 3]), w1 = west(a[m + 3]);
    const double l1 = HdiffPoint::lap5(a[m + 3], e1, w1, a[m + 4], a[m + 2]);
    const double le = east(l0), lw = west(l0);
    const double fe = HdiffPoint::limit(l0, le, a[m + 2], e0);
    const double fw = HdiffPoint::limit(lw, l0, w0, a[m + 2]);
    const double fn = HdiffPoint::limit(l0, l1, a[m + 2], a[m + 3]);
    const double fs = HdiffPoint::limit(lm1, l0, a[m + 1], a[m + 2]);
    if (out_ok && js + m < je) out[base + sx * m] = HdiffPoint::combine(a[m + 2], fe, fw, fn, fs, cf[m]);
    lm1 = l0, l0 = l1, e0 = e1, w0 = w1;
  }
}

// Whole-strip form with the y halo shared in the block: the four warps of a block take four consecutive
// strips of R rows, load only their own rows (the first and last warp also the block's outer 2-row
// halos), and pass their first and last two rows to the neighbouring warps through shared memory (one
// barrier). `in` is then read (4 R + 4) / (4 R) times from L2 instead of (R + 4) / R.
template <int R>
__global__ void __launch_bounds__(32 * kMarchWarps) hdiff_strip_shared(Grid G, const double* __restrict__ in,
                                                                      const double* __restrict__ coeff,
                                                                      double coeff0, double* __restrict__ out) {
  __shared__ double edge[kMarchWarps][4][32];  // per warp: its rows js, js+1, js+R-2, js+R-1
  const int lane = threadIdx.x, wy = threadIdx.y;
  const int64_t i = int64_t(blockIdx.x) * kOut - 2 + lane;
  const int64_t js = (int64_t(blockIdx.y) * kMarchWarps + wy) * R;  // may lie past ny: no output then
  const int64_t je = js + R < G.ny ? js + R : G.ny;
  const int64_t sx = G.sx(), lvl = G.plane() * int64_t(blockIdx.z);
  const bool col_ok = i < G.nx + 2;
  const bool out_ok = lane >= 2 && lane < 2 + kOut && i < G.nx;
  const int64_t base = lvl + G.idx(col_ok ? i : 0, 0);  // row 0 of this level and column
  // Rows -2 .. ny+1 are allocated; a row past them is never used by an output.
  auto ld = [&](int64_t j) { return col_ok && j <= G.ny + 1 ? __ldg(in + base + sx * j) : 0.0; };
  constexpr unsigned all = 0xffffffffu;
  auto east = [](double v) { return __shfl_down_sync(all, v, 1); };
  auto west = [](double v) { return __shfl_up_sync(all, v, 1); };
  double a[R + 4], cf[R];  // a[m] = in(row js - 2 + m); cf[m] = coeff(row js + m)
#pragma unroll
  for (int m = 0; m < R; ++m) a[m + 2] = ld(js + m);
  if (wy == 0) a[0] = ld(js - 2), a[1] = ld(js - 1);
  if (wy == kMarchWarps - 1) a[R + 2] = ld(js + R), a[R + 3] = ld(js + R + 1);
#pragma unroll
  for (int m = 0; m < R; ++m)
    cf[m] = coeff ? (out_ok && js + m < je ? __ldg(coeff + base + sx * (js + m)) : 0.0) : coeff0;
  edge[wy][0][lane] = a[2];
  edge[wy][1][lane] = a[3];
  edge[wy][2][lane] = a[R];
  edge[wy][3][lane] = a[R + 1];
  __syncthreads();
  if (wy > 0) a[0] = edge[wy - 1][2][lane], a[1] = edge[wy - 1][3][lane];
  if (wy < kMarchWarps - 1) a[R + 2] = edge[wy + 1][0][lane], a[R + 3] = edge[wy + 1][1][lane];
  double lm1 = HdiffPoint::lap5(a[1], east(a[1]), west(a[1]), a[2], a[0]);
  double e0 = east(a[2]), w0 = west(a[2]);
  double l0 = HdiffPoint::lap5(a[2], e0, w0, a[3], a[1]);
#pragma unroll
  for (int m = 0; m < R; ++m) {
    const double e1 = east(a[m + 3]), w1 = west(a[m + 3]);
    const double l1 = HdiffPoint::lap5(a[m + 3], e1, w1, a[m + 4], a[m + 2]);
    const double le = east(l0), lw = west(l0);
    const double fe = HdiffPoint::limit(l0, le, a[m + 2], e0);
    const double fw = HdiffPoint::limit(lw, l0, w0, a[m + 2]);
    const double fn = HdiffPoint::limit(l0, l1, a[m + 2], a[m + 3]);
    const double fs = HdiffPoint::limit(lm1, l0, a[m + 1], a[m + 2]);
    if (out_ok && js + m < je) out[base + sx * (js + m)] = HdiffPoint::combine(a[m + 2], fe, fw, fn, fs, cf[m]);
    lm1 = l0, l0 = l1, e0 = e1, w0 = w1;
  }
}

template <int R, bool Shared>
void launch_strip(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                  double* out) {
  const int64_t strips = (gr.ny + R - 1) / R;
  TESSERA_REQUIRE((strips + kMarchWarps - 1) / kMarchWarps <= 65535, "weather::hdiff_strip: too many rows per rank");
  const dim3 grid(unsigned((gr.nx + kOut - 1) / kOut), unsigned((strips + kMarchWarps - 1) / kMarchWarps),
                  unsigned(gr.nz));
  const cudaStream_t s = static_cast<cudaStream_t>(ex.stream);
  if (Shared) hdiff_strip_shared<R><<<grid, dim3(32, kMarchWarps), 0, s>>>(gr, in, coeff, coeff0, out);
  else hdiff_strip<R><<<grid, dim3(32, kMarchWarps), 0, s>>>(gr, in, coeff, coeff0, out);
  TESSERA_CUDA_CHECK_LAUNCH("weather::hdiff_strip");
}

// TESSERA_HDIFF_STRIP = rows per warp (default 16) for benchmarking; measured on an H200 at 256^2 / 1024^2
// x 80: 16 rows 66.6 / 82.0 %, 32 rows 64.9 / 80.7 % of the copy bandwidth (docs/performance.md).
int env_int(const char* name, int dflt, int lo, int hi) {
  const char* e = std::getenv(name);
  if (!e || !*e) return dflt;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  if (*end != '\0' || v < lo || v > hi)
    TESSERA_THROW(std::string(name) + "='" + e + "': expected an integer in [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
  return int(v);
}

}  // namespace

void hdiff_cuda(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                double* out) {
  TESSERA_REQUIRE(gr.g >= 2, "horizontal diffusion needs ghost width >= 2");
  TESSERA_REQUIRE(gr.nz <= 65535, "weather::hdiff_march: at most 65535 levels per rank (one grid row per level)");
  if (gr.nx <= 0 || gr.ny <= 0 || gr.nz <= 0) return;
  // Benchmark knobs, read per call (tests switch them): TESSERA_HDIFF_KERNEL = march (default), strip8 or
  // strip16 (whole-strip loads, 8 or 16 rows); TESSERA_HDIFF_STRIP = the march's rows per warp.
  const char* e = std::getenv("TESSERA_HDIFF_KERNEL");
  const std::string kind = e && *e ? e : "march";
  if (kind == "strip8") launch_strip<8, false>(ex, gr, in, coeff, coeff0, out);
  else if (kind == "strip16") launch_strip<16, false>(ex, gr, in, coeff, coeff0, out);
  else if (kind == "shared8") launch_strip<8, true>(ex, gr, in, coeff, coeff0, out);
  else if (kind == "shared16") launch_strip<16, true>(ex, gr, in, coeff, coeff0, out);
  else if (kind == "march") launch_march(ex, gr, in, coeff, coeff0, out, env_int("TESSERA_HDIFF_STRIP", 16, 1, 4096));
  else TESSERA_THROW("TESSERA_HDIFF_KERNEL='" + kind + "': expected march, strip8, strip16, shared8 or shared16");
}

}  // namespace tessera::weather::detail
#endif
