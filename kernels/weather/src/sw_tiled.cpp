// CUDA shared-memory shallow-water stage (see sw_tiled.hpp). Compiled by nvcc in CUDA builds; host-only
// builds get a dispatcher that declines, so sw_stage takes the portable path.
#include "tessera/weather/sw_tiled.hpp"

#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tessera/weather/sw_rates.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/knob.hpp"
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

// Writes cell (i, j) of the stage output and, when asked, its periodic ghost images (the values
// fill_periodic_x then _y would copy, corners included).
__device__ inline void store_cell(const StageArgs& A, int64_t i, int64_t j, double oh, double ou, double ov) {
  const Grid& G = A.gr;
  const int64_t n = G.idx(i, j);
  A.out.h[n] = oh;
  A.out.u[n] = ou;
  A.out.v[n] = ov;
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
      const double oh = A.a * h0[r] + A.c * (hk[r] + A.dt * sw_rate_h(src, A.m, i, j));
      const bool uw = A.p.wall_x && G.i0 + i == 0, vw = A.p.wall_y && G.j0 + j == 0;
      const double ou = uw ? 0.0 : A.a * u0[r] + A.c * (uk[r] + A.dt * sw_rate_u(src, sc, A.m, i, j));
      const double ov = vw ? 0.0 : A.a * v0[r] + A.c * (vk[r] + A.dt * sw_rate_v(src, sc, A.m, i, j));
      store_cell(A, i, j, oh, ou, ov);
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

// A double whose + - * / are explicitly rounded (__dadd_rn, ...): neither nvcc nor ptxas may contract
// them into FMAs. The strip kernel computes with it: its rows are unrolled, and the optimiser can share
// products between neighbouring rows (v(j+1)^2 enters B of rows j and j+1), so with contraction a value
// may be fused in one row and rounded on its own in the next; in plain arithmetic a cell's bits did
// depend on the row its strip starts at (which the CellRect split and 1-against-N-rank tests forbid).
// (Host and device so that the shared host-device templates may call it; only device code does.)
struct Rn {
  double x;
  TESSERA_HD Rn(double v) : x(v) {}  // NOLINT: implicit, so that literals and metric factors mix in
#if defined(__CUDA_ARCH__)
  friend TESSERA_HD Rn operator+(Rn a, Rn b) { return __dadd_rn(a.x, b.x); }
  friend TESSERA_HD Rn operator-(Rn a, Rn b) { return __dsub_rn(a.x, b.x); }
  friend TESSERA_HD Rn operator*(Rn a, Rn b) { return __dmul_rn(a.x, b.x); }
  friend TESSERA_HD Rn operator/(Rn a, Rn b) { return __ddiv_rn(a.x, b.x); }
#else
  friend TESSERA_HD Rn operator+(Rn a, Rn b) { return a.x + b.x; }
  friend TESSERA_HD Rn operator-(Rn a, Rn b) { return a.x - b.x; }
  friend TESSERA_HD Rn operator*(Rn a, Rn b) { return a.x * b.x; }
  friend TESSERA_HD Rn operator/(Rn a, Rn b) { return a.x / b.x; }
#endif
  friend TESSERA_HD Rn operator-(Rn a) { return Rn(-a.x); }
};

// A double whose products are fused into the sum or difference they enter, as the expression is written:
// x * y stays an unrounded RfProd, and RfProd + z is __fma_rn(x, y, z); a product that enters no sum is
// rounded on its own (__dmul_rn), and of two products summed the right one is rounded first. What is
// fused is fixed by the expression, not by the optimiser, so every row of an unrolled strip computes the
// same bits (the reason for Rn) with about a third fewer fp64 instructions. The results differ from the
// host (plain arithmetic) by rounding only. Device code only (host fallbacks for the shared templates).
struct RfProd {
  double a, b;
};
#if defined(__CUDA_ARCH__)
TESSERA_HD inline double rf_mul(double a, double b) { return __dmul_rn(a, b); }
TESSERA_HD inline double rf_fma(double a, double b, double c) { return __fma_rn(a, b, c); }
TESSERA_HD inline double rf_add(double a, double b) { return __dadd_rn(a, b); }
TESSERA_HD inline double rf_sub(double a, double b) { return __dsub_rn(a, b); }
TESSERA_HD inline double rf_div(double a, double b) { return __ddiv_rn(a, b); }
#else
TESSERA_HD inline double rf_mul(double a, double b) { return a * b; }
TESSERA_HD inline double rf_fma(double a, double b, double c) { return a * b + c; }
TESSERA_HD inline double rf_add(double a, double b) { return a + b; }
TESSERA_HD inline double rf_sub(double a, double b) { return a - b; }
TESSERA_HD inline double rf_div(double a, double b) { return a / b; }
#endif
struct Rf {
  double x;
  TESSERA_HD Rf(double v) : x(v) {}                  // NOLINT: implicit, as Rn
  TESSERA_HD Rf(RfProd p) : x(rf_mul(p.a, p.b)) {}  // NOLINT: a product used as a value is rounded
};
// (Free functions, not hidden friends: RfProd - RfProd must find them too.)
TESSERA_HD inline RfProd operator*(Rf a, Rf b) { return {a.x, b.x}; }
TESSERA_HD inline RfProd operator*(RfProd a, Rf b) { return {Rf(a).x, b.x}; }
TESSERA_HD inline RfProd operator*(Rf a, RfProd b) { return {a.x, Rf(b).x}; }
TESSERA_HD inline RfProd operator*(RfProd a, RfProd b) { return {Rf(a).x, Rf(b).x}; }
TESSERA_HD inline Rf operator+(Rf a, Rf b) { return rf_add(a.x, b.x); }
TESSERA_HD inline Rf operator+(RfProd a, Rf b) { return rf_fma(a.a, a.b, b.x); }
TESSERA_HD inline Rf operator+(Rf a, RfProd b) { return rf_fma(b.a, b.b, a.x); }
TESSERA_HD inline Rf operator+(RfProd a, RfProd b) { return rf_fma(a.a, a.b, Rf(b).x); }
TESSERA_HD inline Rf operator-(Rf a, Rf b) { return rf_sub(a.x, b.x); }
TESSERA_HD inline Rf operator-(RfProd a, Rf b) { return rf_fma(a.a, a.b, -b.x); }
TESSERA_HD inline Rf operator-(Rf a, RfProd b) { return rf_fma(-b.a, b.b, a.x); }
TESSERA_HD inline Rf operator-(RfProd a, RfProd b) { return rf_fma(a.a, a.b, -Rf(b).x); }
TESSERA_HD inline Rf operator/(Rf a, Rf b) { return rf_div(a.x, b.x); }
TESSERA_HD inline Rf operator/(RfProd a, Rf b) { return rf_div(Rf(a).x, b.x); }
TESSERA_HD inline Rf operator/(Rf a, RfProd b) { return rf_div(a.x, Rf(b).x); }
TESSERA_HD inline Rf operator-(Rf a) { return Rf(-a.x); }
TESSERA_HD inline RfProd operator-(RfProd a) { return {-a.a, a.b}; }
// The value of an Rn / Rf expression.
TESSERA_HD inline double val(Rn a) { return a.x; }
TESSERA_HD inline double val(Rf a) { return a.x; }
TESSERA_HD inline double val(RfProd a) { return Rf(a).x; }

// The neighbourhood of one cell as sw_rates.hpp reads it, held in registers by the strip kernel and
// addressed by offsets from the cell (the rates are evaluated at (0, 0), so every offset below is a
// constant once inlined). Members: U at (0,0) (1,0) (-1,0) (0,-1) (1,-1); V at (0,0) (0,1) (-1,0) (-1,1)
// (0,-1); B at (0,0) (-1,0) (0,-1); q at (0,0) (0,1) (1,0) (Sadourny); the Arakawa-Lamb cell coefficients
// a, d at (0,0) (-1,0) (0,-1), eps at (0,0) (-1,0), phi at (0,0) (0,-1).
template <class Num>
struct CellNbhd {
  double U00, U10, Um0, U0m, U1m, V00, V01, Vm0, Vm1, V0m, B00, Bm0, B0m, q00, q01, q10;
  double a00, am0, a0m, d00, dm0, d0m, e00, em0, p00, p0m;
  TESSERA_HD Num U(int64_t i, int64_t j) const {
    return j == 0 ? (i == 0 ? U00 : i == 1 ? U10 : Um0) : i == 0 ? U0m : U1m;
  }
  TESSERA_HD Num V(int64_t i, int64_t j) const {
    return i == 0 ? (j == 0 ? V00 : j == 1 ? V01 : V0m) : j == 0 ? Vm0 : Vm1;
  }
  TESSERA_HD Num B(int64_t i, int64_t j) const { return i != 0 ? Bm0 : j == 0 ? B00 : B0m; }
  TESSERA_HD Num q(int64_t i, int64_t j) const { return i != 0 ? q10 : j == 0 ? q00 : q01; }
  TESSERA_HD Num al_a(int64_t i, int64_t j) const { return i != 0 ? am0 : j == 0 ? a00 : a0m; }
  TESSERA_HD Num al_d(int64_t i, int64_t j) const { return i != 0 ? dm0 : j == 0 ? d00 : d0m; }
  TESSERA_HD Num al_eps(int64_t i, int64_t) const { return i != 0 ? em0 : e00; }
  TESSERA_HD Num al_phi(int64_t, int64_t j) const { return j != 0 ? p0m : p00; }
};
// The four corner PVs of a cell, for al81::*_from_q at (0, 0).
template <class Num>
struct CellCorners {
  double sw, se, nw, ne;
  TESSERA_HD Num q(int64_t i, int64_t j) const { return i == 0 ? (j == 0 ? sw : nw) : j == 0 ? se : ne; }
};

constexpr int kStripOut = 29;  // output columns per warp: lanes 2..30 (a cell reads columns i-2 .. i+1)

constexpr unsigned kAllLanes = 0xffffffffu;
__device__ __forceinline__ double lane_west(double x) { return __shfl_up_sync(kAllLanes, x, 1); }   // lane l - 1's
__device__ __forceinline__ double lane_east(double x) { return __shfl_down_sync(kAllLanes, x, 1); }  // lane l + 1's

// What a warp's march carries from row j - 1 to row j: h(j) at lane l-1; q(j) at l, l+1; V(j) at l, l-1;
// U(j-1) at l, l+1; V(j-1), B(j-1), a, d, phi (j-1) at l.
struct StripCarry {
  double hW = 0, q = 0, qE = 0, Vc = 0, VW = 0;
  double Um = 0, UEm = 0, Vm = 0, Bm = 0, am = 0, dm = 0, pm = 0;
};

// One step of a warp's march up its rows (the strip kernel below): row j's raw h, u, v (hc, uc,
// vc) and row j + 1's (h1, u1, v1) of the lane's column, b of row j, s^n of row j. Forms row j + 1's V and
// q and, from the second step (lead: j >= the first row - 1), row j's U, B and cell coefficients; writes
// cell (i, j) of out = ka s^n + kc (s_k + dt L(s_k)) where `write`, handing (h, u, v) to sink. Every lane
// must call it (shuffles); the conditions are warp-uniform except `write`, which only guards the sink.
// kPeriodicF: no walls and beta = 0 (the fused kernel's domain): f is f0, which coriolis_corner returns
// bit for bit there (f0 + 0 * finite), and no face is a wall face.
template <bool kAL, class Num, bool kPeriodicF = false, class Sink>
__device__ __forceinline__ void strip_row(const StageArgs& A, double ka, double kc, int64_t i, int64_t j, bool lead,
                                          bool write, double hc, double uc, double vc, double h1, double u1, double v1,
                                          double bc, double sh0, double su0, double sv0, StripCarry& s, Sink&& sink) {
  const Grid& G = A.gr;
  constexpr SwScheme sc = kAL ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  const double hW1 = lane_west(h1), vW1 = lane_west(v1);
  const double V1 = val(sw_flux<Num>(hc, h1, v1));
  const double q1 =
      val(sw_pv<Num>(kPeriodicF ? A.p.f0 : coriolis_corner(A.p, G.dy, G.j0 + j + 1), v1, vW1, u1, uc, h1, hW1, hc, s.hW,
                     A.m));
  const double qE1 = lane_east(q1), VW1 = lane_west(V1);
  if (lead) {
    const double U = val(sw_flux<Num>(s.hW, hc, uc));
    const double B = val(sw_bernoulli<Num>(A.p.gravity, hc, bc, uc, lane_east(uc), vc, v1));
    const double UW = lane_west(U), UE = lane_east(U), BW = lane_west(B);
    double a = 0, d = 0, e = 0, ph = 0, aW = 0, dW = 0, eW = 0;
    if constexpr (kAL) {
      const CellCorners<Num> Q{s.q, s.qE, q1, qE1};
      a = val(al81::a_from_q(Q, 0, 0));
      d = val(al81::d_from_q(Q, 0, 0));
      e = val(al81::eps_from_q(Q, 0, 0));
      ph = val(al81::phi_from_q(Q, 0, 0));
      aW = lane_west(a);
      dW = lane_west(d);
      eW = lane_west(e);
    }
    if (write) {
      const CellNbhd<Num> S{U,   UE,  UW,  s.Um, s.UEm, s.Vc, V1,  s.VW, VW1, s.Vm, B,  BW, s.Bm,
                       s.q, q1,  s.qE, a,   aW,    s.am, d,   dW,   s.dm, e,   eW, ph, s.pm};
      const Num ra = ka, rc = kc, rdt = A.dt;
      const double oh = val(ra * sh0 + rc * (hc + rdt * sw_rate_h(S, A.m, 0, 0)));
      const bool uw = !kPeriodicF && A.p.wall_x && G.i0 + i == 0, vw = !kPeriodicF && A.p.wall_y && G.j0 + j == 0;
      const double ou = uw ? 0.0 : val(ra * su0 + rc * (uc + rdt * sw_rate_u(S, sc, A.m, 0, 0)));
      const double ov = vw ? 0.0 : val(ra * sv0 + rc * (vc + rdt * sw_rate_v(S, sc, A.m, 0, 0)));
      sink(oh, ou, ov);
    }
    s.Um = U;
    s.UEm = UE;
    s.Vm = s.Vc;
    s.Bm = B;
    s.am = a;
    s.dm = d;
    s.pm = ph;
  }
  s.Vc = V1;
  s.VW = VW1;
  s.q = q1;
  s.qE = qE1;
  s.hW = hW1;
}

// Strip kernel: a warp owns 32 adjacent columns (lane l is column x0 - 2 + l) and kR rows of cells, and
// produces lanes 2..30. It loads the strip's raw rows j0-2 .. j0+kR of h, u, v (b on j0-1 .. j0+kR-1)
// and s^n of its cells into registers before any arithmetic, then marches up the rows: each step forms
// the next row's V, q and this row's U, B and cell coefficients, takes x-neighbours from the adjacent
// lanes (shuffles) and y-neighbours from the previous step, and writes the cell. No shared memory and no
// barriers: the tile kernel's shared-memory traffic (about 58 accesses per cell) was its limit (ncu:
// L1/TEX 89 %). Same point functions and rate expressions as the tile and the portable path, evaluated in
// explicitly rounded arithmetic (Rn).
// kXRow: the block's warps sit side by side in x (kWarps x 29 columns of one strip) instead of stacked
// in y (29 columns of kWarps strips).
// kFma: products fused into the sums they enter (Rf) instead of every operation rounded (Rn).
template <int kR, int kAhead, int kWarps, int kMinBlocks, bool kAL, bool kXRow, bool kFma>
__global__ void __launch_bounds__(32 * kWarps, kMinBlocks) sw_stage_strip(const StageArgs A) {
  using Num = std::conditional_t<kFma, Rf, Rn>;
  constexpr int kRows = kR + 3;
  const Grid& G = A.gr;
  const int lane = int(threadIdx.x);
  const int64_t wx = kXRow ? int64_t(blockIdx.x) * kWarps + threadIdx.y : int64_t(blockIdx.x);
  const int64_t wy = kXRow ? int64_t(blockIdx.y) : int64_t(blockIdx.y) * kWarps + threadIdx.y;
  const int64_t i = A.ri0 + wx * kStripOut - 2 + lane;
  const int64_t j0 = A.rj0 + wy * kR;
  if (j0 >= A.rj1 || A.ri0 + wx * kStripOut >= A.ri1) return;  // the whole warp
  const bool col_in = i >= -G.g && i < G.nx + G.g;
  const bool s0_is_sk = A.s0.h == A.sk.h && A.s0.u == A.sk.u && A.s0.v == A.sk.v;
  // Raw row c (grid row j0 - 2 + c) is first read in step c - 3, s^n row r in step r: each is requested
  // kAhead steps before (all in the first step when kAhead >= kRows). Points outside the patch read zero
  // (never used by a cell of the rect).
  double rh[kRows], ru[kRows], rv[kRows], rb[kR + 1], h0[kR], u0[kR], v0[kR];
  const auto load_raw = [&](int c) {
    const bool in = col_in && j0 - 2 + c < G.ny + G.g;
    const int64_t n = in ? G.idx(i, j0 - 2 + c) : 0;
    rh[c] = in ? __ldg(A.sk.h + n) : 0.0;
    ru[c] = in ? __ldg(A.sk.u + n) : 0.0;
    rv[c] = in ? __ldg(A.sk.v + n) : 0.0;
    if (c >= 1 && c <= kR + 1) rb[c - 1] = in ? __ldg(A.sk.b + n) : 0.0;  // b on rows j0-1 .. j0+kR-1
  };
  const auto load_s0 = [&](int r) {
    if (s0_is_sk) return;  // a step's first stage: s^n is s_k, taken from the raw rows when used
    const bool in = col_in && j0 + r < G.ny + G.g;
    const int64_t n = in ? G.idx(i, j0 + r) : 0;
    h0[r] = in ? __ldg(A.s0.h + n) : 0.0;
    u0[r] = in ? __ldg(A.s0.u + n) : 0.0;
    v0[r] = in ? __ldg(A.s0.v + n) : 0.0;
  };
  const bool writes = lane >= 2 && lane <= 30 && i < A.ri1;
  StripCarry st;
#pragma unroll
  for (int k = -2; k < kR; ++k) {  // step k: row j = j0 + k (raw index c), and row j + 1's V and q
#pragma unroll
    for (int c2 = 0; c2 < kRows; ++c2)
      if ((c2 - 3 - kAhead < -2 ? -2 : c2 - 3 - kAhead) == k) load_raw(c2);
#pragma unroll
    for (int r = 0; r < kR; ++r)
      if ((r - kAhead < -2 ? -2 : r - kAhead) == k) load_s0(r);
    const int c = k + 2;
    const int64_t j = j0 + k;
    if (k == -2) st.hW = lane_west(rh[0]);  // after row 0's load
    const bool out = k >= 0;
    strip_row<kAL, Num>(A, A.a, A.c, i, j, k >= -1, out && writes && j < A.rj1, rh[c], ru[c], rv[c], rh[c + 1], ru[c + 1],
                   rv[c + 1], k >= -1 ? rb[k + 1] : 0.0, !out ? 0.0 : s0_is_sk ? rh[c] : h0[k],
                   !out ? 0.0 : s0_is_sk ? ru[c] : u0[k], !out ? 0.0 : s0_is_sk ? rv[c] : v0[k], st,
                   [&](double oh, double ou, double ov) { store_cell(A, i, j, oh, ou, ov); });
  }
}

// Stages 1 and 2 of SSP-RK3 in one pass (temporal blocking): a warp computes s_1 on its 32 columns from
// s^n and, two rows behind, s_2 from those s_1 rows, so s_1 never goes to memory. A step then moves
// s^n, b in and s_2 out (7 arrays) for its first two stages instead of 7 + 10. Lane l is column
// x0 - 4 + l; s_1 is valid on lanes 2..30 (it reads columns i-2 .. i+1), s_2 on lanes 4..29 (26 output
// columns per warp). Rows: s_2 on j0 .. j0+kR-1 needs s_1 on j0-2 .. j0+kR, which needs s^n on
// j0-4 .. j0+kR+1 and b on j0-3 .. j0+kR. Only for one rank holding a domain periodic on both axes with
// beta = 0 (sw_stages12_tiled checks): s^n is read at wrapped indices (its ghosts are not read), so s_1
// outside the interior is exactly the periodic image a ghost fill would copy, and with f constant each
// cell's arithmetic is that of the strip kernel's strip_row in Rf, i.e. the same bits as the two
// stages run by the default strip shape with a ghost fill between them. Both stages use strip_row.
constexpr int kFusedOut = 26;

__device__ __forceinline__ int64_t wrap_once(int64_t k, int64_t n) { return k < 0 ? k + n : k >= n ? k - n : k; }

// strip_row in its periodic f-plane form (f = f0, no wall checks: 0.91 of copy for the step at 8192^2
// against 0.87 in the general form in the same run, 7ecf3fa).
template <int kR, int kAhead, int kWarps, int kMinBlocks, bool kAL>
__global__ void __launch_bounds__(32 * kWarps, kMinBlocks)
    sw_stages12_strip(const StageArgs A, const double a1, const double c1) {
  using Num = Rf;
  constexpr int kRaw = kR + 6, kB = kR + 4, kS1 = kR + 3;
  const Grid& G = A.gr;
  const int lane = int(threadIdx.x);
  const int64_t x0 = (int64_t(blockIdx.x) * kWarps + threadIdx.y) * kFusedOut;
  const int64_t i = x0 - 4 + lane;
  const int64_t j0 = int64_t(blockIdx.y) * kR;
  if (j0 >= G.ny || x0 >= G.nx) return;  // the whole warp
  const int64_t iw = wrap_once(i, G.nx);
  double rh[kRaw], ru[kRaw], rv[kRaw], rb[kB], s1h[kS1], s1u[kS1], s1v[kS1];
  const auto load_raw = [&](int c) {  // s^n row j0 - 4 + c
    const int64_t n = G.idx(iw, wrap_once(j0 - 4 + c, G.ny));
    rh[c] = __ldg(A.sk.h + n);
    ru[c] = __ldg(A.sk.u + n);
    rv[c] = __ldg(A.sk.v + n);
  };
  const auto load_b = [&](int m) { rb[m] = __ldg(A.sk.b + G.idx(iw, wrap_once(j0 - 3 + m, G.ny))); };
  const bool writes = lane >= 4 && lane <= 29 && i < G.nx;
  StripCarry st1, st2;
#pragma unroll
  for (int t = -4; t <= kR; ++t) {  // stage 1 at row j0 + t, stage 2 at row j0 + t - 1
    // s^n row c is first read in stage-1 step c - 5 (as the row above), b row m in step m - 3
#pragma unroll
    for (int c = 0; c < kRaw; ++c)
      if ((c - 5 - kAhead < -4 ? -4 : c - 5 - kAhead) == t) load_raw(c);
#pragma unroll
    for (int m = 0; m < kB; ++m)
      if ((m - 3 - kAhead < -4 ? -4 : m - 3 - kAhead) == t) load_b(m);
    const int c = t + 4;
    if (t == -4) st1.hW = lane_west(rh[0]);
    // s^n is s_k in stage 1 (the strip kernel's s0_is_sk case: the same operands)
    strip_row<kAL, Num, true>(A, a1, c1, i, j0 + t, t >= -3, t >= -2, rh[c], ru[c], rv[c], rh[c + 1], ru[c + 1], rv[c + 1],
                        t >= -3 ? rb[t + 3] : 0.0, rh[c], ru[c], rv[c], st1, [&](double oh, double ou, double ov) {
                          s1h[t + 2] = oh;
                          s1u[t + 2] = ou;
                          s1v[t + 2] = ov;
                        });
    if (t >= -1) {
      const int u = t - 1;
      const int64_t j = j0 + u;
      if (u == -2) st2.hW = lane_west(s1h[0]);
      strip_row<kAL, Num, true>(A, A.a, A.c, i, j, u >= -1, u >= 0 && writes && j < G.ny, s1h[u + 2], s1u[u + 2],
                          s1v[u + 2], s1h[u + 3], s1u[u + 3], s1v[u + 3], u >= -1 ? rb[u + 3] : 0.0,
                          u >= 0 ? rh[u + 4] : 0.0, u >= 0 ? ru[u + 4] : 0.0, u >= 0 ? rv[u + 4] : 0.0, st2,
                          [&](double oh, double ou, double ov) { store_cell(A, i, j, oh, ou, ov); });
    }
  }
}

// Kernel shape, chosen at run time by TESSERA_SW_TILE (tuning; read at every launch so that tests can
// run each). Default (kDefaultShape, unset): "strip8m4xf", the strip kernel with 8 rows per warp, loads 2
// rows ahead, 4 blocks/SM, the block's 4 warps side by side in x (116 columns of one strip), computing in
// Rf (FMAs where an expression multiplies then adds; "strip16m4xf" the same with 16 rows); "strip8m4x" is
// that shape in Rn (every operation rounded on its own, the default before a910e72). Strips with
// the warps stacked in y: "strip4" (4 rows, all loaded at once, 3 blocks/SM; the default before),
// "strip4m4" (2 rows ahead, 4 blocks/SM), "strip8m4" and "strip16m4" (8 / 16 rows, 2 ahead, 4 blocks/SM),
// "strip8", "strip12" (8 / 12 rows, 4 / 3 ahead, 3 blocks/SM); side by side in x: "strip4x" and
// "strip8m2x8" (8 rows, 8 warps, 2 blocks/SM). Shared-memory tiles: "32x16" (32 x 8 threads, two rows
// each, 4 blocks/SM; the default before the strips), "32x16m3" (3 blocks/SM), "64x8" (64 x 4 threads,
// 4 blocks/SM), "64x8m3" (3 blocks/SM). Measured on an H200 (docs/performance.md), protocol step at
// 8192^2: strip8m4x 0.763-0.770 of copy against strip4 0.725-0.735 and strip8m4 0.740-0.750 in the same
// run (058422e); 32x16 best of the tiles (0.69); 5 blocks/SM tiles (51 registers), 32x8 tiles, strips of
// 32 rows (0.27) and rolled strips were slower and dropped. Static shared memory (4 raw + 4 derived
// arrays of doubles) stays under 48 KiB for all four tiles.
constexpr const char* kDefaultShape = "strip8m4xf";
int tile_variant() {
  return knob_choice("TESSERA_SW_TILE",
                     {"strip4", "32x16m3", "64x8", "64x8m3", "32x16", "strip4m4", "strip8m4", "strip16m4", "strip8",
                      "strip12", "strip4x", "strip8m4x", "strip8m2x8", "strip8m4xf", "strip16m4xf"},
                     kDefaultShape, std::string("the default shape, ") + kDefaultShape);
}

template <int TX, int TY, int THY, int MB>
void launch(const exec::Exec& ex, const StageArgs& A) {
  const dim3 block(TX, THY);
  const dim3 grid(unsigned((A.ri1 - A.ri0 + TX - 1) / TX), unsigned((A.rj1 - A.rj0 + TY - 1) / TY));
  sw_stage_tile<TX, TY, THY, MB><<<grid, block, 0, static_cast<cudaStream_t>(ex.stream)>>>(A);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

template <int R, int AH, int W, int MB, bool XRow = false, bool Fma = false>
void launch_strip(const exec::Exec& ex, const StageArgs& A) {
  const dim3 block(32, W);
  const int64_t wx = (A.ri1 - A.ri0 + kStripOut - 1) / kStripOut, wy = (A.rj1 - A.rj0 + R - 1) / R;
  const dim3 grid = XRow ? dim3(unsigned((wx + W - 1) / W), unsigned(wy)) : dim3(unsigned(wx), unsigned((wy + W - 1) / W));
  const auto st = static_cast<cudaStream_t>(ex.stream);
  if (A.p.scheme == SwScheme::ArakawaLamb) sw_stage_strip<R, AH, W, MB, true, XRow, Fma><<<grid, block, 0, st>>>(A);
  else sw_stage_strip<R, AH, W, MB, false, XRow, Fma><<<grid, block, 0, st>>>(A);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

// TESSERA_WEATHER_PORTABLE=1 (read once): the portable path instead of every CUDA kernel here (profiling).
bool portable_forced() {
  static const bool forced = [] {
    const char* e = std::getenv("TESSERA_WEATHER_PORTABLE");
    return e && e[0] == '1';
  }();
  return forced;
}

// tile_variant()'s indices of the shapes that compute in Rf (the fused kernel's arithmetic).
constexpr int kShapeStrip8m4xf = 13, kShapeStrip16m4xf = 14;

bool run_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
               double a, double c, double dt, const CellRect& r, bool wrap_x, bool wrap_y) {
  if (!ex.on_device() || portable_forced()) return false;
  const StageArgs A{gr, p, s0, sk, out, a, c, dt, r.i0, r.i1, r.j0, r.j1, wrap_x, wrap_y, sw_metric(gr.dx, gr.dy)};
  switch (tile_variant()) {
    case 0: launch_strip<4, 8, 4, 3>(ex, A); break;  // strip4
    case 1: launch<32, 16, 8, 3>(ex, A); break;
    case 2: launch<64, 8, 4, 4>(ex, A); break;
    case 3: launch<64, 8, 4, 3>(ex, A); break;
    case 4: launch<32, 16, 8, 4>(ex, A); break;
    case 5: launch_strip<4, 2, 4, 4>(ex, A); break;
    case 6: launch_strip<8, 2, 4, 4>(ex, A); break;
    case 7: launch_strip<16, 2, 4, 4>(ex, A); break;
    case 8: launch_strip<8, 4, 4, 3>(ex, A); break;
    case 9: launch_strip<12, 3, 4, 3>(ex, A); break;
    case 10: launch_strip<4, 8, 4, 3, true>(ex, A); break;
    case 11: launch_strip<8, 2, 4, 4, true>(ex, A); break;  // strip8m4x, the default
    case 12: launch_strip<8, 2, 8, 2, true>(ex, A); break;
    case kShapeStrip8m4xf: launch_strip<8, 2, 4, 4, true, true>(ex, A); break;
    default: launch_strip<16, 2, 4, 4, true, true>(ex, A); break;  // kShapeStrip16m4xf
  }
  return true;
}
}  // namespace

bool sw_stage_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                    SwView out, double a, double c, double dt, const CellRect& r) {
  return run_tiled(ex, gr, p, s0, sk, out, a, c, dt, r, false, false);
}

