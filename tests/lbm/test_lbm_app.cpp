// The lbm executable end to end (cli::run with the lbm app): fields through the io layer, a stop before
// --max-walltime with a checkpoint and exit code 3, --restart auto to the end bit-identically to an
// uninterrupted run, the run manifest; and the vorticity / Q-criterion
// derivatives on fields where central differences are exact.

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/signals.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/io/field_file.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/field_output.hpp"

using namespace tessera;

namespace {

std::string fresh_dir(const std::string& tag) { return test::fresh_scratch_path("lbm_app_" + tag); }  // collective

int run_lbm(Runtime& rt, const std::string& dir, std::vector<std::string> extra) {
  static const SolverApp app{"lbm", "test", &lbm::schema(), lbm::memory_estimate, lbm::run};
  std::vector<std::string> argv{"lbm",           TESSERA_LBM_CASES_DIR "/cavity2d.yaml",
                                "--device",      "cpu",
                                "-o",            dir,
                                "-q",            "--set",
                                "domain.cells=[32, 32, 1]", "--set",
                                "time.end=10",   "--set",
                                "output.every=200", "--set",
                                "output.progress=100"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int rc = cli::run(rt, argv, app, out, err);
  INFO(out.str() << err.str());
  return rc;
}

nlohmann::json manifest(const std::string& dir) {
  std::ifstream f(dir + "/run.json");
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}

}  // namespace

TEST_CASE("vorticity and Q-criterion are exact on linear velocity fields", "[lbm]") {
  // Solid-body rotation about z with rate W (omega_z = 2W), plus a uniform shear du_z/dy = g in 3-D.
  const double W = 0.3, g = 0.2, dx = 0.5;
  for (int64_t nz : {int64_t(1), int64_t(5)}) {
    const std::array<int64_t, 3> n{7, 6, nz};
    const int64_t N = n[0] * n[1] * n[2];
    std::vector<float> u(std::size_t(3 * N));
    for (int64_t k = 0; k < n[2]; ++k)
      for (int64_t j = 0; j < n[1]; ++j)
        for (int64_t i = 0; i < n[0]; ++i) {
          const int64_t c = i + n[0] * (j + n[1] * k);
          const double x = (double(i) + 0.5) * dx, y = (double(j) + 0.5) * dx;
          u[std::size_t(c)] = float(-W * y);
          u[std::size_t(N + c)] = float(W * x);
          u[std::size_t(2 * N + c)] = nz > 1 ? float(g * y) : 0.0f;
        }
    std::vector<float> vort, q;
    lbm::vorticity_and_q(n, {false, false, false}, dx, u, vort, nz > 1 ? &q : nullptr);
    if (nz == 1) {
      REQUIRE(vort.size() == std::size_t(N));
      for (float w : vort) REQUIRE(w == Approx(2 * W).epsilon(1e-5));
    } else {
      // G = [[0,-W,0],[W,0,0],[0,g,0]]: omega = (g, 0, 2W); |S|^2 = g^2/2, |Omega|^2 = 2W^2 + g^2/2.
      REQUIRE(vort.size() == std::size_t(3 * N));
      for (int64_t c = 0; c < N; ++c) {
        REQUIRE(vort[std::size_t(c)] == Approx(g).epsilon(1e-5));
        REQUIRE(std::abs(vort[std::size_t(N + c)]) < 1e-5);
        REQUIRE(vort[std::size_t(2 * N + c)] == Approx(2 * W).epsilon(1e-5));
        REQUIRE(q[std::size_t(c)] == Approx(W * W).epsilon(1e-4));
      }
    }
  }
}

TEST_CASE("lbm: stop before --max-walltime (exit 3, checkpoint), --restart auto ends bit-identically", "[lbm][mpi]") {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  const std::string a = fresh_dir("straight"), b = fresh_dir("stopped");
  REQUIRE(run_lbm(rt, a, {}) == exit_code::ok);
  // 30 s margin: a 30 s limit stops at the first check (step 20).
  REQUIRE(run_lbm(rt, b, {"--max-walltime", "30"}) == exit_code::stopped_early);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto ck = io::list_checkpoints(b);
  REQUIRE(ck.size() == 1);
  REQUIRE(ck.front().step == 20);
  if (rt.rank() == 0) {
    const auto m = manifest(b);
    REQUIRE(m["exit_status"] == 3);
    REQUIRE(m["steps"] == 20);
  }
  // --restart auto in a directory without checkpoints starts from scratch.
  const std::string c = fresh_dir("auto_empty");
  REQUIRE(run_lbm(rt, c, {"--restart", "auto", "--set", "time.end=1"}) == exit_code::ok);
  REQUIRE(run_lbm(rt, b, {"--restart", "auto"}) == exit_code::ok);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rt.rank() != 0) return;
  const auto m = manifest(b);
  REQUIRE(m["exit_status"] == 0);
  REQUIRE(m["steps"] == 320);
  // numerics.kernel's default, named in the manifest with its form
  REQUIRE(m["kernel"]["path"] == "reference");
  REQUIRE(m["kernel"]["form"] == "portable");
  REQUIRE(m["kernel"]["fused_steps"] == "not applicable");  // the reference path takes single steps
  REQUIRE(m["throughput"]["value"].get<double>() > 0);
  REQUIRE(m["steps_this_run"] == 320 - 20);  // the resumed run counts only its own steps
  REQUIRE(m["restarted_from"].get<std::string>().find("checkpoint") != std::string::npos);
  for (const char* f : {"density", "velocity", "vorticity"}) {
    const auto fa = io::read_field(a + "/fields_00000320.h5", f), fb = io::read_field(b + "/fields_00000320.h5", f);
    REQUIRE(fa.size() == fb.size());
    REQUIRE(fa == fb);
  }
  // The series lists every output step once: 0 and 200 from the first run, 320 from the restart.
  std::ifstream x(b + "/fields.xdmf");
  const std::string xdmf((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
  for (const char* s : {"fields_00000000.h5", "fields_00000200.h5", "fields_00000320.h5"}) REQUIRE(xdmf.find(s) != std::string::npos);
  // Physics and layout of the written fields: the lid (y max, +x) drags the top row along, the density
  // stays near 1, and the stored vorticity is dv/dx - du/dy of the stored velocity (m/s over m).
  const auto info = io::read_field_file_info(b + "/fields_00000320.h5");
  const double dx = info.grid.spacing[0];
  REQUIRE(dx == Approx(0.1 / 32));
  const auto u = io::read_field(b + "/fields_00000320.h5", "velocity");  // [y][x][3]
  const auto w = io::read_field(b + "/fields_00000320.h5", "vorticity");
  const auto rho = io::read_field(b + "/fields_00000320.h5", "density");
  for (double r : rho) REQUIRE(std::abs(r - 1) < 0.05);
  REQUIRE(u[std::size_t(3 * (31 * 32 + 16))] > 0.3 * 0.01);
  const int i = 20, j = 11;
  auto U = [&](int ii, int jj, int a) { return u[std::size_t(3 * (jj * 32 + ii) + a)]; };
  const double expect = (U(i + 1, j, 1) - U(i - 1, j, 1)) / (2 * dx) - (U(i, j + 1, 0) - U(i, j - 1, 0)) / (2 * dx);
  REQUIRE(std::abs(expect) > 1e-3);
  REQUIRE(w[std::size_t(j * 32 + i)] == Approx(expect).epsilon(1e-4));
}

TEST_CASE("lbm: a stop signal on one rank stops every rank with a checkpoint; the restart completes", "[lbm][mpi]") {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  const std::string a = fresh_dir("sig_straight"), b = fresh_dir("sig_stopped");
  REQUIRE(run_lbm(rt, a, {}) == exit_code::ok);
  signals::install();
  if (rt.rank() == rt.size() - 1) std::raise(SIGUSR1);  // the last rank only: the ranks must agree
  REQUIRE(run_lbm(rt, b, {}) == exit_code::stopped_early);
  signals::reset();
  MPI_Barrier(MPI_COMM_WORLD);
  const auto ck = io::list_checkpoints(b);
  REQUIRE(ck.size() == 1);
  REQUIRE(ck.front().step == 20);
  REQUIRE(run_lbm(rt, b, {"--restart", ck.front().path}) == exit_code::ok);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rt.rank() != 0) return;
  const auto fa = io::read_field(a + "/fields_00000320.h5", "velocity"), fb = io::read_field(b + "/fields_00000320.h5", "velocity");
  REQUIRE(fa == fb);
}
