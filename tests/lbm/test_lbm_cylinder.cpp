// Schaefer & Turek (1996) DFG benchmark 2D-1 (Re 20 cylinder in a channel) from cases/lbm/cylinder2d.yaml,
// run at 10 cells per diameter (220 x 41, lattice velocity 0.05) so that it takes seconds: the velocity
// inlet, pressure outlet, cylinder primitive with interpolated bounce-back (boundary.curved: interpolated,
// Bouzidi et al. 2001) and momentum-exchange forces end to end.
//
// Published ranges: C_D in [5.57, 5.59], C_L in [0.0104, 0.0110], dp in [0.1172, 0.1176] Pa,
// L_a in [0.0842, 0.0852] m. Measured here (fp32, Mach 0.087), relative distance to the range:
//   interpolated: C_D 5.686 (+1.7 %), C_L 0.01009 (-3.0 %), dp 0.1149 Pa (-1.9 %), L_a 0.0820 m (-2.6 %)
//   half-way:     C_D 5.757 (+3.0 %), C_L 0.0122 (+11 %), dp 0.1155 Pa (-1.5 %), L_a 0.0844 m (in range)
// At 10 cells per diameter the figures are not yet in the published ranges (docs/lbm.md has 20 cells per
// diameter and the Mach number dependence; cases/validation.yaml runs the case file). The test checks
// the distance to each range: C_D within 2.5 %, C_L 5 %, dp 2.5 %, L_a 3.5 % (half-way misses C_D and
// C_L), and that the interpolated walls were used. C_L's -3 % is the linear Bouzidi wall's discretisation
// error at this D (C_L is 0.01007 at D = 10 and 20, in range at D = 30 and 40; fp64, docs/lbm.md), not the
// force evaluation: test_lbm_force_balance checks the momentum exchange step by step.
// The case file itself (30 cells per diameter, 660 x 123, fp64, lattice velocity 0.025, ~2 min on 2 cores)
// is the second test: dp and L_a must lie inside the published ranges (issue 4), C_D within 0.5 % of its
// range (+0.28 % measured: the Mach^2 compressibility error, 5.593 extrapolated to Mach 0) and C_L within
// 1 % (-0.03 % measured).
#include <cmath>
#include <filesystem>

#include "catch_compat.hpp"
#include "cylinder_metrics.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/forces.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {

struct CylinderFigures {
  double cd = 0, cl = 0, dp = 0, la = 0;
};

// Runs cases/lbm/cylinder2d.yaml with the overrides on all ranks; the figures on rank 0: C_D and C_L
// averaged over the last period of the channel's acoustic quarter-wave mode (4 L / c_s = 4 sqrt(3) nx
// steps), dp and L_a from the final fields.
CylinderFigures run_cylinder(const std::vector<std::string>& overrides) {
  const Case c = Case::load(std::string(TESSERA_LBM_CASES_DIR) + "/cylinder2d.yaml", schema(), overrides);
  const Units u = units_from_case(c);
  const SimulationSpec spec = spec_from_case(c, u);
  REQUIRE(spec.link_fraction);  // boundary.curved defaults to interpolated
  const int64_t nx = spec.global[0], ny = spec.global[1];
  Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
  const auto dir = test::scratch_root() / "lbm_cylinder";
  if (test::mpi_rank() == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  ForceSeries forces(sim, u, c, dir.string(), -1);
  const int64_t steps = std::llround(c.get<double>("time.end") / u.dt);
  const int64_t avg_from = steps - std::llround(4.0 * std::sqrt(3.0) * double(nx));
  while (sim.step() < steps) {
    sim.advance(std::min<int64_t>(forces.every(), steps - sim.step()));
    forces.sample(sim, double(sim.step()) * u.dt, sim.step() == steps);
  }
  std::vector<float> rho, vel;
  sim.gather(rho, vel);
  CylinderFigures f;
  if (test::mpi_rank() == 0) {
    int n = 0;
    for (const auto& r : forces.rows())
      if (r.step >= avg_from) f.cd += r.cd, f.cl += r.cl, ++n;
    f.cd /= n, f.cl /= n;
    const auto m = cyl::cylinder_metrics(rho, vel, nx, ny, u.dx, u.dt, [&](int64_t i, int64_t j) { return spec.solid(i, j, 0); });
    f.dp = m.dp, f.la = m.la;
    std::filesystem::remove_all(dir);
  }
  return f;
}

// Relative distance to the published range [lo, hi] (0 inside).
double dist(double v, double lo, double hi) { return v < lo ? (lo - v) / lo : (v > hi ? (v - hi) / hi : 0.0); }

}  // namespace

TEST_CASE("Schaefer-Turek 2D-1 at 10 cells per diameter", "[lbm][validation][cylinder]") {
  const CylinderFigures f = run_cylinder({"domain.cells=[220, 41, 1]", "numerics.precision=fp32",
                                          "numerics.lattice_velocity=0.05", "time.end=14.0", "forces.every=50"});
  if (test::mpi_rank() != 0) return;
  INFO("C_D " << f.cd << ", C_L " << f.cl << ", dp " << f.dp << " Pa, L_a " << f.la << " m");
  CHECK(dist(f.cd, 5.57, 5.59) < 0.025);
  CHECK(dist(f.cl, 0.0104, 0.0110) < 0.05);
  CHECK(dist(f.dp, 0.1172, 0.1176) < 0.025);
  CHECK(dist(f.la, 0.0842, 0.0852) < 0.035);
}

TEST_CASE("Schaefer-Turek 2D-1, the case file (30 cells per diameter): dp and L_a in the published ranges",
          "[lbm][validation][cylinder]") {
  const CylinderFigures f = run_cylinder({});
  if (test::mpi_rank() != 0) return;
  INFO("C_D " << f.cd << ", C_L " << f.cl << ", dp " << f.dp << " Pa, L_a " << f.la << " m");
  CHECK(f.dp >= 0.1172);
  CHECK(f.dp <= 0.1176);
  CHECK(f.la >= 0.0842);
  CHECK(f.la <= 0.0852);
  CHECK(dist(f.cd, 5.57, 5.59) < 0.005);
  CHECK(dist(f.cl, 0.0104, 0.0110) < 0.01);
}
