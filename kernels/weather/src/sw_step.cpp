// Shallow-water stages: the fused fast path, the staged reference, CFL and integral diagnostics.
#include "tessera/weather/sw_step.hpp"

#include <cmath>

namespace tessera::weather {

using exec::Range2;

void sw_stage(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
              double a, double c, double dt) {
  sw_stage(ex, gr, p, s0, sk, out, a, c, dt, CellRect{0, gr.nx, 0, gr.ny});
}

void sw_stage(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
              double a, double c, double dt, const CellRect& r) {
  if (r.empty()) return;
  const SwPoint P{gr, p, sk};
  const Grid G = gr;
  const int64_t i0 = r.i0, j0 = r.j0;
  exec::parallel_for(ex, "weather::sw_stage", Range2{r.i1 - r.i0, r.j1 - r.j0}, TESSERA_LAMBDA(int64_t ii, int64_t jj) {
    const int64_t i = ii + i0, j = jj + j0;
    const int64_t n = G.idx(i, j);
    out.h[n] = a * s0.h[n] + c * (sk.h[n] + dt * P.dh(i, j));
    out.u[n] = P.u_on_wall(i) ? 0.0 : a * s0.u[n] + c * (sk.u[n] + dt * P.du(i, j));
    out.v[n] = P.v_on_wall(j) ? 0.0 : a * s0.v[n] + c * (sk.v[n] + dt * P.dv(i, j));
  });
}

SwScratch::SwScratch(const Grid& gr, MemKind mk)
    : U(size_t(gr.size2()), mk, "weather::U"),
      V(size_t(gr.size2()), mk, "weather::V"),
      q(size_t(gr.size2()), mk, "weather::q"),
      B(size_t(gr.size2()), mk, "weather::B") {}

void sw_tendency_reference(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwScratch& w,
                           SwView tend) {
  TESSERA_REQUIRE(gr.g >= 2, "the reference shallow-water path needs ghost width >= 2");
  const Grid G = gr;
  const SwParams P = p;
  double* U = w.U.data();
  double* V = w.V.data();
  double* q = w.q.data();
  double* B = w.B.data();
  // Step 1: mass fluxes, potential vorticity and Bernoulli function on [-1, n] (inclusive) in both axes.
  exec::parallel_for(ex, "weather::ref_intermediates", Range2{G.nx + 2, G.ny + 2}, TESSERA_LAMBDA(int64_t ii, int64_t jj) {
    const int64_t i = ii - 1, j = jj - 1;
    const int64_t n = G.idx(i, j);
    const double h = s.h[n], hw = s.h[G.idx(i - 1, j)], hs = s.h[G.idx(i, j - 1)], hsw = s.h[G.idx(i - 1, j - 1)];
    U[n] = 0.5 * (hw + h) * s.u[n];
    V[n] = 0.5 * (hs + h) * s.v[n];
    const double zeta = (s.v[n] - s.v[G.idx(i - 1, j)]) / G.dx - (s.u[n] - s.u[G.idx(i, j - 1)]) / G.dy;
    const double hc = 0.25 * ((h + hw) + (hs + hsw));
    q[n] = (coriolis_corner(P, G.dy, G.j0 + j) + zeta) / hc;
    const double ul = s.u[n], ur = s.u[G.idx(i + 1, j)], vs = s.v[n], vn = s.v[G.idx(i, j + 1)];
    B[n] = P.gravity * (h + s.b[n]) + 0.25 * ((ul * ul + ur * ur) + (vs * vs + vn * vn));
  });
  // Step 2: tendencies from the intermediates.
  exec::parallel_for(ex, "weather::ref_tendency", Range2{G.nx, G.ny}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t n = G.idx(i, j);
    const int64_t e = G.idx(i + 1, j), w_ = G.idx(i - 1, j), no = G.idx(i, j + 1), so = G.idx(i, j - 1);
    tend.h[n] = -((U[e] - U[n]) / G.dx + (V[no] - V[n]) / G.dy);
    const double vx_s = 0.5 * (V[w_] + V[n]);
    const double vx_n = 0.5 * (V[G.idx(i - 1, j + 1)] + V[no]);
    tend.u[n] = 0.5 * (q[n] * vx_s + q[no] * vx_n) - (B[n] - B[w_]) / G.dx;
    const double uy_w = 0.5 * (U[so] + U[n]);
    const double uy_e = 0.5 * (U[G.idx(i + 1, j - 1)] + U[e]);
    tend.v[n] = -0.5 * (q[n] * uy_w + q[e] * uy_e) - (B[n] - B[so]) / G.dy;
    if (P.wall_x && G.i0 + i == 0) tend.u[n] = 0.0;
    if (P.wall_y && G.j0 + j == 0) tend.v[n] = 0.0;
  });
}

