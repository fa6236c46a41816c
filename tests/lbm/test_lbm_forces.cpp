// Forces by momentum exchange (momentum_exchange.hpp) and the force time series (forces.hpp).
//  * Momentum balance: in a fully periodic box driven by a uniform body force, at steady state the force
//    on the obstacle equals the total body force on the fluid, F N_fluid (nothing else can take it).
//  * Moving walls: plane Couette flow; the shear force on each plate is nu U L / H (lattice units), equal
//    and opposite, and the rest pressure pushes each plate outward with L / 3.
//  * The series: CSV + HDF5 in the output directory, drag/lift coefficients, restart without duplicates.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/forces.hpp"

using namespace tessera;
using namespace tessera::lbm;
namespace fs = std::filesystem;

namespace {
SimulationSpec periodic_obstacle(LatticeKind k, Precision p, double g) {
  SimulationSpec s;
  s.lattice = k;
  s.precision = p;
  s.collision.kind = CollisionKind::TRT;
  s.collision.omega = 1.0;
  s.collision.force[0] = g;
  s.collision.force[1] = 0.3 * g;  // oblique: both components must balance
  const bool d3 = lattice_dim(k) == 3;
  s.global = d3 ? std::array<int64_t, 3>{16, 14, 12} : std::array<int64_t, 3>{40, 30, 1};
  s.body = [d3](int64_t x, int64_t y, int64_t z) {
    const double dx = x - (d3 ? 7.3 : 17.2), dy = y - (d3 ? 6.6 : 13.7), dz = d3 ? z - 5.5 : 0.0;
    return dx * dx + dy * dy + dz * dz <= (d3 ? 12.0 : 30.0) ? 0 : -1;
  };
  s.solid = [b = s.body](int64_t x, int64_t y, int64_t z) { return b(x, y, z) >= 0; };
  return s;
}

using fixtures::fluid_cells;
}  // namespace

// Tolerance: relative 1e-3 of the total body force (the transient's momentum decays as exp(-t nu k^2);
// measured residuals 1e-6 .. 1e-4 after the steps below).
TEST_CASE("Force on an obstacle balances the body force in a periodic box", "[lbm][forces]") {
  const std::pair<LatticeKind, int64_t> cases[] = {{LatticeKind::D2Q9, 4000}, {LatticeKind::D3Q19, 1500}};
  for (const auto& [k, steps] : cases) {
    const double g = 1e-5;
    const SimulationSpec spec = periodic_obstacle(k, Precision::FP64, g);
    Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
    sim.advance(steps);
    const auto f = sim.wall_forces({kBodyWallId0})[0];
    const double N = double(fluid_cells(spec));
    INFO(to_string(k) << ": F = (" << f[0] << ", " << f[1] << ", " << f[2] << "), body force total ("
                      << g * N << ", " << 0.3 * g * N << ")");
    CHECK(std::abs(f[0] - g * N) < 1e-3 * g * N);
    CHECK(std::abs(f[1] - 0.3 * g * N) < 1e-3 * g * N);
    CHECK(std::abs(f[2]) < 1e-3 * g * N);
    // Odd and even steps give the same force at steady state (the AA slots are read differently).
    sim.advance(1);
    const auto f2 = sim.wall_forces({kBodyWallId0})[0];
    CHECK(std::abs(f2[0] - f[0]) < 1e-3 * g * N);
  }
}

TEST_CASE("Moving wall forces: plane Couette flow", "[lbm][forces]") {
  const int64_t L = 8, H = 12;
  const double U = 0.05, omega = 1.0 / 0.9, nu = (1.0 / omega - 0.5) / 3.0;
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = Precision::FP64;
  s.collision.kind = CollisionKind::BGK;
  s.collision.omega = omega;
  s.global = {L, H, 1};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {U, 0, 0};
  Simulation sim(MPI_COMM_WORLD, exec::Space::Host, s);
  sim.advance(4000);
  const auto f = sim.wall_forces({kFaceWallId0 + 2, kFaceWallId0 + 3});
  const double shear = nu * U * double(L) / double(H);
  INFO("bottom F = (" << f[0][0] << ", " << f[0][1] << "), top F = (" << f[1][0] << ", " << f[1][1]
                      << "), nu U L / H = " << shear);
  CHECK(std::abs(f[0][0] - shear) < 1e-6 * shear + 1e-12);
  CHECK(std::abs(f[1][0] + shear) < 1e-6 * shear + 1e-12);
  CHECK(std::abs(f[0][1] + double(L) / 3.0) < 1e-9);
  CHECK(std::abs(f[1][1] - double(L) / 3.0) < 1e-9);
}

