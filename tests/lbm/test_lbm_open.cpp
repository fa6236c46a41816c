// Open boundaries (velocity inlet, pressure outlet; open_boundary.hpp): a channel driven by them reaches
// the analytic Poiseuille profile and pressure gradient; a long run stays stable; N ranks equal 1 rank bit
// for bit; the GPU matches the host.
#include <cmath>
#include <cstdlib>

#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {

// Channel along x: parabolic inlet (u_max) at x_min, outlet rho = 1 at x_max, walls at y = 0 and y = H
// (the box faces). Steady state: u(y) = 4 u_max s (1 - s), s = y / H, and dp/dx = -8 rho nu u_max / H^2.
SimulationSpec channel(LatticeKind k, int64_t nx, int64_t H, double umax, double omega, Precision p,
                       CollisionKind ck = CollisionKind::TRT) {
  SimulationSpec s;
  s.lattice = k;
  s.precision = p;
  s.collision.kind = ck;
  s.collision.omega = omega;
  s.global = {nx, H, lattice_dim(k) == 2 ? 1 : 6};
  s.faces[0].kind = FaceBC::VelocityInlet;
  s.faces[0].u = {umax, 0, 0};
  s.faces[0].parabolic = true;
  s.faces[1].kind = FaceBC::PressureOutlet;
  s.faces[1].rho = 1.0;
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;  // z periodic in 3-D: a plane channel
  return s;
}

double exact(int64_t j, int64_t H, double umax) {
  const double s = (double(j) + 0.5) / double(H);
  return 4.0 * umax * s * (1.0 - s);
}

}  // namespace

// TRT with Lambda = 3/16 makes the half-way walls exact for the parabola, so the remaining error is the
// open boundaries' own plus compressibility: with a fixed inlet velocity the density falls along the
// channel (rho u is conserved), so u grows downstream by the relative density drop (here 0.45 %). Checked:
//  * the profile shape u(x, y) / mean_y u(x, .) against the parabola's, at the inlet, outlet and between:
//    within 3e-4 (measured 1.6e-4; it scales as u_max^2: 6.2e-4 at u_max = 0.02, 2.3e-3 at 0.04, so it is
//    the compressibility error of the weakly compressible scheme, not the boundaries'),
//  * the cross-flow |v| < 1e-4 u_max,
//  * the momentum balance dp/dx = rho nu d2u/dy2 with the local centre-line amplitude: within 1 %.
TEST_CASE("Poiseuille channel driven by a velocity inlet and a pressure outlet", "[lbm][open]") {
  const int64_t nx = 48, H = 16;
  const double umax = 0.01, omega = 1.0 / 0.8, nu = (1.0 / omega - 0.5) / 3.0;
  if (test::mpi_rank() != 0) return;  // physics on one rank; N ranks are compared below
  SimulationSpec spec = channel(LatticeKind::D2Q9, nx, H, umax, omega, Precision::FP64);
  Simulation sim(MPI_COMM_SELF, exec::Space::Host, spec);
  sim.advance(6000);
  std::vector<float> rho, u;
  sim.gather(rho, u);
  if (test::mpi_rank() != 0) return;
  const int64_t N = nx * H;
  double emean = 0;
  for (int64_t j = 0; j < H; ++j) emean += exact(j, H, umax) / double(H);
  double err = 0, verr = 0;
  for (int64_t i : {int64_t(0), int64_t(8), nx / 2, nx - 8, nx - 1}) {
    double mean = 0;
    for (int64_t j = 0; j < H; ++j) mean += double(u[std::size_t(i + nx * j)]) / double(H);
    for (int64_t j = 0; j < H; ++j) {
      err = std::max(err, std::abs(double(u[std::size_t(i + nx * j)]) / mean - exact(j, H, umax) / emean));
      verr = std::max(verr, std::abs(double(u[std::size_t(N + i + nx * j)])));
    }
  }
  // Momentum balance at the centre column: central difference of p = rho / 3 over +-4 cells on the centre
  // line against rho nu u'' = -8 rho nu a / H^2, a the local amplitude fitted to the column.
  const int64_t ic = nx / 2, jc = H / 2;
  const double grad = (double(rho[std::size_t(ic + 4 + nx * jc)]) - double(rho[std::size_t(ic - 4 + nx * jc)])) / 8.0 / 3.0;
  double a = 0;
  for (int64_t j = 0; j < H; ++j) a += double(u[std::size_t(ic + nx * j)]) / (exact(j, H, 1.0) * double(H));
  const double grad_exact = -8.0 * double(rho[std::size_t(ic + nx * jc)]) * nu * a / double(H * H);
  INFO("profile shape error " << err << ", max |v| / u_max = " << verr / umax << ", dp/dx = " << grad << " (balance "
                              << grad_exact << "), density drop inlet -> outlet "
                              << double(rho[std::size_t(nx * jc)]) - double(rho[std::size_t(nx - 1 + nx * jc)]));
  CHECK(err < 3e-4);
  CHECK(verr < 1e-4 * umax);
  CHECK(std::abs(grad - grad_exact) < 0.01 * std::abs(grad_exact));
  // The inlet cells carry the prescribed velocity and the outlet cells the prescribed density.
  for (int64_t j = 0; j < H; ++j) {
    CHECK(std::abs(double(u[std::size_t(nx * j)]) - exact(j, H, umax)) < 1e-7);
    CHECK(std::abs(double(rho[std::size_t(nx - 1 + nx * j)]) - 1.0) < 1e-7);
  }
}

