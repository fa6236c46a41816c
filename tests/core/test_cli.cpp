// The shared solver front end, driven with a toy SolverApp (no solver needed): exit codes, --check,
// --print-schema, --set, options passed to run(), and error reporting.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/log.hpp"
#include "test_case_toy.hpp"

using namespace tessera;
using tessera::test::case_path;

namespace {
struct Result {
  int rc = -1;
  std::string out, err;
};

// What the toy run() saw.
struct Seen {
  bool called = false;
  RunOptions opt;
  std::int64_t steps = 0;
};

SolverApp toy_app(Seen& seen, int rc = exit_code::ok) {
  SolverApp app;
  app.name = "toy";
  app.summary = "toy solver for tests";
  app.schema = &tessera::test::toy_schema();
  // 19 populations x 2 copies x 8 bytes per cell, split evenly over the ranks.
  app.memory_estimate = [](const Case& c, int nranks) {
    const auto n = c.get<std::array<std::int64_t, 3>>("domain.cells");
    MemoryEstimate m;
    m.bytes_per_rank = std::size_t(n[0] * n[1] * n[2]) * 19 * 2 * 8 / std::size_t(nranks);
    m.notes.push_back("populations: 19 x 2 x 8 B per cell");
    return m;
  };
  app.run = [&seen, rc](Runtime&, const Case& c, const RunOptions& o) {
    seen.called = true;
    seen.opt = o;
    seen.steps = c.get<std::int64_t>("time.steps");
    if (c.get<std::string>("output.prefix") == "boom") TESSERA_THROW("boom");
    if (c.get<std::string>("output.prefix") == "late") c.fail("output.prefix", "rejected by the solver");
    return rc;
  };
  return app;
}

Result run(const SolverApp& app, std::vector<std::string> args) {
  args.insert(args.begin(), "toy");
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);  // MPI is already initialised by the test main
  std::ostringstream out, err;
  Result r;
  r.rc = cli::run(rt, args, app, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("cli: help, version, usage errors", "[cli]") {
  Seen seen;
  const auto app = toy_app(seen);
  Result r = run(app, {"--help"});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "Usage: toy [options] CASE.yaml"));
  r = run(app, {"--version"});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "toy (Tessera "));
  CHECK(has(r.out, "git: "));
  r = run(app, {});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "toy: error: no case file given"));
  r = run(app, {"--chek", case_path("good.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "toy: error: unknown option '--chek' (did you mean '--check'?)"));
  CHECK(has(r.err, "Run 'toy --help' for usage."));
  r = run(app, {case_path("good.yaml"), case_path("minimal.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  r = run(app, {"--device", "tpu", case_path("good.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "--device expects 'cpu' or 'gpu', got 'tpu'"));
  r = run(app, {"--ranks", "4", case_path("good.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  CHECK_FALSE(seen.called);
}

TEST_CASE("cli: --print-schema md", "[cli]") {
  Seen seen;
  const auto app = toy_app(seen);
  Result r = run(app, {"--print-schema", "md"});
  CHECK(r.rc == 0);
  CHECK(r.out == tessera::test::toy_schema().markdown());
  CHECK(has(r.out, "| `physics.viscosity` | float | 0.001 | m^2/s | > 0 | Kinematic viscosity |"));
  r = run(app, {"--print-schema=html"});
  CHECK(r.rc == exit_code::bad_input);
}

TEST_CASE("cli: --check prints the resolved case and the memory per rank", "[cli]") {
  Seen seen;
  const auto app = toy_app(seen);
  Result r = run(app, {"--check", case_path("good.yaml"), "--set", "time.steps=50"});
  CHECK(r.rc == 0);
  CHECK_FALSE(seen.called);
  CHECK(has(r.out, "is valid"));
  CHECK(has(r.out, "  steps: 50\n"));
  CHECK(has(r.out, "  density: 1000.0\n"));  // defaults filled in
  // 32*16*8 cells * 19 * 2 * 8 B = 1.19 MiB on 1 rank.
  CHECK(has(r.out, "# estimated memory per rank on 1 rank: 1.19 MiB\n"));
  CHECK(has(r.out, "#   populations: 19 x 2 x 8 B per cell\n"));
  // The output is itself a case: it re-loads to the hash it prints.
  const Case c = Case::from_string(r.out, tessera::test::toy_schema(), "check-output.yaml");
  CHECK(has(r.out, "# case hash (FNV-1a 64 of the resolved YAML): " + c.hash_hex() + "\n"));
  CHECK(c.get<std::int64_t>("time.steps") == 50);
  r = run(app, {"--check", "--ranks", "4", case_path("good.yaml")});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "# estimated memory per rank on 4 ranks: 304 KiB\n"));
}

TEST_CASE("cli: invalid cases exit 2 with every message", "[cli]") {
  Seen seen;
  const auto app = toy_app(seen);
  Result r = run(app, {"--check", case_path("bad_range.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, case_path("bad_range.yaml") +
                       ":6:14: key 'physics.viscosity': expected a number > 0 [m^2/s], got '-1.0e-3'\n"));
  CHECK(has(r.err, "    6 |   viscosity: -1.0e-3\n      |              ^\n"));  // the line, a caret under the column
  CHECK(has(r.err, "toy: 1 problem in '" + case_path("bad_range.yaml") + "'; nothing was run\n"));
  CHECK(r.out.empty());
  r = run(app, {case_path("bad_many.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "toy: 5 problems in"));
  r = run(app, {"--check", case_path("good.yaml"), "--set", "physics.viscosty=1"});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "--set 'physics.viscosty=1': key 'physics.viscosty': unknown key (did you mean 'physics.viscosity'?)"));
  r = run(app, {"--check", case_path("no_such.yaml")});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "cannot open the case file"));
  CHECK_FALSE(seen.called);
}

TEST_CASE("cli: a run gets the options, the output directory exists", "[cli]") {
  Seen seen;
  const auto app = toy_app(seen, exit_code::stopped_early);
  const std::string outdir = tessera::test::scratch_path("cli_out/run1");
  std::filesystem::remove_all(outdir);
  Result r = run(app, {case_path("good.yaml"), "--device", "cpu", "-o", outdir, "--set", "time.steps=7",
                       "--max-walltime", "1:30:00", "--progress-every=25", "--restart", "auto", "-q"});
  CHECK(r.rc == exit_code::stopped_early);  // the solver's exit code comes back
  REQUIRE(seen.called);
  CHECK(seen.steps == 7);
  CHECK(seen.opt.device == exec::Space::Host);
  CHECK(seen.opt.output_dir == outdir);
  CHECK(std::filesystem::is_directory(outdir));
  CHECK(seen.opt.max_walltime_s == 5400.0);
  CHECK(seen.opt.progress_every == 25);
  CHECK(seen.opt.restart == "auto");
  CHECK(seen.opt.quiet);
  CHECK(seen.opt.overrides == std::vector<std::string>{"time.steps=7"});
  CHECK(seen.opt.command_line.front() == "toy");
  CHECK(has(seen.opt.command_line_str(), "--set time.steps=7"));
  CHECK_FALSE(seen.opt.walltime_near(60));
  CHECK(seen.opt.walltime_near(5400));
  tessera::log::set_level(tessera::log::Level::Info);
  std::filesystem::remove_all(outdir);
}

TEST_CASE("cli: runtime errors exit 1, late case errors exit 2", "[cli]") {
  Seen seen;
  const auto app = toy_app(seen);
  const std::string outdir = tessera::test::scratch_path("cli_out/run2");
  Result r = run(app, {case_path("minimal.yaml"), "--device", "cpu", "-o", outdir, "--set", "output.prefix=boom", "-q"});
  CHECK(r.rc == exit_code::runtime_error);
  CHECK(has(r.err, "toy: error: boom"));
  r = run(app, {case_path("minimal.yaml"), "--device", "cpu", "-o", outdir, "--restart", "no-such-checkpoint.h5"});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "toy: error: --restart: no checkpoint file 'no-such-checkpoint.h5'"));
  r = run(app, {case_path("minimal.yaml"), "--device", "cpu", "-o", outdir, "--set", "output.prefix=late", "-q"});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "--set 'output.prefix=late': key 'output.prefix': rejected by the solver"));
  tessera::log::set_level(tessera::log::Level::Info);
  std::filesystem::remove_all(outdir);
}