namespace {
// TESSERA_SW_FUSED: "off", or the fused kernel's rows per warp and shape. "f6", "f8", "f10", "f12": 4 blocks
// of 4 warps per SM (128 registers, spilling 130-260 bytes for Arakawa-Lamb); "f12m3": 3 blocks (up to 168
// registers, no spills); "f12a1": s^n loaded one row ahead instead of two. Default kDefaultFused, the
// fastest on an H200 (docs/performance.md).
constexpr const char* kDefaultFused = "f10";
int fused_variant() {
  return knob_choice("TESSERA_SW_FUSED", {"off", "f6", "f8", "f10", "f12", "f12m3", "f12a1"}, kDefaultFused,
                     std::string("the default fused kernel, ") + kDefaultFused);
}

template <int R, int MB, int AH = 2>
bool launch_fused(const exec::Exec& ex, const StageArgs& A, double a1, double c1) {
  constexpr int kW = 4;
  if (A.gr.nx < 32 || A.gr.ny < R + 8) return false;  // one wrap at most per index
  const int64_t wx = (A.gr.nx + kFusedOut - 1) / kFusedOut, wy = (A.gr.ny + R - 1) / R;
  const dim3 block(32, kW), grid(unsigned((wx + kW - 1) / kW), unsigned(wy));
  const auto st = static_cast<cudaStream_t>(ex.stream);
  if (A.p.scheme == SwScheme::ArakawaLamb)
    sw_stages12_strip<R, AH, kW, MB, true><<<grid, block, 0, st>>>(A, a1, c1);
  else sw_stages12_strip<R, AH, kW, MB, false><<<grid, block, 0, st>>>(A, a1, c1);
  TESSERA_CUDA_CHECK(cudaGetLastError());
  return true;
}
}  // namespace

