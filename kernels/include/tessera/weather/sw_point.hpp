// Rotating shallow water on the C-grid at a point, vector-invariant form, two spatial schemes.
//
// Common to both (Sadourny 1975, J. Atmos. Sci. 32, 680-689; Arakawa & Lamb 1981, Mon. Wea. Rev. 109,
// 18-36, "AL81"):
//   dh/dt = -(dx U + dy V),          U = avg_x(h) u,   V = avg_y(h) v          (mass fluxes on faces)
//   du/dt = +C_u(q, V, U) - dx B,    dv/dt = -C_v(q, U, V) - dy B
//   q = (f + zeta) / avg_xy(h)  at corners,  zeta = dx v - dy u
//   B = g (h + b) + K,          K = (avg_x(u^2) + avg_y(v^2)) / 2             (Bernoulli function)
// The Coriolis/vorticity term C differs (sw_coriolis.hpp):
//   SadournyEnergy: C_u = avg_y(q avg_x(V)), C_v = avg_x(q avg_y(U)) (Sadourny 1975 eq. 9, AL81 eq. 3.5):
//                   conserves mass and energy, not potential enstrophy.
//   ArakawaLamb:    AL81 eqs. 3.34-3.41: the four fluxes around a u (v) face weighted by alpha..delta,
//                   combinations of the four corner q of a cell, plus the epsilon/phi terms coupling
//                   faces two apart: conserves mass, energy and potential enstrophy.
// Semi-discretely both conserve mass exactly and total energy E = sum_cells [h K + g h (h/2 + b)] dx dy
// (the vorticity terms are antisymmetric pairwise, the pressure terms cancel by summation by parts).
// A lake at rest (u = v = 0, h + b const) has B constant and so zero tendency: both are well balanced.
//
// The tendency formulas are written once over a source of the face/corner quantities U, V, q, B
// (sw_rates.hpp): SwPoint computes them on the fly from the state (portable path), the reference reads
// them from arrays, the CUDA tile from shared memory.
#pragma once
#include <cstdint>

#include "tessera/core/config_macros.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

enum class SwScheme { ArakawaLamb, SadournyEnergy };

struct SwParams {
  double gravity = 9.81;
  double f0 = 0.0;    // Coriolis parameter at the reference latitude y_ref
  double beta = 0.0;  // df/dy
  double y_ref = 0.0; // where f = f0 (usually the domain centre)
  bool wall_x = false, wall_y = false;  // walled (free-slip, no normal flow) or periodic per axis
  SwScheme scheme = SwScheme::ArakawaLamb;
};

// Coriolis parameter at the corner row of global index jg (y = jg*dy): f0 + beta (y - y_ref).
TESSERA_HD inline double coriolis_corner(const SwParams& p, double dy, int64_t jg) {
  return p.f0 + p.beta * (double(jg) * dy - p.y_ref);
}

// Read-only view of the prognostic state and the topography.
struct SwConstView {
  const double* h;
  const double* u;
  const double* v;
  const double* b;
};
struct SwView {
  double* h;
  double* u;
  double* v;
};

// Grid metric factors, computed once per launch: differences are multiplied by 1/dx, 1/dy (a division
// costs ~10 fp64 instructions on the GPU). Every path uses the same factors, so they still agree.
struct SwMetric {
  double rdx, rdy;  // 1/dx, 1/dy
  double ryx, rxy;  // dy/dx, dx/dy
};
TESSERA_HD inline SwMetric sw_metric(double dx, double dy) { return SwMetric{1.0 / dx, 1.0 / dy, dy / dx, dx / dy}; }

// The face/corner quantities from point values (shared by every evaluation path so that they agree).
// T is double on every path but the CUDA strip kernel's, which passes a type whose operations are
// explicitly rounded (no contraction into FMAs; sw_tiled.cpp).
template <class T>
TESSERA_HD inline T sw_flux(T h_minus, T h, T vel) {
  return 0.5 * (h_minus + h) * vel;
}
template <class T>
TESSERA_HD inline T sw_pv(T f, T v, T v_w, T u, T u_s, T h, T h_w, T h_s, T h_sw, const SwMetric& m) {
  const T zeta = (v - v_w) * m.rdx - (u - u_s) * m.rdy;
  const T hc = 0.25 * ((h + h_w) + (h_s + h_sw));
  return (f + zeta) / hc;
}
template <class T>
TESSERA_HD inline T sw_bernoulli(double gravity, T h, T b, T ul, T ur, T vs, T vn) {
  const T k = 0.25 * ((ul * ul + ur * ur) + (vs * vs + vn * vn));
  return gravity * (h + b) + k;
}

struct SwPoint {
  Grid gr;
  SwParams p;
  SwConstView s;

  TESSERA_HD double hx(int64_t i, int64_t j) const {  // h averaged onto the u face
    return 0.5 * (s.h[gr.idx(i - 1, j)] + s.h[gr.idx(i, j)]);
  }
  TESSERA_HD double hy(int64_t i, int64_t j) const {  // h averaged onto the v face
    return 0.5 * (s.h[gr.idx(i, j - 1)] + s.h[gr.idx(i, j)]);
  }
  TESSERA_HD double U(int64_t i, int64_t j) const { return sw_flux(s.h[gr.idx(i - 1, j)], s.h[gr.idx(i, j)], s.u[gr.idx(i, j)]); }
  TESSERA_HD double V(int64_t i, int64_t j) const { return sw_flux(s.h[gr.idx(i, j - 1)], s.h[gr.idx(i, j)], s.v[gr.idx(i, j)]); }
  TESSERA_HD double hc(int64_t i, int64_t j) const {  // h averaged onto the corner
    return 0.25 * ((s.h[gr.idx(i, j)] + s.h[gr.idx(i - 1, j)]) + (s.h[gr.idx(i, j - 1)] + s.h[gr.idx(i - 1, j - 1)]));
  }
  TESSERA_HD double zeta(int64_t i, int64_t j) const {  // relative vorticity at the corner
    return (s.v[gr.idx(i, j)] - s.v[gr.idx(i - 1, j)]) / gr.dx - (s.u[gr.idx(i, j)] - s.u[gr.idx(i, j - 1)]) / gr.dy;
  }
  TESSERA_HD double q(int64_t i, int64_t j) const {  // potential vorticity at the corner
    const int64_t n = gr.idx(i, j), w = gr.idx(i - 1, j), so = gr.idx(i, j - 1), sw = gr.idx(i - 1, j - 1);
    return sw_pv(coriolis_corner(p, gr.dy, gr.j0 + j), s.v[n], s.v[w], s.u[n], s.u[so], s.h[n], s.h[w], s.h[so], s.h[sw],
                 sw_metric(gr.dx, gr.dy));
  }
  TESSERA_HD double bernoulli(int64_t i, int64_t j) const {
    return sw_bernoulli(p.gravity, s.h[gr.idx(i, j)], s.b[gr.idx(i, j)], s.u[gr.idx(i, j)], s.u[gr.idx(i + 1, j)],
                        s.v[gr.idx(i, j)], s.v[gr.idx(i, j + 1)]);
  }
  TESSERA_HD double B(int64_t i, int64_t j) const { return bernoulli(i, j); }

  // A wall face carries no normal flow: u on global face i = 0 (x walled), v on j = 0 (y walled).
  TESSERA_HD bool u_on_wall(int64_t i) const { return p.wall_x && gr.i0 + i == 0; }
  TESSERA_HD bool v_on_wall(int64_t j) const { return p.wall_y && gr.j0 + j == 0; }
};

}  // namespace tessera::weather
