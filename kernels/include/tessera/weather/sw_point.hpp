// Rotating shallow water on the C-grid at a point: Sadourny's energy-conserving ("EN") scheme.
//
// Vector-invariant form (Sadourny 1975, J. Atmos. Sci. 32, 680-689, eq. 9; the same scheme is the
// "energy conserving" scheme of Arakawa & Lamb 1981, Mon. Wea. Rev. 109, 18-36, eq. 3.5):
//   dh/dt = -(dx U + dy V),          U = avg_x(h) u,   V = avg_y(h) v          (mass fluxes on faces)
//   du/dt = +avg_y(q avg_x(V)) - dx B,   dv/dt = -avg_x(q avg_y(U)) - dy B
//   q = (f + zeta) / avg_xy(h)  at corners,  zeta = dx v - dy u
//   B = g (h + b) + K,          K = (avg_x(u^2) + avg_y(v^2)) / 2             (Bernoulli function)
// Semi-discretely this conserves mass exactly and total energy
//   E = sum_cells [ h K + g h (h/2 + b) ] dx dy
// exactly (the Coriolis terms cancel pairwise and the pressure terms by summation by parts); potential
// enstrophy is not conserved exactly (that needs Arakawa-Lamb). A lake at rest (u = v = 0, h + b const)
// has B constant and so zero tendency: the scheme is well balanced.
//
// These functions read neighbours through a SwFields view; loops live in sw_step / sw_reference.
#pragma once
#include <cstdint>

#include "tessera/core/config_macros.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

struct SwParams {
  double gravity = 9.81;
  double f0 = 0.0;    // Coriolis parameter at the reference latitude y_ref
  double beta = 0.0;  // df/dy
  double y_ref = 0.0; // where f = f0 (usually the domain centre)
  bool wall_x = false, wall_y = false;  // walled (free-slip, no normal flow) or periodic per axis
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
  TESSERA_HD double U(int64_t i, int64_t j) const { return hx(i, j) * s.u[gr.idx(i, j)]; }
  TESSERA_HD double V(int64_t i, int64_t j) const { return hy(i, j) * s.v[gr.idx(i, j)]; }
  TESSERA_HD double hc(int64_t i, int64_t j) const {  // h averaged onto the corner
    return 0.25 * ((s.h[gr.idx(i, j)] + s.h[gr.idx(i - 1, j)]) + (s.h[gr.idx(i, j - 1)] + s.h[gr.idx(i - 1, j - 1)]));
  }
  TESSERA_HD double zeta(int64_t i, int64_t j) const {  // relative vorticity at the corner
    return (s.v[gr.idx(i, j)] - s.v[gr.idx(i - 1, j)]) / gr.dx - (s.u[gr.idx(i, j)] - s.u[gr.idx(i, j - 1)]) / gr.dy;
  }
  TESSERA_HD double q(int64_t i, int64_t j) const {  // potential vorticity at the corner
    return (coriolis_corner(p, gr.dy, gr.j0 + j) + zeta(i, j)) / hc(i, j);
  }
  TESSERA_HD double bernoulli(int64_t i, int64_t j) const {
    const double ul = s.u[gr.idx(i, j)], ur = s.u[gr.idx(i + 1, j)];
    const double vs = s.v[gr.idx(i, j)], vn = s.v[gr.idx(i, j + 1)];
    const double k = 0.25 * ((ul * ul + ur * ur) + (vs * vs + vn * vn));
    return p.gravity * (s.h[gr.idx(i, j)] + s.b[gr.idx(i, j)]) + k;
  }

  TESSERA_HD double dh(int64_t i, int64_t j) const {
    return -((U(i + 1, j) - U(i, j)) / gr.dx + (V(i, j + 1) - V(i, j)) / gr.dy);
  }
  TESSERA_HD double du(int64_t i, int64_t j) const {
    const double vx_s = 0.5 * (V(i - 1, j) + V(i, j));          // avg_x V at corner (i-1/2, j-1/2)
    const double vx_n = 0.5 * (V(i - 1, j + 1) + V(i, j + 1));  // ... at corner (i-1/2, j+1/2)
    const double cor = 0.5 * (q(i, j) * vx_s + q(i, j + 1) * vx_n);
    return cor - (bernoulli(i, j) - bernoulli(i - 1, j)) / gr.dx;
  }
  TESSERA_HD double dv(int64_t i, int64_t j) const {
    const double uy_w = 0.5 * (U(i, j - 1) + U(i, j));          // avg_y U at corner (i-1/2, j-1/2)
    const double uy_e = 0.5 * (U(i + 1, j - 1) + U(i + 1, j));  // ... at corner (i+1/2, j-1/2)
    const double cor = -0.5 * (q(i, j) * uy_w + q(i + 1, j) * uy_e);
    return cor - (bernoulli(i, j) - bernoulli(i, j - 1)) / gr.dy;
  }
  // A wall face carries no normal flow: u on global face i = 0 (x walled), v on j = 0 (y walled).
  TESSERA_HD bool u_on_wall(int64_t i) const { return p.wall_x && gr.i0 + i == 0; }
  TESSERA_HD bool v_on_wall(int64_t j) const { return p.wall_y && gr.j0 + j == 0; }
};

}  // namespace tessera::weather