void sw_combine(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                SwConstView tend, SwView out, double a, double c, double dt) {
  const Grid G = gr;
  const SwParams P = p;
  exec::parallel_for(ex, "weather::combine", Range2{G.nx, G.ny}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t n = G.idx(i, j);
    out.h[n] = a * s0.h[n] + c * (sk.h[n] + dt * tend.h[n]);
    out.u[n] = (P.wall_x && G.i0 + i == 0) ? 0.0 : a * s0.u[n] + c * (sk.u[n] + dt * tend.u[n]);
    out.v[n] = (P.wall_y && G.j0 + j == 0) ? 0.0 : a * s0.v[n] + c * (sk.v[n] + dt * tend.v[n]);
  });
}

double sw_max_signal_speed(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s) {
  const Grid G = gr;
  const double g = p.gravity;
  return exec::reduce_max<double>(ex, "weather::max_speed", G.nx * G.ny, TESSERA_LAMBDA(int64_t m) {
    const int64_t n = G.idx(m % G.nx, m / G.nx);
    const double h = s.h[n];
    const double c = sqrt(g * (h > 0 ? h : 0.0));
    return c + fmax(fabs(s.u[n]), fabs(s.v[n]));
  });
}

double sw_min_depth(const exec::Exec& ex, const Grid& gr, SwConstView s) {
  const Grid G = gr;
  return exec::reduce_min<double>(ex, "weather::min_depth", G.nx * G.ny,
                                  TESSERA_LAMBDA(int64_t m) { return s.h[G.idx(m % G.nx, m / G.nx)]; });
}

SwIntegrals sw_integrals(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s) {
  const SwPoint P{gr, p, s};
  const Grid G = gr;
  const double gg = p.gravity;
  const auto r = exec::reduce_sums<double, 4>(ex, "weather::integrals", G.nx * G.ny, TESSERA_LAMBDA(int64_t m) {
    const int64_t i = m % G.nx, j = m / G.nx;
    const int64_t n = G.idx(i, j);
    const double h = s.h[n];
    const double ul = s.u[n], ur = s.u[G.idx(i + 1, j)], vs = s.v[n], vn = s.v[G.idx(i, j + 1)];
    const double k = 0.25 * ((ul * ul + ur * ur) + (vs * vs + vn * vn));
    const double qq = P.q(i, j);
    exec::Vec<double, 4> out;
    out[0] = h;
    out[1] = h * k + gg * h * (0.5 * h + s.b[n]);
    out[2] = 0.5 * P.hc(i, j) * qq * qq;
    out[3] = P.zeta(i, j);
    return out;
  });
  const double dA = gr.dx * gr.dy;
  return SwIntegrals{r[0] * dA, r[1] * dA, r[2] * dA, r[3] * dA};
}

double sw_energy_tendency(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwConstView tend) {
  const SwPoint P{gr, p, s};
  const Grid G = gr;
  const double r = exec::reduce_sum<double>(ex, "weather::energy_tendency", G.nx * G.ny, TESSERA_LAMBDA(int64_t m) {
    const int64_t i = m % G.nx, j = m / G.nx;
    const int64_t n = G.idx(i, j);
    return P.bernoulli(i, j) * tend.h[n] + P.U(i, j) * tend.u[n] + P.V(i, j) * tend.v[n];
  });
  return r * gr.dx * gr.dy;
}

}  // namespace tessera::weather