// Uniform inflow (a velocity jump at the inlet-wall corners) into a channel at tau = 0.52 (nu = 0.0067,
// channel Reynolds number u H / nu = 72), TRT, fp32, 60,000 steps: the flow develops into the parabola
// downstream and stays bounded and steady: between steps 40,000 and 60,000 no cell's velocity changes by more
// than 1e-3 u_in (no drift, no growing oscillation; measured 1.1e-4 in fp32). Measured on the development machine: parabolic inflow
// with TRT is stable down to tau = 0.51; the regularized collision needs tau >= 0.52 here.
TEST_CASE("Open boundaries stay stable on a long run at tau close to 1/2", "[lbm][open]") {
  const double uin = 0.04;
  SimulationSpec spec = channel(LatticeKind::D2Q9, 40, 12, uin, 1.0 / 0.52, Precision::FP32, CollisionKind::TRT);
  spec.faces[0].parabolic = false;
  if (test::mpi_rank() != 0) return;  // physics on one rank; N ranks are compared below
  Simulation sim(MPI_COMM_SELF, exec::Space::Host, spec);
  sim.advance(40000);
  std::vector<float> rho0, u0, rho, u;
  sim.gather(rho0, u0);
  sim.advance(20000);
  sim.gather(rho, u);
  if (test::mpi_rank() != 0) return;
  double rmin = 2, rmax = 0, umax = 0, drift = 0;
  for (float r : rho) rmin = std::min(rmin, double(r)), rmax = std::max(rmax, double(r));
  for (std::size_t i = 0; i < u.size(); ++i) {
    REQUIRE(std::isfinite(u[i]));
    umax = std::max(umax, double(std::abs(u[i])));
    drift = std::max(drift, double(std::abs(u[i] - u0[i])));
  }
  INFO("rho in [" << rmin << ", " << rmax << "], max |u| = " << umax << ", max |du| over 20,000 steps " << drift);
  CHECK(rmin > 0.99);
  CHECK(rmax < 1.05);
  CHECK(umax < 1.6 * uin);
  CHECK(umax > 1.3 * uin);  // developed: the centre line approaches 1.5 u_in
  CHECK(drift < 1e-3 * uin);  // measured 1.1e-4 u_in (fp32)
}

namespace {
// 1 rank vs N ranks on a channel with an inlet, an outlet, walls and an obstacle.
void compare_ranks(const SimulationSpec& spec, int64_t steps, std::array<int, 3> dims, exec::Space space) {
  const auto [n, one] = fixtures::run_n_and_one(spec, steps, dims, space);
  if (test::mpi_rank() != 0) return;
  CHECK(fixtures::same_bits(n.rho, one.rho));
  CHECK(fixtures::same_bits(n.u, one.u));
  CHECK(fixtures::max_abs(one.u) > 1e-3);  // the flow moved: comparing zeros would prove nothing
}

SimulationSpec obstacle_channel(LatticeKind k, Precision p) {
  SimulationSpec s = channel(k, 29, 13, 0.06, 1.6, p, CollisionKind::Regularized);
  s.body = [](int64_t x, int64_t y, int64_t) { return (x - 9) * (x - 9) + (y - 6) * (y - 6) <= 5 ? 0 : -1; };
  s.solid = [b = s.body](int64_t x, int64_t y, int64_t z) { return b(x, y, z) >= 0; };
  return s;
}
}  // namespace

TEST_CASE("Open boundaries: N ranks equal 1 rank bit for bit", "[lbm][open][mpi]") {
  const int n = test::mpi_size();
  compare_ranks(obstacle_channel(LatticeKind::D2Q9, Precision::FP32), 61, {n, 1, 1}, exec::Space::Host);
  compare_ranks(obstacle_channel(LatticeKind::D2Q9, Precision::FP64), 60, {1, n, 1}, exec::Space::Host);
  compare_ranks(obstacle_channel(LatticeKind::D3Q19, Precision::FP16), 21, {0, 0, 0}, exec::Space::Host);
}

// GPU vs host with open boundaries, every lattice: same fields to rounding (the device contracts to FMA):
// |drho|, |du| < 2e-6 after 50 steps (fp32), and the forces on the obstacle to 1e-5 relative.
TEST_CASE("GPU: open boundaries and forces match the host", "[lbm][open][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D2Q9, LatticeKind::D3Q19, LatticeKind::D3Q27}) {
    SimulationSpec spec = obstacle_channel(k, Precision::FP32);
    std::vector<float> rd, ud, rh, uh;
    std::vector<std::array<double, 6>> fd, fh;
    const std::vector<int> ids = {kBodyWallId0, kFaceWallId0 + 2, kFaceWallId0 + 3};
    {
      Simulation sim(MPI_COMM_WORLD, exec::Space::Device, spec);
      sim.advance(50);
      sim.gather(rd, ud);
      fd = sim.wall_forces(ids);
    }
    {
      Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
      sim.advance(50);
      sim.gather(rh, uh);
      fh = sim.wall_forces(ids);
    }
    compare_ranks(spec, 31, {0, 0, 0}, exec::Space::Device);
    if (test::mpi_rank() != 0) continue;
    double dr = 0, du = 0;
    for (std::size_t i = 0; i < rd.size(); ++i) dr = std::max(dr, double(std::abs(rd[i] - rh[i])));
    for (std::size_t i = 0; i < ud.size(); ++i) du = std::max(du, double(std::abs(ud[i] - uh[i])));
    INFO(to_string(k) << ": max |drho| " << dr << " max |du| " << du);
    CHECK(dr < 2e-6);
    CHECK(du < 2e-6);
    for (std::size_t b = 0; b < ids.size(); ++b)
      for (int a = 0; a < 3; ++a)
        CHECK(std::abs(fd[b][size_t(a)] - fh[b][size_t(a)]) <= 1e-5 * (1.0 + std::abs(fh[b][size_t(a)])));
  }
}
