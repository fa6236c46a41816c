// Validation against closed forms and published data (label: validation). 2-D, CPU-sized.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "lbm_flows.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {

// Max and RMS error of the channel profile against u(y) = g/(2 nu) y (H - y), relative to u_max.
std::pair<double, double> poiseuille_error(int64_t H, CollisionKind k, double omega, int64_t steps, Precision p = Precision::FP64) {
  const double g = 1e-6;
  Simulation sim(MPI_COMM_SELF, exec::Space::Host, poiseuille(H, k, omega, g, p));
  sim.advance(steps);
  std::vector<float> rho, u;
  sim.gather(rho, u);
  const double nu = (1.0 / omega - 0.5) / 3.0, umax = g / (8.0 * nu) * double(H * H);
  double emax = 0, e2 = 0;
  for (int64_t j = 0; j < H; ++j) {
    const double y = double(j) + 0.5, exact = g / (2.0 * nu) * y * (double(H) - y);
    const double e = std::abs(double(u[std::size_t(1 + 4 * j)]) - exact) / umax;
    emax = std::max(emax, e);
    e2 += e * e;
  }
  return {emax, std::sqrt(e2 / double(H))};
}

}  // namespace

TEST_CASE("Poiseuille: TRT with magic 3/16 is exact; BGK converges at second order", "[lbm][validation]") {
  // TRT: steady state after 16 H^2 steps = 2.1 H^2/nu (slowest mode decayed by e^-21); the only error left is round-off. The moments
  // are gathered as fp32, so "exact" here means within fp32 resolution of u_max.
  const auto trt = poiseuille_error(16, CollisionKind::TRT, 1.0 / 0.9, 16 * 16 * 16);
  INFO("TRT max rel error " << trt.first);
  REQUIRE(trt.first < 2e-6);
  // BGK at fixed tau: the wall slip is O(dx^2); the error ratio between H and 2H is ~4.
  const double omega = 1.0 / 0.9;
  const auto b8 = poiseuille_error(8, CollisionKind::BGK, omega, 16 * 8 * 8);
  const auto b16 = poiseuille_error(16, CollisionKind::BGK, omega, 16 * 16 * 16);
  const auto b32 = poiseuille_error(32, CollisionKind::BGK, omega, 16 * 32 * 32);
  const double order1 = std::log2(b8.second / b16.second), order2 = std::log2(b16.second / b32.second);
  INFO("BGK rms errors " << b8.second << " " << b16.second << " " << b32.second << " orders " << order1 << " " << order2);
  REQUIRE(b16.second > 1e-5);  // BGK is not exact: the test would notice if it were TRT in disguise
  REQUIRE(order1 > 1.8);
  REQUIRE(order2 > 1.8);
  REQUIRE(order1 < 2.3);
  REQUIRE(order2 < 2.3);
}

// Kinetic energy of the whole box.
static double kinetic_energy(Simulation& sim) {
  std::vector<float> rho, u;
  sim.gather(rho, u);
  const std::size_t n = rho.size();
  double e = 0;
  for (std::size_t c = 0; c < n; ++c) e += 0.5 * double(rho[c]) * (double(u[c]) * u[c] + double(u[n + c]) * u[n + c]);
  return e;
}

static double tgv_viscosity_error(Precision p, CollisionKind k) {
  const int64_t N = 48;
  const double omega = 1.0 / 0.56, nu = (1.0 / omega - 0.5) / 3.0, kk = 2.0 * M_PI / double(N);
  Simulation sim(MPI_COMM_SELF, exec::Space::Host, taylor_green(N, 0.03, omega, p, k));
  sim.advance(40);
  const double e1 = kinetic_energy(sim);
  const int64_t T = 400;
  sim.advance(T);
  const double e2 = kinetic_energy(sim);
  const double nu_measured = std::log(e1 / e2) / (4.0 * kk * kk * double(T));
  return nu_measured / nu - 1.0;
}

