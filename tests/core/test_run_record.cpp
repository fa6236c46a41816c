// RunRecord: run.json fields, the Prometheus textfile, energy accounting (NVML on the GPU, "not measured"
// on the host), per-rank .prom names and the --prometheus command-line option.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/core/run_record.hpp"
#include "tessera/core/runtime.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {
fs::path scratch(const std::string& name) {
  const fs::path d = tessera::test::scratch_root() / "run_record" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
// The value of the first sample of `metric` in a textfile ("name{labels} value" lines).
double prom_value(const std::string& text, const std::string& metric) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(metric, 0) != 0) continue;
    const char next = line.size() > metric.size() ? line[metric.size()] : ' ';
    if (next != '{' && next != ' ') continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  FAIL("metric " << metric << " not in the textfile");
  return 0;
}

// Runs a fake 10-step loop of 1000 "cells" per step through a RunRecord and returns run.json.
nlohmann::json fake_run(exec::Space space, const fs::path& dir, const std::string& prom, int status) {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  rt.set_space(space);
  RunOptions opt;
  opt.output_dir = dir.string();
  opt.prometheus_path = prom;
  opt.quiet = true;
  opt.command_line = {"toy", "case.yaml"};
  telemetry::RunRecord rec(rt, opt, {.solver = "toy", .work_name = "cell updates", .work_per_step = 1000,
                                     .total_steps = 10, .prometheus_seconds = 0});
  rec.manifest()["case_file"] = "case.yaml";
  rec.begin(5, 0.5);  // as after a restart at step 5: only the 10 steps of this run count
  exec::Exec ex(space);
  Buffer<double> a(1 << 20, default_memkind(space));
  double* p = a.data();
  for (int64_t s = 6; s <= 15; ++s) {
    exec::parallel_for(ex, "fill", int64_t(a.size()), TESSERA_LAMBDA(int64_t i) { p[i] = double(i) * 0.5; });
    exec::fence(ex);
    rec.phases().compute += 0.01;
    rec.phases().io += 0.002;
    rec.update(s, 0.1 * double(s));
  }
  if (space == exec::Space::Device) std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // NVML samples
  CHECK(rec.finish(status, "done", 15, 1.5) == status);
  std::ifstream f(dir / "run.json");
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}
}  // namespace

TEST_CASE("prometheus_path_for_rank keeps rank 0's name and suffixes the others", "[telemetry]") {
  CHECK(telemetry::prometheus_path_for_rank("/x/tessera.prom", 0) == "/x/tessera.prom");
  CHECK(telemetry::prometheus_path_for_rank("/x/tessera.prom", 3) == "/x/tessera.rank3.prom");
  CHECK(telemetry::prometheus_path_for_rank("/x/t", 2) == "/x/t.rank2.prom");
  CHECK(telemetry::prometheus_path_for_rank("", 2).empty());
}

TEST_CASE("--prometheus is parsed into the run options", "[telemetry][cli]") {
  const auto a = cli::parse_args({"case.yaml", "--prometheus", "/tmp/t.prom"});
  CHECK(a.prometheus == "/tmp/t.prom");
  CHECK_THROWS_AS(cli::parse_args({"case.yaml", "--prometheus="}), cli::UsageError);
}

TEST_CASE("RunRecord writes run.json and the Prometheus file of a host run", "[telemetry]") {
  const fs::path dir = scratch("host");
  const fs::path prom = dir / "metrics" / "toy.prom";
  const auto j = fake_run(exec::Space::Host, dir, prom.string(), 3);
  CHECK(j["solver"] == "toy");
  CHECK(j["exit_status"] == 3);
  CHECK(j["steps"] == 15);
  CHECK(j["steps_this_run"] == 10);
  CHECK(j["command_line"] == "toy case.yaml");
  CHECK(j["throughput"]["work_done"].get<double>() == 10000.0);
  CHECK(j["timings_s"]["compute"].get<double>() == Approx(0.1));
  CHECK(j["timings_s"]["io"].get<double>() == Approx(0.02));
  CHECK(j["energy"]["source"] == "none");
  CHECK(j["energy"]["why"].get<std::string>().find("host") != std::string::npos);
  CHECK(j.contains("git_hash"));
  CHECK(j.contains("tessera_version"));
  const std::string t = tessera::test::read_text(prom);
  CHECK(prom_value(t, "tessera_step") == 15.0);
  CHECK(prom_value(t, "tessera_work_total") == 10000.0);
  CHECK(prom_value(t, "tessera_running") == 0.0);
  CHECK(t.find("# TYPE tessera_work_total counter") != std::string::npos);
  CHECK(t.find("tessera_phase_seconds_total{solver=\"toy\",rank=\"0\",phase=\"io\"}") != std::string::npos);
  CHECK(t.find("tessera_gpu_") == std::string::npos);  // no GPU figures from a host run
  int leftovers = 0;  // written through a temporary name and renamed
  for (const auto& e : fs::directory_iterator(prom.parent_path())) leftovers += e.path() != prom;
  CHECK(leftovers == 0);
}

TEST_CASE("RunRecord measures GPU energy through NVML", "[gpu][telemetry]") {
  TESSERA_GPU_TEST();
  const fs::path dir = scratch("gpu");
  const fs::path prom = dir / "toy.prom";
  const auto j = fake_run(exec::Space::Device, dir, prom.string(), 0);
  REQUIRE(j["energy"]["source"] == "NVML");
  const double e = j["energy"]["total_j"].get<double>();
  CHECK(e > 1.0);  // > 10 W for > 1.5 s
  CHECK(j["energy"]["mean_power_w"].get<double>() > 10.0);
  CHECK(j["energy"]["j_per_million_work"].get<double>() == Approx(e / 0.01));
  CHECK(j["gpu"]["name"].get<std::string>().size() > 0);
  const std::string t = tessera::test::read_text(prom);
  CHECK(prom_value(t, "tessera_gpu_power_watts") > 10.0);
  CHECK(prom_value(t, "tessera_gpu_memory_total_bytes") > 1e9);
  CHECK(prom_value(t, "tessera_gpu_energy_joules_total") > 0.0);
}
