// Schaefer-Turek 2D-1 quantities from gathered lattice fields (mirrors postproc/lbm/cylinder_schaefer_turek.py):
// the pressure difference dp = p(0.15, 0.2) - p(0.25, 0.2) between the front and back points of the cylinder,
// and the recirculation length L_a = x_r - 0.25, x_r the first point behind the cylinder on the line y = 0.2
// where u_x turns positive again.
//
// Values on the line y = 0.2 interpolate the two cell rows around it; the front and back surface points,
// which lie on the staircase surface, are extrapolated linearly from the two nearest fluid cells (with
// half-way bounce-back the wall sits half a cell beyond the last fluid centre, so this is first order).
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace tessera::lbm::cyl {

struct CylinderMetrics {
  double dp = 0;  // Pa (rho = 1)
  double la = 0;  // m
};

// rho, u: gathered fields (x fastest, u planar [3][N]) in lattice units; solid(i, j) for the cylinder cells.
inline CylinderMetrics cylinder_metrics(const std::vector<float>& rho, const std::vector<float>& u, int64_t nx, int64_t ny,
                                        double dx, double dt, const std::function<bool(int64_t, int64_t)>& solid) {
  const double y = 0.2, yc = y / dx - 0.5;
  const int64_t j0 = int64_t(std::floor(yc));
  const double wy = yc - double(j0);
  auto line = [&](const std::vector<float>& f, int64_t off, int64_t i) {
    return (1 - wy) * double(f[std::size_t(off + i + nx * j0)]) + wy * double(f[std::size_t(off + i + nx * (j0 + 1))]);
  };
  auto fluid = [&](int64_t i) { return !solid(i, j0) && !solid(i, j0 + 1); };
  const double ps = (dx / dt) * (dx / dt) / 3.0;  // p = c_s^2 (rho - 1) (dx / dt)^2 with rho_0 = 1
  auto p_at = [&](double x, int dir) {  // dir -1: extrapolate from upstream cells, +1: downstream
    int64_t i = int64_t(std::floor(x / dx - 0.5));
    if (dir < 0) {
      while (!fluid(i)) --i;
    } else {
      i += 1;
      while (!fluid(i)) ++i;
    }
    const int64_t i2 = i + dir;
    const double x1 = (double(i) + 0.5) * dx, x2 = (double(i2) + 0.5) * dx;
    const double p1 = line(rho, 0, i) - 1.0, p2 = line(rho, 0, i2) - 1.0;
    return ps * (p1 + (p2 - p1) * (x - x1) / (x2 - x1));
  };
  CylinderMetrics m;
  m.dp = p_at(0.15, -1) - p_at(0.25, +1);
  const int64_t N = nx * ny;
  int64_t i = int64_t(std::floor(0.25 / dx - 0.5)) + 1;
  while (!fluid(i)) ++i;
  while (i + 1 < nx && line(u, 0, i + 1) < 0) ++i;
  (void)N;
  const double u1 = line(u, 0, i), u2 = line(u, 0, i + 1);
  const double xr = (double(i) + 0.5) * dx + dx * (u1 < 0 ? u1 / (u1 - u2) : 0.0);
  m.la = xr - 0.25;
  return m;
}

}  // namespace tessera::lbm::cyl
