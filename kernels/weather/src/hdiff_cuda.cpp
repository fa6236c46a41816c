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

#include <cstdint>
#include <cstdlib>
#include <string>

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/error.hpp"
#include "tessera/weather/hdiff.hpp"

namespace tessera::weather::detail {
namespace {

// Warp-marching form: a warp covers 32 adjacent columns i (lanes 2..29 produce output, 28 per warp)
// and marches up a strip of rows j in registers. Per row it loads one new value of `in` per lane
// (D + 2 rows ahead of the output row, so D rows of loads are in flight) and one coefficient; the
// x-neighbours of `in` and of the Laplacian come from the neighbouring lanes by shuffles, the
// y-neighbours from the registers of the previous rows. No shared memory, no barriers, and every
// global load is a coalesced row.
constexpr int kOut = 28;  // outputs per warp along x
constexpr int kMarchWarps = 4;
constexpr unsigned kAll = 0xffffffffu;

template <int D>
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
  auto east = [](double v) { return __shfl_down_sync(kAll, v, 1); };  // the value of lane + 1
  auto west = [](double v) { return __shfl_up_sync(kAll, v, 1); };    // the value of lane - 1
  // At output row j: a[m] = in(row j - 1 + m), m = 0 .. D + 3; cf[m] = coeff(row j + m), m = 0 .. D.
  double a[D + 4], cf[D + 1];
  const double am2 = ld(js - 2);
#pragma unroll
  for (int m = 0; m < D + 3; ++m) a[m] = ld(js - 1 + m);
#pragma unroll
  for (int m = 0; m < D; ++m) cf[m] = ldc(js + m);
  double lm1 = HdiffPoint::lap5(a[0], east(a[0]), west(a[0]), a[1], am2);
  double e0 = east(a[1]), w0 = west(a[1]);
  double l0 = HdiffPoint::lap5(a[1], e0, w0, a[2], a[0]);
  for (int64_t j = js; j < je; ++j) {
    a[D + 3] = ld(j + D + 2);  // prefetch
    cf[D] = ldc(j + D);
    const double e1 = east(a[2]), w1 = west(a[2]);
    const double l1 = HdiffPoint::lap5(a[2], e1, w1, a[3], a[1]);  // lap(i, j+1)
    const double le = east(l0), lw = west(l0);
    const double fe = HdiffPoint::limit(l0, le, a[1], e0);
    const double fw = HdiffPoint::limit(lw, l0, w0, a[1]);
    const double fn = HdiffPoint::limit(l0, l1, a[1], a[2]);
    const double fs = HdiffPoint::limit(lm1, l0, a[0], a[1]);
    if (out_ok) out[base + sx * (j - js)] = HdiffPoint::combine(a[1], fe, fw, fn, fs, cf[0]);
#pragma unroll
    for (int m = 0; m < D + 3; ++m) a[m] = a[m + 1];
#pragma unroll
    for (int m = 0; m < D; ++m) cf[m] = cf[m + 1];
    lm1 = l0, l0 = l1, e0 = e1, w0 = w1;
  }
}

// Two columns per lane: lane l holds columns i0 = 60 b - 2 + 2 l and i0 + 1 as one 16-byte load, so a
// warp covers 64 columns and lanes 1..30 produce 60 outputs (the x halo re-read drops from 4/28 to
// 4/60 and each load instruction moves twice the bytes). Needs 16-byte aligned rows: an even row
// pitch sx and 16-byte aligned arrays (the caller checks, else the one-column form runs). Within a
// lane the east neighbour of column i0 is i0 + 1 and the west neighbour of i0 + 1 is i0; across lanes
// the neighbours come by shuffles. The west face of column i0 + 1 is the east face of i0: one limited
// flux serves both (the same expression as the one-column form, so the bits match).
constexpr int kOut2 = 60;

template <int D>
__global__ void __launch_bounds__(32 * kMarchWarps) hdiff_march2(Grid G, const double* __restrict__ in,
                                                                const double* __restrict__ coeff, double coeff0,
                                                                double* __restrict__ out, int strip) {
  const int lane = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * kOut2 - 2 + 2 * lane;  // first of this lane's two columns
  const int64_t js = (int64_t(blockIdx.y) * kMarchWarps + threadIdx.y) * strip;
  if (js >= G.ny) return;
  const int64_t je = js + strip < G.ny ? js + strip : G.ny;
  const int64_t sx = G.sx(), lvl = G.plane() * int64_t(blockIdx.z);
  const bool col_ok = i < G.nx + 2;  // both columns inside the allocation (sx even)
  const bool out0 = lane >= 1 && lane <= 30 && i < G.nx, out1 = out0 && i + 1 < G.nx;
  const int64_t base = lvl + G.idx(col_ok ? i : 0, js);
  auto ld = [&](int64_t j) {
    return col_ok && j <= je + 1 ? __ldg(reinterpret_cast<const double2*>(in + base + sx * (j - js)))
                                 : make_double2(0.0, 0.0);
  };
  auto ldc = [&](int64_t j) {
    return coeff ? (out0 && j < je ? __ldg(reinterpret_cast<const double2*>(coeff + base + sx * (j - js)))
                                   : make_double2(0.0, 0.0))
                 : make_double2(coeff0, coeff0);
  };
  auto east = [](double v) { return __shfl_down_sync(kAll, v, 1); };
  auto west = [](double v) { return __shfl_up_sync(kAll, v, 1); };
  // Laplacian of both columns of a row r (north n, south s); E = east(r.x), W = west(r.y).
  auto lap2 = [](double2 r, double E, double W, double2 n, double2 s) {
    return make_double2(HdiffPoint::lap5(r.x, r.y, W, n.x, s.x), HdiffPoint::lap5(r.y, E, r.x, n.y, s.y));
  };
  double2 a[D + 4], cf[D + 1];
  const double2 am2 = ld(js - 2);
#pragma unroll
  for (int m = 0; m < D + 3; ++m) a[m] = ld(js - 1 + m);
#pragma unroll
  for (int m = 0; m < D; ++m) cf[m] = ldc(js + m);
  double2 lm1 = lap2(a[0], east(a[0].x), west(a[0].y), a[1], am2);
  double e0 = east(a[1].x), w0 = west(a[1].y);
  double2 l0 = lap2(a[1], e0, w0, a[2], a[0]);
  for (int64_t j = js; j < je; ++j) {
    a[D + 3] = ld(j + D + 2);
    cf[D] = ldc(j + D);
    const double e1 = east(a[2].x), w1 = west(a[2].y);
    const double2 l1 = lap2(a[2], e1, w1, a[3], a[1]);
    const double le = east(l0.x), lw = west(l0.y);
    const double2 c = a[1];
    const double fmid = HdiffPoint::limit(l0.x, l0.y, c.x, c.y);  // east face of x = west face of y
    const double fe0 = fmid, fw0 = HdiffPoint::limit(lw, l0.x, w0, c.x);
    const double fe1 = HdiffPoint::limit(l0.y, le, c.y, e0), fw1 = fmid;
    const double fn0 = HdiffPoint::limit(l0.x, l1.x, c.x, a[2].x), fn1 = HdiffPoint::limit(l0.y, l1.y, c.y, a[2].y);
    const double fs0 = HdiffPoint::limit(lm1.x, l0.x, a[0].x, c.x), fs1 = HdiffPoint::limit(lm1.y, l0.y, a[0].y, c.y);
    const double o0 = HdiffPoint::combine(c.x, fe0, fw0, fn0, fs0, cf[0].x);
    const double o1 = HdiffPoint::combine(c.y, fe1, fw1, fn1, fs1, cf[0].y);
    double* po = out + base + sx * (j - js);
    if (out1) *reinterpret_cast<double2*>(po) = make_double2(o0, o1);
    else if (out0) *po = o0;
#pragma unroll
    for (int m = 0; m < D + 3; ++m) a[m] = a[m + 1];
#pragma unroll
    for (int m = 0; m < D; ++m) cf[m] = cf[m + 1];
    lm1 = l0, l0 = l1, e0 = e1, w0 = w1;
  }
}

template <int D>
void launch_march(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                  double* out, int strip, bool two) {
  const int64_t strips = (gr.ny + strip - 1) / strip;
  TESSERA_REQUIRE((strips + kMarchWarps - 1) / kMarchWarps <= 65535,
                  "weather::hdiff_march: too many rows per rank for TESSERA_HDIFF_STRIP (raise it)");
  const int out_per_warp = two ? kOut2 : kOut;
  const dim3 grid(unsigned((gr.nx + out_per_warp - 1) / out_per_warp),
                  unsigned((strips + kMarchWarps - 1) / kMarchWarps), unsigned(gr.nz));
  const cudaStream_t s = static_cast<cudaStream_t>(ex.stream);
  if (two) hdiff_march2<D><<<grid, dim3(32, kMarchWarps), 0, s>>>(gr, in, coeff, coeff0, out, strip);
  else hdiff_march<D><<<grid, dim3(32, kMarchWarps), 0, s>>>(gr, in, coeff, coeff0, out, strip);
  TESSERA_CUDA_CHECK_LAUNCH(two ? "weather::hdiff_march2" : "weather::hdiff_march");
}

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

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

}  // namespace

