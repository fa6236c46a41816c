// Lid-driven cavity at Re 1000 (cases/lbm/cavity_re1000.yaml) against Ghia, Ghia & Shin (1982), at the
// resolution CI affords (label: validation). Finer resolutions, measured with the executable and
// postproc/lbm/cavity_ghia.py, are listed in docs/lbm.md.
#include <cstdio>

#include "catch_compat.hpp"
#include "lbm_flows.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

TEST_CASE("lid-driven cavity at Re 1000 (cases/lbm/cavity_re1000.yaml, CI size) against Ghia et al. (1982)", "[lbm][validation]") {
  const int64_t N = 64;
  CaseRun r = load_case(TESSERA_LBM_CASES_DIR "/cavity_re1000.yaml",
                        {"domain.cells=[64, 64, 1]"});
  r.sim->advance(r.steps);
  std::vector<float> rho, u;
  r.sim->gather(rho, u);
  const auto [eu, ev] = ghia_errors(u, N, r.units.u_lattice, 1000, TESSERA_LBM_CASES_DIR "/reference");
  std::printf("cavity Re 1000, %ldx%ld, %ld steps: max |u - u_Ghia| = %.4f U, max |v - v_Ghia| = %.4f U\n", long(N),
              long(N), long(r.steps), eu, ev);
  REQUIRE(eu < 0.03);  // measured 0.0185 U (40 lid transits)
  REQUIRE(ev < 0.03);  // measured 0.0116 U
}

