// fp16 versus fp32 population storage on the validation cases (issue 5: "fp16 storage stays within a stated
// tolerance of fp32 on the cavity and Taylor-Green cases"). Both store f - w_q (shifted); arithmetic is fp32.
// The measured figures are printed and recorded in docs/lbm.md.
#include <cmath>
#include <cstdio>

#include "catch_compat.hpp"
#include "lbm_flows.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {
// Max |a - b| over all cells and velocity components, divided by scale.
double max_diff(const std::vector<float>& a, const std::vector<float>& b, double scale) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - double(b[i])));
  return m / scale;
}
}  // namespace

TEST_CASE("fp16 storage stays within 5e-3 U of fp32 on the Re 100 lid-driven cavity", "[lbm][validation]") {
  const int64_t N = 64;
  const double U = 0.1;
  std::vector<float> u32, u16, rho;
  for (Precision p : {Precision::FP32, Precision::FP16}) {
    Simulation sim(MPI_COMM_SELF, exec::Space::Host, cavity(N, U, 100.0, CollisionKind::TRT, p));
    sim.advance(12000);
    sim.gather(rho, p == Precision::FP32 ? u32 : u16);
  }
  const double d = max_diff(u32, u16, U);
  const auto g32 = ghia_errors(u32, N, U, 100, TESSERA_LBM_CASES_DIR "/reference");
  const auto g16 = ghia_errors(u16, N, U, 100, TESSERA_LBM_CASES_DIR "/reference");
  std::printf("cavity Re 100 64^2 TRT: max |u_fp16 - u_fp32| = %.2e U; Ghia errors fp32 (%.4f, %.4f) U, fp16 (%.4f, %.4f) U\n",
              d, g32.first, g32.second, g16.first, g16.second);
  REQUIRE(d > 0);  // the two storages really differ
  REQUIRE(d < 5e-3);
  REQUIRE(std::abs(g16.first - g32.first) < 2e-3);
  REQUIRE(std::abs(g16.second - g32.second) < 2e-3);
}

TEST_CASE("fp16 storage stays within 2e-3 u0 of fp32 on the 2-D Taylor-Green vortex; decay rates within 0.3%", "[lbm][validation]") {
  const int64_t N = 48;
  const double u0 = 0.03, omega = 1.0 / 0.56;
  std::vector<float> u32, u16, rho;
  double rate[2] = {0, 0};
  for (int p = 0; p < 2; ++p) {
    Simulation sim(MPI_COMM_SELF, exec::Space::Host,
                   taylor_green(N, u0, omega, p == 0 ? Precision::FP32 : Precision::FP16, CollisionKind::TRT));
    sim.advance(40);
    const double e1 = mean_kinetic_energy(sim);
    sim.advance(400);
    rate[p] = std::log(e1 / mean_kinetic_energy(sim)) / 400.0;
    sim.gather(rho, p == 0 ? u32 : u16);
  }
  const double d = max_diff(u32, u16, u0);
  std::printf("Taylor-Green 2-D 48^2 TRT: max |u_fp16 - u_fp32| = %.2e u0 after 440 steps; decay rates differ by %.3f%%\n", d,
              100 * (rate[1] / rate[0] - 1));
  REQUIRE(d > 0);
  REQUIRE(d < 2e-3);
  REQUIRE(std::abs(rate[1] / rate[0] - 1) < 3e-3);
}

TEST_CASE("fp16 storage on the 3-D Taylor-Green vortex (24^3, D3Q19): energy within 0.1% of fp32", "[lbm][validation]") {
  double e[2] = {0, 0};
  for (int p = 0; p < 2; ++p) {
    CaseRun r = load_case(TESSERA_LBM_CASES_DIR "/taylor_green3d.yaml",
                          {"domain.cells=[24, 24, 24]", "numerics.kernel=reference", "physics.viscosity=0.08726646",
                           "time.end=2.0", p == 0 ? "numerics.precision=fp32" : "numerics.precision=fp16"});
    r.sim->advance(r.steps);
    e[p] = mean_kinetic_energy(*r.sim);
  }
  std::printf("Taylor-Green 3-D 24^3: kinetic energy fp16 / fp32 - 1 = %.2e\n", e[1] / e[0] - 1);
  REQUIRE(e[1] != e[0]);
  REQUIRE(std::abs(e[1] / e[0] - 1) < 1e-3);
}

TEST_CASE("GPU: fp16 vs fp32 storage with the tuned kernel on the Re 1600 Taylor-Green vortex (128^3, t = 2 L/U)", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  // The case file as written (D3Q19 regularized, tuned kernel, tau = 0.5019 at 128^3), cut to 815 steps.
  std::vector<float> u[2], rho;
  double e[2] = {0, 0};
  for (int p = 0; p < 2; ++p) {
    CaseRun r = load_case(TESSERA_LBM_CASES_DIR "/taylor_green3d.yaml",
                          {"domain.cells=[128, 128, 128]", "time.end=2.0", p == 0 ? "numerics.precision=fp32" : "numerics.precision=fp16"},
                          exec::Space::Device);
    r.sim->advance(r.steps);
    r.sim->gather(rho, u[p]);
    e[p] = mean_kinetic_energy(*r.sim);
  }
  const double U = 0.05;  // numerics.lattice_velocity
  const double d = max_diff(u[0], u[1], U);
  std::printf("GPU Taylor-Green 3-D 128^3 Re 1600, tuned: max |u_fp16 - u_fp32| = %.2e U, energy fp16 / fp32 - 1 = %.2e\n", d,
              e[1] / e[0] - 1);
  // Loose bounds (not yet measured on the H200): fp16 storage must not change the flow beyond 2% of U or the
  // energy beyond 1%; record the printed figures in docs/lbm.md.
  REQUIRE(d > 0);
  REQUIRE(d < 0.02);
  REQUIRE(std::abs(e[1] / e[0] - 1) < 0.01);
}
