// Horizontal tracer advection in flux form with a monotone (minmod) limiter, per level.
//
//   dc/dt = -(dx (u c) + dy (v c)),   u, v on the C-grid faces (the same on every level)
// Face values by MUSCL reconstruction from the upwind side with minmod-limited slopes (van Leer 1979,
// J. Comput. Phys. 32, 101; Harten 1983): TVD under forward Euler for Courant <= 1/2, and so under
// SSP-RK3 with the same time-step limit (Gottlieb, Shu & Tadmor 2001). The flux form conserves the
// tracer sum exactly. Needs ghost width 2.
#pragma once
#include <cmath>

#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_step.hpp"  // CellRect

namespace tessera::weather {

struct TracerPoint {
  Grid gr;
  const double* c;
  const double* u;  // 2-D (one plane), west faces
  const double* v;  // 2-D, south faces
  TESSERA_HD static double minmod(double a, double b) {
    return a * b <= 0.0 ? 0.0 : (fabs(a) < fabs(b) ? a : b);
  }
  // face value at the face between cells m (lower) and p (upper), given the cells mm below m and pp above p
  TESSERA_HD static double face(double vel, double mm, double m, double p, double pp) {
    return vel >= 0.0 ? m + 0.5 * minmod(p - m, m - mm) : p - 0.5 * minmod(pp - p, p - m);
  }
  TESSERA_HD double flux_x(int64_t i, int64_t j, int64_t k) const {  // through west face of (i, j)
    const double vel = u[gr.idx(i, j)];
    return vel * face(vel, c[gr.idx(i - 2, j, k)], c[gr.idx(i - 1, j, k)], c[gr.idx(i, j, k)], c[gr.idx(i + 1, j, k)]);
  }
  TESSERA_HD double flux_y(int64_t i, int64_t j, int64_t k) const {  // through south face of (i, j)
    const double vel = v[gr.idx(i, j)];
    return vel * face(vel, c[gr.idx(i, j - 2, k)], c[gr.idx(i, j - 1, k)], c[gr.idx(i, j, k)], c[gr.idx(i, j + 1, k)]);
  }
  TESSERA_HD double tendency(int64_t i, int64_t j, int64_t k) const {
    return -((flux_x(i + 1, j, k) - flux_x(i, j, k)) / gr.dx + (flux_y(i, j + 1, k) - flux_y(i, j, k)) / gr.dy);
  }
};

// One SSP stage for all levels: out = a c0 + s (ck + dt L(ck)); ck needs valid ghosts.
void tracer_stage(const exec::Exec& ex, const Grid& gr, const double* c0, const double* ck, const double* u,
                  const double* v, double* out, double a, double s, double dt);
// The same over the cells [r.i0, r.i1) x [r.j0, r.j1) of every level (overlap with the halo exchange).
void tracer_stage(const exec::Exec& ex, const Grid& gr, const double* c0, const double* ck, const double* u,
                  const double* v, double* out, double a, double s, double dt, const CellRect& r);

// Sum of the tracer over this rank's interior cells and all levels.
double tracer_sum(const exec::Exec& ex, const Grid& gr, const double* c);

}  // namespace tessera::weather