namespace {
std::string series_case() {
  return "domain: {cells: [40, 30, 1], length: 0.04, lattice: D2Q9}\n"
         "physics: {viscosity: 1.0e-4, velocity: 0.01, acceleration: [0.02, 0, 0], density: 1000}\n"
         "time: {end: 10.0}\n"
         "obstacles:\n  - {shape: cylinder, center: [0.0172, 0.0137, 0], radius: 0.0055, name: post}\n"
         "forces: {every: 10, reference_velocity: 0.01, reference_area: 0.011}\n";
}

std::vector<std::string> lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> v;
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}
}  // namespace

TEST_CASE("Force series: CSV + HDF5, coefficients, restart without duplicates", "[lbm][forces]") {
  const fs::path dir = test::scratch_root() / "lbm_forces";
  if (test::mpi_rank() == 0) fs::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const Case c = Case::from_string(series_case(), schema(), "forces-test.yaml");
  const Units u = units_from_case(c);
  SimulationSpec spec = spec_from_case(c, u);
  Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
  {
    ForceSeries fs1(sim, u, c, dir.string(), -1);
    REQUIRE(fs1.active());
    for (int s = 0; s < 5; ++s) {
      sim.advance(10);
      fs1.sample(sim, double(sim.step()) * u.dt, s == 4);
    }
    if (test::mpi_rank() == 0) {
      REQUIRE(fs1.rows().size() == 5);
      const auto& r = fs1.rows().back();
      // SI conversion and coefficients: F = F_lat rho dx^3 / dt^2 (2-D), C_D = 2 F_x / (rho U^2 D).
      const auto fl = sim.wall_forces({kBodyWallId0})[0];
      const double F = fl[0] * 1000.0 * std::pow(u.dx, 3) / (u.dt * u.dt);
      CHECK(std::abs(r.force[0] - F) < 1e-9 * std::abs(F));
      CHECK(std::abs(r.cd - 2 * F / (1000.0 * 0.01 * 0.01 * 0.011)) < 1e-9 * std::abs(r.cd));
      CHECK(r.force[0] > 0);
      CHECK(fs::exists(dir / "forces.h5"));
      const auto l = lines(dir / "forces.csv");
      REQUIRE(l.size() == 6);
      CHECK(l[0] == "step,time,body,fx,fy,fz,tx,ty,tz,cd,cl");
      CHECK(l[5].rfind("50,", 0) == 0);
      CHECK(l[5].find(",post,") != std::string::npos);
    } else {
      (void)sim.wall_forces({kBodyWallId0});
    }
  }
  // Restart at step 30 (a fresh simulation advanced to 30): rows 40 and 50 are dropped, then written
  // again, once, with the same values (the run is deterministic).
  std::vector<std::string> before = test::mpi_rank() == 0 ? lines(dir / "forces.csv") : std::vector<std::string>{};
  {
    Simulation sim2(MPI_COMM_WORLD, exec::Space::Host, spec);
    sim2.advance(30);
    ForceSeries fs2(sim2, u, c, dir.string(), 30);
    if (test::mpi_rank() == 0) {
      REQUIRE(fs2.rows().size() == 3);
      CHECK(lines(dir / "forces.csv").size() == 4);
    }
    for (int s = 0; s < 2; ++s) {
      sim2.advance(10);
      fs2.sample(sim2, double(sim2.step()) * u.dt, s == 1);
    }
    if (test::mpi_rank() == 0) CHECK(lines(dir / "forces.csv") == before);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (test::mpi_rank() == 0) fs::remove_all(dir);
}
