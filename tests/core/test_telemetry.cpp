// Telemetry (progress, Prometheus, atomic files, NVML monitor), signals and deadlines.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include "catch_compat.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/signals.hpp"
#include "tessera/core/telemetry.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {
fs::path scratch(const std::string& name) {
  return tessera::test::scratch_root() / name;
}
}  // namespace

TEST_CASE("write_file_atomic replaces the file and leaves no temporary", "[telemetry]") {
  const auto p = scratch("a.txt");
  telemetry::write_file_atomic(p.string(), "first\n");
  telemetry::write_file_atomic(p.string(), "second\n");
  CHECK(tessera::test::read_text(p) == "second\n");
  int others = 0;
  for (const auto& e : fs::directory_iterator(p.parent_path())) others += e.path().filename() != "a.txt";
  CHECK(others == 0);
  CHECK_THROWS_AS(telemetry::write_file_atomic("/proc/no/such/dir/x", "y"), std::exception);
}

TEST_CASE("Prometheus textfile format", "[telemetry]") {
  const auto p = scratch("tessera.prom");
  telemetry::PrometheusFile f(p.string());
  f.gauge("tessera_throughput_cell_updates_per_second", 1.5e9, "Cell updates per second", "solver=\"lbm\"");
  f.counter("tessera_steps_total", 1200, "Time steps done");
  f.write();
  const std::string s = tessera::test::read_text(p);
  CHECK(s.find("# TYPE tessera_throughput_cell_updates_per_second gauge\n") != std::string::npos);
  CHECK(s.find("tessera_throughput_cell_updates_per_second{solver=\"lbm\"} 1500000000\n") != std::string::npos);
  CHECK(s.find("# TYPE tessera_steps_total counter\ntessera_steps_total 1200\n") != std::string::npos);
  CHECK_THROWS_AS(f.counter("tessera_steps", 1, "no suffix"), Error);
}

TEST_CASE("progress reports throughput and ETA", "[telemetry]") {
  telemetry::ProgressConfig c;
  c.unit = "MLUPs/s";
  c.work_per_step = 1e6;
  c.total_steps = 100;
  c.every_steps = 10;
  c.quiet = true;  // do not print from the test; rate() is what we check
  telemetry::Progress p(c);
  p.update(0, 0.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  p.update(10, 1.0);
  const double r = p.rate();  // 10 steps * 1e6 cells in >= 50 ms  => at most 2e8 cells/s
  CHECK(r > 0);
  CHECK(r <= 2.0e8 * 1.01);
}

TEST_CASE("a stop signal is seen by should_stop; deadlines expire", "[signals]") {
  signals::install();
  signals::reset();
  CHECK_FALSE(signals::should_stop(MPI_COMM_WORLD));
  std::raise(SIGUSR1);
  CHECK(signals::stop_requested());
  CHECK(signals::stop_signal() == SIGUSR1);
  CHECK(signals::should_stop(MPI_COMM_WORLD));
  signals::reset();
  signals::Deadline none;
  CHECK_FALSE(none.passed());
  signals::Deadline d(0.05, 0.0);
  CHECK_FALSE(d.passed());
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  CHECK(d.passed());
  CHECK(signals::should_stop(MPI_COMM_WORLD, &d));
}

TEST_CASE("a second stop signal aborts at once and leaves the last good checkpoint alone", "[signals]") {
  // In a child process: a "checkpoint" written (atomically), then two signals. The first only asks for a
  // stop; the second exits at once with 128 + signal, and the file is still the good one.
  const auto p = scratch("ckpt.h5");
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    signals::install();
    signals::reset();
    telemetry::write_file_atomic(p.string(), "good checkpoint\n");
    std::raise(SIGTERM);
    if (!signals::stop_requested()) _exit(10);  // the first signal must only request a stop
    std::raise(SIGTERM);
    _exit(11);  // not reached: the second signal exits
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  CHECK(tessera::test::read_text(p) == "good checkpoint\n");
}

TEST_CASE("durations parse like Slurm and GROMACS -maxh", "[signals]") {
  CHECK(signals::parse_duration("23:30:00") == 84600.0);
  CHECK(signals::parse_duration("05:00") == 300.0);
  CHECK(signals::parse_duration("90m") == 5400.0);
  CHECK(signals::parse_duration("2h") == 7200.0);
  CHECK(signals::parse_duration("3600") == 3600.0);
  CHECK_THROWS_AS(signals::parse_duration("soon"), Error);
  CHECK_THROWS_AS(signals::parse_duration("1:2:3:4"), Error);
}

TEST_CASE("NVML monitor reports why it is unavailable without a GPU", "[telemetry]") {
  if (device::gpu_available()) return;  // covered by the [gpu] case
  telemetry::GpuMonitor m;
  CHECK_FALSE(m.start("0000:00:00.0"));
  CHECK_FALSE(m.available());
  CHECK_FALSE(m.why_unavailable().empty());
}

TEST_CASE("NVML monitor samples the GPU", "[gpu][telemetry]") {
  TESSERA_GPU_TEST();
  const auto inf = device::info();
  telemetry::GpuMonitor m;
  REQUIRE(m.start(inf.pci_bus_id, 0.05));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  m.stop();
  CHECK(m.available());
  CHECK(m.last().power_w > 10.0);           // an idle H100/H200 draws far more than 10 W
  CHECK(m.last().mem_total_bytes > 1e9);
  CHECK(m.max_temperature_c() > 5.0);
  CHECK(m.energy_j() > 0.0);
  CHECK(m.mean_power_w() > 10.0);
}
