// Schaefer & Turek (1996) DFG benchmark 2D-1 (Re 20 cylinder in a channel) from cases/lbm/cylinder2d.yaml,
// run at 10 cells per diameter (220 x 41) so that it takes seconds: the velocity inlet, pressure outlet,
// cylinder primitive and momentum-exchange forces end to end.
//
// Published ranges: C_D in [5.57, 5.59], C_L in [0.0104, 0.0110], dp in [0.1172, 0.1176] Pa,
// L_a in [0.0842, 0.0852] m. A staircase (half-way bounce-back) cylinder of 10 cells per diameter is not
// accurate enough for the force ranges; measured here (fp32, Mach 0.087): C_D 5.757 (+3.2 %), C_L 0.0122
// (+14 %), dp 0.1155 Pa (-1.6 %), L_a 0.0844 m (inside the published range). 20 cells per diameter: see
// docs/lbm.md and postproc/lbm/cylinder_schaefer_turek.py. The test checks the coarse-grid figures against
// the published values with tolerances sized for a first-order wall at this resolution:
// C_D within 4 %, C_L within 20 %, dp within 4 %, L_a within 3 %.
#include <cmath>
#include <filesystem>

#include <unistd.h>

#include "catch_compat.hpp"
#include "cylinder_metrics.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/forces.hpp"

using namespace tessera;
using namespace tessera::lbm;

TEST_CASE("Schaefer-Turek 2D-1 at 10 cells per diameter", "[lbm][validation][cylinder]") {
  const Case c = Case::load(std::string(TESSERA_LBM_CASES_DIR) + "/cylinder2d.yaml", schema(),
                            {"domain.cells=[220, 41, 1]", "numerics.precision=fp32", "time.end=14.0", "forces.every=50"});
  const Units u = units_from_case(c);
  const SimulationSpec spec = spec_from_case(c, u);
  Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
  const auto dir = std::filesystem::temp_directory_path() / ("tessera_lbm_cylinder_" + std::to_string(::getpid()));
  if (test::mpi_rank() == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  ForceSeries forces(sim, u, c, dir.string(), -1);
  const int64_t steps = std::llround(c.get<double>("time.end") / u.dt);
  // Mean over the last period of the channel's acoustic quarter-wave mode, 4 L / c_s = 4 sqrt(3) nx steps.
  const int64_t avg_from = steps - std::llround(4.0 * std::sqrt(3.0) * 220.0);
  while (sim.step() < steps) {
    sim.advance(std::min<int64_t>(forces.every(), steps - sim.step()));
    forces.sample(sim, double(sim.step()) * u.dt, sim.step() == steps);
  }
  std::vector<float> rho, vel;
  sim.gather(rho, vel);
  if (test::mpi_rank() == 0) {
    double cd = 0, cl = 0;
    int n = 0;
    for (const auto& r : forces.rows())
      if (r.step >= avg_from) cd += r.cd, cl += r.cl, ++n;
    cd /= n, cl /= n;
    const double dx = u.dx;
    const auto m = cyl::cylinder_metrics(rho, vel, 220, 41, dx, u.dt, [&](int64_t i, int64_t j) { return spec.solid(i, j, 0); });
    INFO("C_D " << cd << ", C_L " << cl << ", dp " << m.dp << " Pa, L_a " << m.la << " m");
    CHECK(std::abs(cd - 5.58) < 0.04 * 5.58);
    CHECK(std::abs(cl - 0.0107) < 0.2 * 0.0107);
    CHECK(std::abs(m.dp - 0.1174) < 0.04 * 0.1174);
    CHECK(std::abs(m.la - 0.0847) < 0.03 * 0.0847);
    std::filesystem::remove_all(dir);
  }
}
