// Shallow-water stages: the fused fast path, the staged reference, CFL and integral diagnostics.
#include "tessera/weather/sw_step.hpp"

#include <cmath>

#include "tessera/weather/boundary.hpp"
#include "tessera/weather/sw_rates.hpp"
#include "tessera/weather/sw_tiled.hpp"

namespace tessera::weather {

using exec::Range2;

namespace {
// U, V, q, B read from arrays in the state's layout (the reference path).
struct ArraySource {
  Grid gr;
  const double *u_, *v_, *q_, *b_;
  TESSERA_HD double U(int64_t i, int64_t j) const { return u_[gr.idx(i, j)]; }
  TESSERA_HD double V(int64_t i, int64_t j) const { return v_[gr.idx(i, j)]; }
  TESSERA_HD double q(int64_t i, int64_t j) const { return q_[gr.idx(i, j)]; }
  TESSERA_HD double B(int64_t i, int64_t j) const { return b_[gr.idx(i, j)]; }
};
}  // namespace

void sw_stage(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
              double a, double c, double dt) {
  sw_stage(ex, gr, p, s0, sk, out, a, c, dt, CellRect{0, gr.nx, 0, gr.ny});
}

void sw_stage(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
              double a, double c, double dt, const CellRect& r) {
  if (r.empty()) return;
  TESSERA_REQUIRE(gr.g >= 2, "the shallow-water stage needs ghost width >= 2 (Grid::g)");
  if (sw_stage_tiled(ex, gr, p, s0, sk, out, a, c, dt, r)) return;  // CUDA path (strip kernel or tile)
  const SwPoint P{gr, p, sk};
  const SwScheme sc = p.scheme;
  const SwMetric M = sw_metric(gr.dx, gr.dy);
  const Grid G = gr;
  const int64_t i0 = r.i0, j0 = r.j0;
  exec::parallel_for(ex, "weather::sw_stage", Range2{r.i1 - r.i0, r.j1 - r.j0}, TESSERA_LAMBDA(int64_t ii, int64_t jj) {
    const int64_t i = ii + i0, j = jj + j0;
    const int64_t n = G.idx(i, j);
    out.h[n] = a * s0.h[n] + c * (sk.h[n] + dt * sw_rate_h(P, M, i, j));
    out.u[n] = P.u_on_wall(i) ? 0.0 : a * s0.u[n] + c * (sk.u[n] + dt * sw_rate_u(P, sc, M, i, j));
    out.v[n] = P.v_on_wall(j) ? 0.0 : a * s0.v[n] + c * (sk.v[n] + dt * sw_rate_v(P, sc, M, i, j));
  });
}

void sw_stage_and_fill(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                       SwView out, double a, double c, double dt) {
  TESSERA_REQUIRE(gr.nx == gr.gnx && gr.ny == gr.gny, "sw_stage_and_fill needs one rank holding the whole domain");
  if (sw_stage_tiled_wrap(ex, gr, p, s0, sk, out, a, c, dt)) {
    const bool wx = !p.wall_x && gr.nx >= gr.g, wy = !p.wall_y && gr.ny >= gr.g;  // as sw_stage_tiled_wrap
    Grid g1 = gr;
    g1.nz = 1;
    double* f[3] = {out.h, out.u, out.v};
    for (double* a_ : f) {
      if (!p.wall_x && !wx) fill_periodic_x(ex, g1, a_);
      if (!p.wall_y && !wy) fill_periodic_y(ex, g1, a_);
    }
    sw_fill_walls(ex, g1, p, out);
    return;
  }
  sw_stage(ex, gr, p, s0, sk, out, a, c, dt);
  sw_fill_ghosts_local(ex, gr, p, out);
}

bool sw_stages12(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwView out, StageCoef k1,
                 StageCoef k2, double dt) {
  TESSERA_REQUIRE(out.h != s.h && out.u != s.u && out.v != s.v, "sw_stages12: out must not alias s");
  return sw_stages12_tiled(ex, gr, p, s, out, k1, k2, dt);
}

bool sw_ssprk3_step_local(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s, const double* b,
                          SwView t1, SwView t2, double dt) {
  const auto k = stage_coefficients(TimeScheme::SspRk3);
  const auto cv = [&](SwView v) { return SwConstView{v.h, v.u, v.v, b}; };
  sw_fill_ghosts_local(ex, gr, p, s);
  const bool fused = sw_stages12(ex, gr, p, cv(s), t2, k[0], k[1], dt);
  if (!fused) {
    sw_stage(ex, gr, p, cv(s), cv(s), t1, k[0].a, k[0].c, dt);
    sw_fill_ghosts_local(ex, gr, p, t1);
    sw_stage(ex, gr, p, cv(s), cv(t1), t2, k[1].a, k[1].c, dt);
    sw_fill_ghosts_local(ex, gr, p, t2);
  }
  sw_stage(ex, gr, p, cv(s), cv(t2), s, k[2].a, k[2].c, dt);
  return fused;
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
  const SwMetric M = sw_metric(gr.dx, gr.dy);
  double* U = w.U.data();
  double* V = w.V.data();
  double* q = w.q.data();
  double* B = w.B.data();
  // Step 1: mass fluxes, potential vorticity and Bernoulli function on [-1, n] (inclusive) in both axes
  // (the Arakawa-Lamb stencil reads q at corners i-1 .. i+1 and U two faces apart).
  exec::parallel_for(ex, "weather::ref_intermediates", Range2{G.nx + 2, G.ny + 2}, TESSERA_LAMBDA(int64_t ii, int64_t jj) {
    const int64_t i = ii - 1, j = jj - 1;
    const int64_t n = G.idx(i, j), w_ = G.idx(i - 1, j), so = G.idx(i, j - 1);
    U[n] = sw_flux(s.h[w_], s.h[n], s.u[n]);
    V[n] = sw_flux(s.h[so], s.h[n], s.v[n]);
    q[n] = sw_pv(coriolis_corner(P, G.dy, G.j0 + j), s.v[n], s.v[w_], s.u[n], s.u[so], s.h[n], s.h[w_], s.h[so],
                 s.h[G.idx(i - 1, j - 1)], M);
    B[n] = sw_bernoulli(P.gravity, s.h[n], s.b[n], s.u[n], s.u[G.idx(i + 1, j)], s.v[n], s.v[G.idx(i, j + 1)]);
  });
  // Step 2: tendencies from the intermediates.
  const ArraySource A{G, U, V, q, B};
  exec::parallel_for(ex, "weather::ref_tendency", Range2{G.nx, G.ny}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t n = G.idx(i, j);
    tend.h[n] = sw_rate_h(A, M, i, j);
    tend.u[n] = (P.wall_x && G.i0 + i == 0) ? 0.0 : sw_rate_u(A, P.scheme, M, i, j);
    tend.v[n] = (P.wall_y && G.j0 + j == 0) ? 0.0 : sw_rate_v(A, P.scheme, M, i, j);
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

namespace {
// Weight of corner (i, j) of this rank in a corner sum (0 <= i <= nx, 0 <= j <= ny). A periodic axis
// or a rank-to-rank seam owns corners [0, n) of its patch; a walled axis has one more corner line at the
// east (north) wall, and a corner on a wall counts one half: the walled domain is half of its mirror-
// doubled periodic domain, whose wall corner lines are shared by the two halves.
struct CornerWeight {
  Grid gr;
  WallSides w;
  TESSERA_HD double operator()(int64_t i, int64_t j) const {
    double wx = 1.0, wy = 1.0;
    if (i == gr.nx) wx = w.east ? 0.5 : 0.0;
    else if (i == 0 && w.west) wx = 0.5;
    if (j == gr.ny) wy = w.north ? 0.5 : 0.0;
    else if (j == 0 && w.south) wy = 0.5;
    return wx * wy;
  }
};
}  // namespace

double sw_potential_enstrophy(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s) {
  const SwPoint P{gr, p, s};
  const Grid G = gr;
  const CornerWeight W{gr, wall_sides(gr, p)};
  const int64_t cx = G.nx + 1;
  const double r = exec::reduce_sum<double>(ex, "weather::enstrophy", cx * (G.ny + 1), TESSERA_LAMBDA(int64_t m) {
    const int64_t i = m % cx, j = m / cx;
    const double w = W(i, j);
    if (w == 0.0) return 0.0;
    const double qq = P.q(i, j);
    return w * (0.5 * P.hc(i, j) * qq * qq);
  });
  return r * gr.dx * gr.dy;
}

double sw_enstrophy_tendency(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s,
                             SwConstView tend) {
  const SwPoint P{gr, p, s};
  const Grid G = gr;
  const CornerWeight W{gr, wall_sides(gr, p)};
  const int64_t cx = G.nx + 1;
  // d/dt (hc q^2 / 2) = q d(zeta)/dt - q^2 / 2 d(hc)/dt  (f does not depend on time)
  const double r = exec::reduce_sum<double>(ex, "weather::enstrophy_tendency", cx * (G.ny + 1), TESSERA_LAMBDA(int64_t m) {
    const int64_t i = m % cx, j = m / cx;
    const double w = W(i, j);
    if (w == 0.0) return 0.0;
    const int64_t n = G.idx(i, j), wn = G.idx(i - 1, j), sn = G.idx(i, j - 1), swn = G.idx(i - 1, j - 1);
    const double dzeta = (tend.v[n] - tend.v[wn]) / G.dx - (tend.u[n] - tend.u[sn]) / G.dy;
    const double dhc = 0.25 * ((tend.h[n] + tend.h[wn]) + (tend.h[sn] + tend.h[swn]));
    const double qq = P.q(i, j);
    return w * (qq * dzeta - 0.5 * qq * qq * dhc);
  });
  return r * gr.dx * gr.dy;
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
    exec::Vec<double, 4> out;
    out[0] = h;
    out[1] = h * k + gg * h * (0.5 * h + s.b[n]);
    out[2] = 0.0;  // sw_potential_enstrophy: corners, with wall weights
    out[3] = P.zeta(i, j);
    return out;
  });
  const double dA = gr.dx * gr.dy;
  return SwIntegrals{r[0] * dA, r[1] * dA, sw_potential_enstrophy(ex, gr, p, s), r[3] * dA};
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