TEST_CASE("cli: --device gpu without a GPU is a clear error", "[cli]") {
  if (exec::cuda_enabled() && device::gpu_available()) return;  // nothing to check where a GPU is present
  Seen seen;
  const auto app = toy_app(seen);
  Result r = run(app, {case_path("minimal.yaml"), "--device", "gpu", "-o", "unused-out-dir"});
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "toy: error: --device gpu: "));
  CHECK(has(r.err, "or use --device cpu"));
  CHECK_FALSE(seen.called);
  CHECK_FALSE(std::filesystem::exists("unused-out-dir"));  // nothing written before the checks pass
  // --check still works and says the device is not available.
  r = run(app, {"--check", case_path("minimal.yaml"), "--device", "gpu"});
  CHECK(r.rc == 0);
  CHECK(has(r.out, "# device: gpu (not available here: "));
}

TEST_CASE("cli: walltime and output-directory parsing", "[cli]") {
  CHECK(cli::parse_walltime("23:30:00") == 84600.0);
  CHECK(cli::parse_walltime("90") == 90.0);
  CHECK(cli::parse_walltime("90s") == 90.0);
  CHECK(cli::parse_walltime("30m") == 1800.0);
  CHECK(cli::parse_walltime("2h") == 7200.0);
  CHECK(cli::parse_walltime("1:30") == 90.0);
  CHECK(cli::parse_walltime("1-00:00:00") == 86400.0);
  CHECK(cli::parse_walltime("1-12") == 129600.0);
  CHECK(cli::parse_walltime("2-01:30") == 2 * 86400.0 + 5400.0);
  CHECK_THROWS_AS(cli::parse_walltime("abc"), cli::UsageError);
  CHECK_THROWS_AS(cli::parse_walltime("1:2:3:4"), cli::UsageError);
  CHECK_THROWS_AS(cli::parse_walltime("0"), cli::UsageError);
  CHECK(cli::default_output_dir("cases/cavity.yaml") == "out/cavity");
  CHECK(cli::format_bytes(512) == "512 B");
  CHECK(cli::format_bytes(std::size_t(3) << 30) == "3.00 GiB");
}

