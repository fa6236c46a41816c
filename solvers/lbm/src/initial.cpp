// Analytic initial states (see initial.hpp).
#include "tessera/lbm/solver/initial.hpp"

#include <cmath>

#include "tessera/lbm/solver/app.hpp"

namespace tessera::lbm {

InitialState taylor_green_2d(const std::array<int64_t, 3>& n, double u0) {
  const double kx = 2.0 * M_PI / double(n[0]), ky = 2.0 * M_PI / double(n[1]);
  const double ax = std::sqrt(ky / kx), ay = std::sqrt(kx / ky);
  return [=](int64_t i, int64_t j, int64_t, double& rho, double u[3]) {
    const double x = double(i) + 0.5, y = double(j) + 0.5;
    u[0] = -u0 * ax * std::cos(kx * x) * std::sin(ky * y);
    u[1] = u0 * ay * std::sin(kx * x) * std::cos(ky * y);
    u[2] = 0;
    const double p = -u0 * u0 / 4.0 * (ky / kx * std::cos(2 * kx * x) + kx / ky * std::cos(2 * ky * y));
    rho = 1.0 + 3.0 * p;
  };
}

InitialState taylor_green_3d(const std::array<int64_t, 3>& n, double u0) {
  const double kx = 2.0 * M_PI / double(n[0]), ky = 2.0 * M_PI / double(n[1]), kz = 2.0 * M_PI / double(n[2]);
  return [=](int64_t i, int64_t j, int64_t k, double& rho, double u[3]) {
    const double x = kx * (double(i) + 0.5), y = ky * (double(j) + 0.5), z = kz * (double(k) + 0.5);
    u[0] = u0 * std::sin(x) * std::cos(y) * std::cos(z);
    u[1] = -u0 * std::cos(x) * std::sin(y) * std::cos(z);
    u[2] = 0;
    const double p = u0 * u0 / 16.0 * (std::cos(2 * x) + std::cos(2 * y)) * (std::cos(2 * z) + 2.0);
    rho = 1.0 + 3.0 * p;
  };
}

InitialState initial_from_case(const Case& c, const Units& u) {
  if (c.get<std::string>("initial.state") == "rest") return nullptr;
  double v = c.get<double>("initial.velocity");
  if (v == 0) v = c.get<double>("physics.velocity");
  const double u0 = v * u.dt / u.dx;
  const auto n = c.get<std::array<int64_t, 3>>("domain.cells");
  return n[2] == 1 ? taylor_green_2d(n, u0) : taylor_green_3d(n, u0);
}

std::string check_initial(const Case& c) {
  if (c.get<std::string>("initial.state") != "taylor_green") return "";
  const auto n = c.get<std::array<int64_t, 3>>("domain.cells");
  for (const char* f : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"}) {
    if (n[2] == 1 && f[0] == 'z') continue;
    if (c.get<std::string>(std::string("boundary.") + f + ".type") != "periodic")
      return std::string("initial.state: taylor_green needs a periodic box, but boundary.") + f +
             ".type is not periodic: set every face to periodic or use initial.state: rest";
  }
  return "";
}

}  // namespace tessera::lbm