bool sw_stages12_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwView out,
                       StageCoef k1, StageCoef k2, double dt) {
  if (!ex.on_device() || portable_forced() || p.wall_x || p.wall_y || p.beta != 0.0 || gr.nx != gr.gnx ||
      gr.ny != gr.gny)
    return false;
  const int shape = tile_variant();  // the fused kernel computes in Rf: the same bits as the Rf strip shapes
  if (shape != kShapeStrip8m4xf && shape != kShapeStrip16m4xf) return false;
  const int fv = fused_variant();
  if (fv == 0) return false;
  const StageArgs A{gr, p, s, s, out, k2.a, k2.c, dt, 0, gr.nx, 0, gr.ny, true, true, sw_metric(gr.dx, gr.dy)};
  switch (fv) {
    case 1: return launch_fused<6, 4>(ex, A, k1.a, k1.c);
    case 2: return launch_fused<8, 4>(ex, A, k1.a, k1.c);
    case 3: return launch_fused<10, 4>(ex, A, k1.a, k1.c);
    case 4: return launch_fused<12, 4>(ex, A, k1.a, k1.c);
    case 5: return launch_fused<12, 3>(ex, A, k1.a, k1.c);
    default: return launch_fused<12, 4, 1>(ex, A, k1.a, k1.c);
  }
}

bool sw_stage_tiled_wrap(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                         SwView out, double a, double c, double dt) {
  // the images are only valid when this rank holds the whole periodic axis and every ghost has a source
  const bool wx = !p.wall_x && gr.nx == gr.gnx && gr.nx >= gr.g, wy = !p.wall_y && gr.ny == gr.gny && gr.ny >= gr.g;
  return run_tiled(ex, gr, p, s0, sk, out, a, c, dt, CellRect{0, gr.nx, 0, gr.ny}, wx, wy);
}
#else
bool sw_stages12_tiled(const exec::Exec&, const Grid&, const SwParams&, SwConstView, SwView, StageCoef, StageCoef,
                       double) {
  return false;
}
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