TEST_CASE("Taylor-Green decay gives the viscosity within 1% (BGK, TRT, regularized; fp64, fp32, fp16)", "[lbm][validation]") {
  for (CollisionKind k : {CollisionKind::BGK, CollisionKind::TRT, CollisionKind::Regularized}) {
    const double e64 = tgv_viscosity_error(Precision::FP64, k);
    const double e32 = tgv_viscosity_error(Precision::FP32, k);
    const double e16 = tgv_viscosity_error(Precision::FP16, k);
    std::printf("TGV %s: relative viscosity error fp64 %.3e fp32 %.3e fp16 %.3e\n", to_string(k), e64, e32, e16);
    REQUIRE(std::abs(e64) < 0.01);
    REQUIRE(std::abs(e32) < 0.01);
    REQUIRE(std::abs(e16) < 0.01);
    REQUIRE(std::abs(e32 - e64) < 1e-4);  // fp32 storage changes the decay rate by less than 1e-4
    REQUIRE(std::abs(e16 - e64) < 3e-3);  // fp16 (shifted) storage: within 0.3%
  }
}

namespace {
struct GhiaTable {
  std::vector<double> pos, val;
};
GhiaTable read_ghia(const std::string& file, int column) {
  std::ifstream in(file);
  if (!in) FAIL("cannot open " << file << ": the Ghia reference tables belong in cases/lbm/reference/");
  GhiaTable t;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::stringstream ss(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    t.pos.push_back(v[1]);
    t.val.push_back(v[std::size_t(column)]);
  }
  return t;
}
// Linear interpolation of cell-centred values f[0..N) at position s in [0, 1], with wall values.
double interp(const std::vector<double>& f, double s, double lo_wall, double hi_wall) {
  const int64_t N = int64_t(f.size());
  const double x = s * double(N) - 0.5;
  if (x <= 0) return lo_wall + (f[0] - lo_wall) * (s * double(N)) / 0.5;
  if (x >= double(N - 1)) return hi_wall + (f[std::size_t(N - 1)] - hi_wall) * ((1.0 - s) * double(N)) / 0.5;
  const int64_t i = int64_t(x);
  const double t = x - double(i);
  return f[std::size_t(i)] * (1 - t) + f[std::size_t(i + 1)] * t;
}
}  // namespace

TEST_CASE("lid-driven cavity at Re 100 matches Ghia et al. (1982)", "[lbm][validation]") {
  const int64_t N = 64;
  const double U = 0.1;
  Simulation sim(MPI_COMM_SELF, exec::Space::Host, cavity(N, U, 100.0, CollisionKind::TRT, Precision::FP32));
  sim.advance(12000);  // 19 lid transits N/U: steady to well below the tolerance
  std::vector<float> rho, u;
  sim.gather(rho, u);
  const std::size_t n = rho.size();
  std::vector<double> uc(static_cast<std::size_t>(N)), vc(static_cast<std::size_t>(N));
  for (int64_t j = 0; j < N; ++j)  // x = 0.5 lies between cells N/2 - 1 and N/2
    uc[std::size_t(j)] = 0.5 * (u[std::size_t(N / 2 - 1 + N * j)] + u[std::size_t(N / 2 + N * j)]) / U;
  for (int64_t i = 0; i < N; ++i)
    vc[std::size_t(i)] = 0.5 * (u[n + std::size_t(i + N * (N / 2 - 1))] + u[n + std::size_t(i + N * (N / 2))]) / U;
  const std::string dir = TESSERA_LBM_CASES_DIR "/reference/";
  const GhiaTable gu = read_ghia(dir + "ghia1982_u_vertical_centreline.csv", 2);
  const GhiaTable gv = read_ghia(dir + "ghia1982_v_horizontal_centreline.csv", 2);
  double eu = 0, ev = 0;
  for (std::size_t k = 0; k < gu.pos.size(); ++k) eu = std::max(eu, std::abs(interp(uc, gu.pos[k], 0.0, 1.0) - gu.val[k]));
  for (std::size_t k = 0; k < gv.pos.size(); ++k) ev = std::max(ev, std::abs(interp(vc, gv.pos[k], 0.0, 0.0) - gv.val[k]));
  std::printf("cavity Re 100, %ldx%ld: max |u - u_Ghia| = %.4f U, max |v - v_Ghia| = %.4f U\n", long(N), long(N), eu, ev);
  REQUIRE(gu.pos.size() >= 17);
  REQUIRE(eu < 0.02);
  REQUIRE(ev < 0.02);
}
