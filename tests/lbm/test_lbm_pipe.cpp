// Second-order convergence of interpolated bounce-back (Bouzidi et al. 2001): force-driven flow in a
// circular pipe along z (D3Q19, fp64, one cell deep, periodic) against the analytic Hagen-Poiseuille
// profile u_z(r) = g (R^2 - r^2) / (4 nu), at R = 4, 8, 16 cells (BGK tau = 1); half-way bounce-back (the
// staircase) converges at first order on the same grids. Measured: see docs/lbm.md.
#include <cmath>
#include <cstdio>

#include "catch_compat.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {

// Entry fraction of p + t d, t in (0, 1], into the exterior of the circle (centre c, radius r).
double outside_fraction(double cx, double cy, double r, double px, double py, double dx, double dy) {
  const double ox = px - cx, oy = py - cy;
  const double A = dx * dx + dy * dy, B = 2 * (ox * dx + oy * dy), C = ox * ox + oy * oy - r * r;
  const double disc = B * B - 4 * A * C;
  if (disc < 0) return -1;
  const double t = (-B + std::sqrt(disc)) / (2 * A);
  return t > 0 && t <= 1 ? t : -1;
}

// L2 error of u_z over the fluid cells of a pipe of radius R (lattice units) after the flow settled.
double pipe_error(double R, bool interpolated) {
  const int64_t n = int64_t(2 * R) + 4;
  const double c0 = 0.5 * double(n) + 0.23, c1 = 0.5 * double(n) - 0.17;  // off the lattice symmetry
  const double tau = 1.0, nu = (tau - 0.5) / 3.0, umax = 0.02, g = 4 * nu * umax / (R * R);
  SimulationSpec s;
  s.lattice = LatticeKind::D3Q19;
  s.precision = Precision::FP64;
  s.collision.kind = CollisionKind::BGK;
  s.collision.omega = 1.0 / tau;
  s.collision.force[2] = g;
  s.global = {n, n, 1};
  auto exact = [=](int64_t i, int64_t j) {
    const double x = double(i) + 0.5 - c0, y = double(j) + 0.5 - c1, r2 = x * x + y * y;
    return r2 < R * R ? g * (R * R - r2) / (4 * nu) : 0.0;
  };
  s.body = [=](int64_t i, int64_t j, int64_t) {
    const double x = double(i) + 0.5 - c0, y = double(j) + 0.5 - c1;
    return x * x + y * y > R * R ? 0 : -1;
  };
  s.solid = [b = s.body](int64_t i, int64_t j, int64_t k) { return b(i, j, k) >= 0; };
  if (interpolated)
    s.link_fraction = [=](int, int64_t i, int64_t j, int64_t, int dx, int dy, int) {
      return outside_fraction(c0, c1, R, double(i) + 0.5, double(j) + 0.5, dx, dy);
    };
  // Start from the analytic profile: the lattice solution differs from it by the discretisation error
  // only, which then relaxes on the viscous time R^2 / nu (slowest mode exp(-5.78 nu t / R^2)).
  s.initial = [=](int64_t i, int64_t j, int64_t, double& rho, double u[3]) {
    rho = 1;
    u[0] = u[1] = 0;
    u[2] = exact(i, j);
  };
  Simulation sim(MPI_COMM_SELF, exec::Space::Host, s);
  sim.advance(int64_t(1.5 * R * R / nu));
  std::vector<float> rho, u;
  sim.gather(rho, u);
  double e2 = 0, r2 = 0;
  const int64_t N = n * n;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      if (s.solid(i, j, 0)) continue;
      const double d = double(u[std::size_t(2 * N + i + n * j)]) - exact(i, j);
      e2 += d * d, r2 += exact(i, j) * exact(i, j);
    }
  return std::sqrt(e2 / r2);
}

}  // namespace

TEST_CASE("circular pipe: interpolated bounce-back converges at second order", "[lbm][validation]") {
  if (test::mpi_rank() != 0) return;
  const double R[3] = {4.0, 8.0, 16.0};
  double ei[3], eh[3] = {0, 0, 0};
  for (int r = 0; r < 3; ++r) ei[r] = pipe_error(R[r], true);
  eh[0] = pipe_error(R[0], false);  // half-way at the coarsest and finest grids only (CI time)
  eh[2] = pipe_error(R[2], false);
  const double si = std::log(ei[0] / ei[2]) / std::log(R[2] / R[0]);
  const double sh = std::log(eh[0] / eh[2]) / std::log(R[2] / R[0]);
  std::printf("pipe L2 errors: interpolated %.4g %.4g %.4g (order %.3f); half-way %.4g, %.4g (order %.3f)\n", ei[0],
              ei[1], ei[2], si, eh[0], eh[2], sh);
  INFO("interpolated L2 errors " << ei[0] << " " << ei[1] << " " << ei[2] << " (slope " << si << "); half-way "
                                 << eh[0] << " " << eh[2] << " (slope " << sh << ")");
  CHECK(si > 1.7);
  CHECK(ei[2] < 0.5 * eh[2]);
  CHECK(ei[2] < 2e-3);
}