void hdiff_cuda(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                double* out) {
  TESSERA_REQUIRE(gr.g >= 2, "horizontal diffusion needs ghost width >= 2");
  TESSERA_REQUIRE(gr.nz <= 65535, "weather::hdiff_march: at most 65535 levels per rank (one grid row per level)");
  if (gr.nx <= 0 || gr.ny <= 0 || gr.nz <= 0) return;
  // Benchmark knobs, read per call (tests switch them): TESSERA_HDIFF_STRIP = rows per warp,
  // TESSERA_HDIFF_AHEAD = rows of loads in flight (2..4), TESSERA_HDIFF_COLUMNS = columns per lane
  // (1 or 2; 2 needs 16-byte aligned rows, else 1 runs).
  const int strip = env_int("TESSERA_HDIFF_STRIP", 16, 1, 4096);
  const int ahead = env_int("TESSERA_HDIFF_AHEAD", 2, 2, 4);
  const bool two = env_int("TESSERA_HDIFF_COLUMNS", 1, 1, 2) == 2 && gr.sx() % 2 == 0 && aligned16(in) &&
                   aligned16(out) && (!coeff || aligned16(coeff));
  if (ahead == 2) launch_march<2>(ex, gr, in, coeff, coeff0, out, strip, two);
  else if (ahead == 3) launch_march<3>(ex, gr, in, coeff, coeff0, out, strip, two);
  else launch_march<4>(ex, gr, in, coeff, coeff0, out, strip, two);
}

}  // namespace tessera::weather::detail
#endif