TEST_CASE("cli: batch.max_walltime in the case; --max-walltime overrides it; a bad value names the key", "[cli]") {
  static const Schema with_batch = [] {
    Schema s("batchy", "a solver with the batch keys");
    s.add_int("time.steps").default_value(1).min(0).describe("Steps");
    add_batch_keys(s);
    return s;
  }();
  const auto yaml = tessera::test::scratch_root() / "batch.yaml";
  std::ofstream(yaml) << "time:\n  steps: 3\n";
  auto run_with = [&](std::vector<std::string> args, Seen& seen) {
    SolverApp app;
    app.name = "batchy";
    app.summary = "test";
    app.schema = &with_batch;
    app.run = [&seen](Runtime&, const Case&, const RunOptions& o) {
      seen.called = true;
      seen.opt = o;
      return exit_code::ok;
    };
    args.insert(args.begin(), yaml.string());
    args.push_back("-q");
    return run(app, args);
  };
  Seen a, b, c, d;
  CHECK(run_with({"--set", "batch.max_walltime=2h"}, a).rc == exit_code::ok);
  CHECK(a.opt.max_walltime_s == 7200.0);
  run_with({"--set", "batch.max_walltime=2h", "--max-walltime", "90"}, b);
  CHECK(b.opt.max_walltime_s == 90.0);
  run_with({}, c);
  CHECK(c.called);
  CHECK(c.opt.max_walltime_s == 0.0);  // no limit unless asked for
  const Result r = run_with({"--set", "batch.max_walltime=soon"}, d);
  CHECK(r.rc == exit_code::bad_input);
  CHECK(has(r.err, "batch.max_walltime"));
  CHECK_FALSE(d.called);
}
