// CUDA shared-memory shallow-water stage (see sw_tiled.hpp). Compiled by nvcc in CUDA builds; host-only
// builds get a dispatcher that declines, so sw_stage takes the portable path.
#include "tessera/weather/sw_tiled.hpp"

#include <cstdlib>
#include <string>

#include "tessera/weather/sw_rates.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::weather {

#if TESSERA_CUDA_COMPILER
namespace {
struct StageArgs {
  Grid gr;
  SwParams p;
  SwConstView s0, sk;
  SwView out;
  double a, c, dt;
  int64_t ri0, ri1, rj0, rj1;  // the CellRect
  bool wrap_x, wrap_y;         // also write the periodic ghost images of the output (one rank per axis)
  SwMetric m;
};

// U, V, q, B (and the Arakawa-Lamb cell coefficients) of the tile from shared memory, addressed by
// patch indices (i, j) like SwPoint.
template <int kMidX>
struct TileSource {
  const double *U_, *V_, *q_, *B_;
  int64_t oi, oj;  // patch index of tile point (-1, -1)
  __device__ int at(int64_t i, int64_t j) const { return int(j - oj) * kMidX + int(i - oi); }
  __device__ double U(int64_t i, int64_t j) const { return U_[at(i, j)]; }
  __device__ double V(int64_t i, int64_t j) const { return V_[at(i, j)]; }
  __device__ double q(int64_t i, int64_t j) const { return q_[at(i, j)]; }
  __device__ double B(int64_t i, int64_t j) const { return B_[at(i, j)]; }
};
template <int kMidX>
struct TileSourceAL : TileSource<kMidX> {
  const double *a_, *d_, *e_, *p_;  // per cell, same layout
  __device__ double al_a(int64_t i, int64_t j) const { return a_[this->at(i, j)]; }
  __device__ double al_d(int64_t i, int64_t j) const { return d_[this->at(i, j)]; }
  __device__ double al_eps(int64_t i, int64_t j) const { return e_[this->at(i, j)]; }
  __device__ double al_phi(int64_t i, int64_t j) const { return p_[this->at(i, j)]; }
};

// Tile of kTileX x kTileY cells, kTileX x kThreadsY threads (kR = kTileY / kThreadsY rows of cells each),
// at least kMinBlocks resident blocks per SM (caps registers; the stage is bound by memory latency).
// Phases: s^n of the thread's cells requested first (in flight during the rest; not read at all when
// s^n is s_k, as in a step's first stage); raw s_k, b into
// shared memory (all loads issued before any store); U, V, q, B; for Arakawa-Lamb the cell
// coefficients alpha..phi (into the raw arrays, whose centre values the threads keep in registers);
// tendencies and the SSP-RK combination.
template <int kTileX, int kTileY, int kThreadsY, int kMinBlocks>
__global__ void __launch_bounds__(kTileX * kThreadsY, kMinBlocks) sw_stage_tile(const StageArgs A) {
  constexpr int kRawX = kTileX + 4, kRawY = kTileY + 4;  // h, u, v, b on [-2, T+1]
  constexpr int kMidX = kTileX + 2, kMidY = kTileY + 2;  // U, V, q, B on [-1, T]
  constexpr int kThreads = kTileX * kThreadsY, kR = kTileY / kThreadsY;
  constexpr int kRawIters = (kRawX * kRawY + kThreads - 1) / kThreads;
  static_assert(kMidX * kMidY <= kRawX * kRawY, "cell coefficients reuse the raw arrays");
  __shared__ double sh[kRawY * kRawX], su[kRawY * kRawX], sv[kRawY * kRawX], sb[kRawY * kRawX];
  __shared__ double mU[kMidY * kMidX], mV[kMidY * kMidX], mq[kMidY * kMidX], mB[kMidY * kMidX];
  const Grid& G = A.gr;
  const int64_t ti = A.ri0 + int64_t(blockIdx.x) * kTileX, tj = A.rj0 + int64_t(blockIdx.y) * kTileY;
  const int tid = threadIdx.y * kTileX + threadIdx.x;
  const int64_t i = ti + threadIdx.x;
  // 0. s^n at this thread's cells. In the first stage of a step s^n is s_k itself (the same arrays):
  //    then it is taken from the tile below instead of being read a second time from memory.
  const bool s0_is_sk = A.s0.h == A.sk.h && A.s0.u == A.sk.u && A.s0.v == A.sk.v;
  double h0[kR], u0[kR], v0[kR];
  if (!s0_is_sk) {
#pragma unroll
    for (int r = 0; r < kR; ++r) {
      const int64_t j = tj + threadIdx.y + r * kThreadsY;
      const bool in = i < A.ri1 && j < A.rj1;
      const int64_t n = in ? G.idx(i, j) : G.idx(0, 0);
      h0[r] = __ldg(A.s0.h + n);
      u0[r] = __ldg(A.s0.u + n);
      v0[r] = __ldg(A.s0.v + n);
    }
  }
  // 1. raw fields on [-2, T+1] around the tile; points outside the allocated patch are never used by a
  //    cell inside the rect (a rect lies inside the interior, ghosts are >= 2 wide), so they read zero.
  //    b is read only on [-1, T], where B needs it.
  {
    double rh[kRawIters], ru[kRawIters], rv[kRawIters], rb[kRawIters];
#pragma unroll
    for (int k = 0; k < kRawIters; ++k) {
      const int m = tid + k * kThreads;
      const int x = m % kRawX, y = m / kRawX;
      const int64_t ii = ti + x - 2, jj = tj + y - 2;
      const bool in = m < kRawX * kRawY && ii >= -G.g && ii < G.nx + G.g && jj >= -G.g && jj < G.ny + G.g;
      const int64_t n = in ? G.idx(ii, jj) : 0;
      rh[k] = in ? __ldg(A.sk.h + n) : 0.0;
      ru[k] = in ? __ldg(A.sk.u + n) : 0.0;
      rv[k] = in ? __ldg(A.sk.v + n) : 0.0;
      const bool inb = in && x >= 1 && x <= kRawX - 2 && y >= 1 && y <= kRawY - 2;
      rb[k] = inb ? __ldg(A.sk.b + n) : 0.0;
    }
#pragma unroll
    for (int k = 0; k < kRawIters; ++k) {
      const int m = tid + k * kThreads;
      if (m < kRawX * kRawY) {
        sh[m] = rh[k];
        su[m] = ru[k];
        sv[m] = rv[k];
        sb[m] = rb[k];
      }
    }
  }
  __syncthreads();
  // 2. U, V, q, B on [-1, T] (raw index = mid index + 1).
  for (int m = tid; m < kMidX * kMidY; m += kThreads) {
    const int x = m % kMidX + 1, y = m / kMidX + 1;
    const int c = y * kRawX + x, w = c - 1, s = c - kRawX, e = c + 1, no = c + kRawX;
    const int64_t j = tj + y - 2;
    mU[m] = sw_flux(sh[w], sh[c], su[c]);
    mV[m] = sw_flux(sh[s], sh[c], sv[c]);
    mq[m] = sw_pv(coriolis_corner(A.p, G.dy, G.j0 + j), sv[c], sv[w], su[c], su[s], sh[c], sh[w], sh[s], sh[s - 1],
                  A.m);
    mB[m] = sw_bernoulli(A.p.gravity, sh[c], sb[c], su[c], su[e], sv[c], sv[no]);
  }
  double hk[kR], uk[kR], vk[kR];  // s_k at this thread's cells
#pragma unroll
  for (int r = 0; r < kR; ++r) {
    const int c = (threadIdx.y + r * kThreadsY + 2) * kRawX + threadIdx.x + 2;
    hk[r] = sh[c];
    uk[r] = su[c];
    vk[r] = sv[c];
    if (s0_is_sk) {
      h0[r] = hk[r];
      u0[r] = uk[r];
      v0[r] = vk[r];
    }
  }
  __syncthreads();
  const TileSource<kMidX> S{mU, mV, mq, mB, ti - 1, tj - 1};
  const SwScheme sc = A.p.scheme;
  auto finish = [&](const auto& src) {
    if (i >= A.ri1) return;
#pragma unroll
    for (int r = 0; r < kR; ++r) {
      const int64_t j = tj + threadIdx.y + r * kThreadsY;
      if (j >= A.rj1) break;
      const int64_t n = G.idx(i, j);
      const double oh = A.a * h0[r] + A.c * (hk[r] + A.dt * sw_rate_h(src, A.m, i, j));
      const bool uw = A.p.wall_x && G.i0 + i == 0, vw = A.p.wall_y && G.j0 + j == 0;
      const double ou = uw ? 0.0 : A.a * u0[r] + A.c * (uk[r] + A.dt * sw_rate_u(src, sc, A.m, i, j));
      const double ov = vw ? 0.0 : A.a * v0[r] + A.c * (vk[r] + A.dt * sw_rate_v(src, sc, A.m, i, j));
      A.out.h[n] = oh;
      A.out.u[n] = ou;
      A.out.v[n] = ov;
      // periodic ghost images (the values fill_periodic_x then _y would copy, corners included)
      const int64_t ix = !A.wrap_x ? i : i < G.g ? i + G.nx : i >= G.nx - G.g ? i - G.nx : i;
      const int64_t jy = !A.wrap_y ? j : j < G.g ? j + G.ny : j >= G.ny - G.g ? j - G.ny : j;
      if (ix != i || jy != j) {
        const int64_t img[3] = {G.idx(ix, j), G.idx(i, jy), G.idx(ix, jy)};
        for (int k = 0; k < 3; ++k)
          if (img[k] != n) {
            A.out.h[img[k]] = oh;
            A.out.u[img[k]] = ou;
            A.out.v[img[k]] = ov;
          }
      }
    }
  };
  if (sc == SwScheme::SadournyEnergy) {
    finish(S);
    return;
  }
  // 3. Arakawa-Lamb coefficients of cells [-1, T) (what the faces of the tile read), into the raw arrays.
  for (int m = tid; m < kMidX * kMidY; m += kThreads) {
    const int x = m % kMidX, y = m / kMidX;
    if (x == kMidX - 1 || y == kMidY - 1) continue;
    const int64_t ci = ti - 1 + x, cj = tj - 1 + y;
    sh[m] = al81::a_from_q(S, ci, cj);
    su[m] = al81::d_from_q(S, ci, cj);
    sv[m] = al81::eps_from_q(S, ci, cj);
    sb[m] = al81::phi_from_q(S, ci, cj);
  }
  __syncthreads();
  TileSourceAL<kMidX> SA;
  static_cast<TileSource<kMidX>&>(SA) = S;
  SA.a_ = sh;
  SA.d_ = su;
  SA.e_ = sv;
  SA.p_ = sb;
  finish(SA);
}

// Tile shape and minimum resident blocks, chosen at run time by TESSERA_SW_TILE (tuning; default
// "32x16"): "32x16" (32 x 8 threads, two rows each, 4 blocks/SM), "32x16m3" (the same, 3 blocks/SM: no
// register cap below 80), "64x8" (64 x 4 threads, two rows, 4 blocks/SM), "64x8m3" (3 blocks/SM).
// Measured on an H200 (docs/performance.md): 32x16 best; 5 blocks/SM (51 registers) and 32x8 tiles
// (one row per thread, 6 blocks/SM) were 10-20 points slower and were dropped.
// Static shared memory (4 raw + 4 derived arrays of doubles) stays under 48 KiB for all four.
int tile_variant() {
  static const int v = [] {
    const char* e = std::getenv("TESSERA_SW_TILE");
    const std::string s = e ? e : "";
    return s == "32x16m3" ? 1 : s == "64x8" ? 2 : s == "64x8m3" ? 3 : 0;
  }();
  return v;
}

template <int TX, int TY, int THY, int MB>
void launch(const exec::Exec& ex, const StageArgs& A) {
  const dim3 block(TX, THY);
  const dim3 grid(unsigned((A.ri1 - A.ri0 + TX - 1) / TX), unsigned((A.rj1 - A.rj0 + TY - 1) / TY));
  sw_stage_tile<TX, TY, THY, MB><<<grid, block, 0, static_cast<cudaStream_t>(ex.stream)>>>(A);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

bool run_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
               double a, double c, double dt, const CellRect& r, bool wrap_x, bool wrap_y) {
  if (!ex.on_device()) return false;
  static const bool disabled = [] {
    const char* e = std::getenv("TESSERA_WEATHER_PORTABLE");
    return e && e[0] == '1';
  }();
  if (disabled) return false;
  const StageArgs A{gr, p, s0, sk, out, a, c, dt, r.i0, r.i1, r.j0, r.j1, wrap_x, wrap_y, sw_metric(gr.dx, gr.dy)};
  switch (tile_variant()) {
    case 1: launch<32, 16, 8, 3>(ex, A); break;
    case 2: launch<64, 8, 4, 4>(ex, A); break;
    case 3: launch<64, 8, 4, 3>(ex, A); break;
    default: launch<32, 16, 8, 4>(ex, A); break;
  }
  return true;
}
}  // namespace

bool sw_stage_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                    SwView out, double a, double c, double dt, const CellRect& r) {
  return run_tiled(ex, gr, p, s0, sk, out, a, c, dt, r, false, false);
}

bool sw_stage_tiled_wrap(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                         SwView out, double a, double c, double dt) {
  // the images are only valid when this rank holds the whole periodic axis and every ghost has a source
  const bool wx = !p.wall_x && gr.nx == gr.gnx && gr.nx >= gr.g, wy = !p.wall_y && gr.ny == gr.gny && gr.ny >= gr.g;
  return run_tiled(ex, gr, p, s0, sk, out, a, c, dt, CellRect{0, gr.nx, 0, gr.ny}, wx, wy);
}
#else
bool sw_stage_tiled(const exec::Exec&, const Grid&, const SwParams&, SwConstView, SwConstView, SwView, double, double,
                    double, const CellRect&) {
  return false;
}
bool sw_stage_tiled_wrap(const exec::Exec&, const Grid&, const SwParams&, SwConstView, SwConstView, SwView, double,
                         double, double) {
  return false;
}
#endif

}  // namespace tessera::weather
