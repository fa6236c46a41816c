// Case set-ups shared by the validation tests (and mirrored by the YAML files in cases/lbm/).
#pragma once
#include <cmath>

#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm::test {

// Force-driven channel: periodic in x, walls at y = 0 and y = H. Exact steady profile
// u(y) = g / (2 nu) y (H - y), walls half-way between the last fluid cell and the wall cell.
inline SimulationSpec poiseuille(int64_t H, CollisionKind k, double omega, double g, Precision p = Precision::FP64) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  s.collision.omega = omega;
  s.collision.force[0] = g;
  s.global = {4, H, 1};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  return s;
}

// 2-D Taylor-Green vortex in a periodic N x N box: u = -u0 cos(kx) sin(ky), v = u0 sin(kx) cos(ky),
// p = -rho u0^2 / 4 (cos 2kx + cos 2ky); the kinetic energy decays as exp(-4 nu k^2 t).
inline SimulationSpec taylor_green(int64_t N, double u0, double omega, Precision p, CollisionKind k) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  s.collision.omega = omega;
  s.global = {N, N, 1};
  const double kk = 2.0 * M_PI / double(N);
  s.initial = [=](int64_t i, int64_t j, int64_t, double& rho, double u[3]) {
    const double x = double(i) + 0.5, y = double(j) + 0.5;
    u[0] = -u0 * std::cos(kk * x) * std::sin(kk * y);
    u[1] = u0 * std::sin(kk * x) * std::cos(kk * y);
    u[2] = 0;
    rho = 1.0 - 3.0 * u0 * u0 / 4.0 * (std::cos(2 * kk * x) + std::cos(2 * kk * y));
  };
  return s;
}

// Lid-driven cavity of N x N cells, lid (y = N) moving at U along x, Re = U N / nu.
inline SimulationSpec cavity(int64_t N, double U, double Re, CollisionKind k, Precision p) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  const double nu = U * double(N) / Re;
  s.collision.omega = 1.0 / (3.0 * nu + 0.5);
  s.global = {N, N, 1};
  for (auto& f : s.faces) f.kind = FaceBC::Wall;
  s.faces[3].u = {U, 0, 0};
  return s;
}

}  // namespace tessera::lbm::test
