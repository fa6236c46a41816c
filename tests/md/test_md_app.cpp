// The md executable end to end (cli::run with the md app): a stop signal gives exit code 3 and a valid
// checkpoint; --restart auto ends bit-identically to an uninterrupted run; a restart from an older
// checkpoint drops the rows and frames written after it, so thermo.csv, msd.csv and the H5MD trajectory
// hold every step once, exactly as in the uninterrupted run.

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
#include "tessera/io/h5md.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/run.hpp"

using namespace tessera;

namespace {

std::string fresh_dir(const std::string& tag) {
  const auto d = tessera::test::scratch_root() / ("md_app_" + tag);
  std::filesystem::remove_all(d);
  return d.string();
}

int run_md(Runtime& rt, const std::string& dir, std::vector<std::string> extra) {
  static const SolverApp app{"md", "test", &md::schema(), md::memory_estimate, md::run};
  std::vector<std::string> argv{"md", MD_CASES_DIR "/lj_liquid.yaml", "--device", "cpu", "-o", dir, "-q",
                                "--set", "system.cells=[4, 4, 4]",
                                "--set", "run.steps=120",
                                "--set", "run.integrator=langevin",
                                "--set", "neighbor.sort_every=2",
                                "--set", "output.thermo_every=5",
                                "--set", "output.msd_every=10",
                                "--set", "output.trajectory_every=20",
                                "--set", "output.checkpoint_every=40",
                                "--set", "output.checkpoint_keep=0"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int rc = cli::run(rt, argv, app, out, err);
  INFO(out.str() << err.str());
  return rc;
}

// Final particle state from the final checkpoint (written because output.checkpoint_every > 0).
std::vector<double> final_positions(const std::string& dir, int64_t step) {
  const auto ck = io::list_checkpoints(dir);
  REQUIRE(!ck.empty());
  REQUIRE(ck.front().step == step);
  io::CheckpointReader r(MPI_COMM_WORLD, ck.front().path);
  std::vector<double> v;
  for (const char* n : {"x", "y", "z", "vx", "vy", "vz"}) {
    const auto a = r.read_local<double>(n);
    v.insert(v.end(), a.begin(), a.end());
  }
  return v;
}

void same_trajectory(const std::string& a, const std::string& b) {
  const int64_t n = io::h5md_frame_count(a);
  REQUIRE(io::h5md_frame_count(b) == n);
  for (int64_t f = 0; f < n; ++f) {
    const auto fa = io::read_h5md_frame(a, f), fb = io::read_h5md_frame(b, f);
    CHECK(fa.step == fb.step);
    CHECK(fa.position == fb.position);
    CHECK(fa.velocity == fb.velocity);
  }
}

}  // namespace

TEST_CASE("md: stop signal -> exit 3 + checkpoint; --restart auto and from an older checkpoint are bit-identical",
          "[md][restart]") {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  const std::string a = fresh_dir("straight"), b = fresh_dir("signal"), c = fresh_dir("older");
  REQUIRE(run_md(rt, a, {}) == exit_code::ok);
  const std::vector<double> ref = final_positions(a, 120);

  // A stop signal: the run finishes the step, checkpoints at the next stop check (step 10) and exits 3.
  signals::install();
  std::raise(SIGUSR1);
  REQUIRE(run_md(rt, b, {}) == exit_code::stopped_early);
  signals::reset();
  {
    const auto ck = io::list_checkpoints(b);
    REQUIRE(ck.size() == 1);
    CHECK(ck.front().step == 10);
    CHECK(io::verify_checkpoint(ck.front().path).empty());
    std::ifstream mf(b + "/run.json");
    const auto m = nlohmann::json::parse(mf);
    CHECK(m["exit_status"] == 3);
    CHECK(m["steps"] == 10);
  }
  REQUIRE(run_md(rt, b, {"--restart", "auto"}) == exit_code::ok);
  CHECK(final_positions(b, 120) == ref);
  CHECK(tessera::test::read_text(b + "/thermo.csv") == tessera::test::read_text(a + "/thermo.csv"));
  CHECK(tessera::test::read_text(b + "/msd.csv") == tessera::test::read_text(a + "/msd.csv"));
  same_trajectory(a + "/trajectory.h5", b + "/trajectory.h5");

  // A run that went on past its last checkpoint (crash after step 40): rows and frames beyond the
  // checkpoint are dropped on restart, the series match the uninterrupted run.
  REQUIRE(run_md(rt, c, {}) == exit_code::ok);
  for (const auto& ck : io::list_checkpoints(c))
    if (ck.step > 40) std::filesystem::remove(ck.path);
  REQUIRE(run_md(rt, c, {"--restart", "auto"}) == exit_code::ok);
  CHECK(final_positions(c, 120) == ref);
  CHECK(tessera::test::read_text(c + "/thermo.csv") == tessera::test::read_text(a + "/thermo.csv"));
  CHECK(tessera::test::read_text(c + "/msd.csv") == tessera::test::read_text(a + "/msd.csv"));
  same_trajectory(a + "/trajectory.h5", c + "/trajectory.h5");

  // --restart auto without a checkpoint starts from scratch.
  const std::string d = fresh_dir("auto_empty");
  REQUIRE(run_md(rt, d, {"--restart", "auto"}) == exit_code::ok);
  CHECK(final_positions(d, 120) == ref);
  for (const auto& dir : {a, b, c, d}) std::filesystem::remove_all(dir);
}
