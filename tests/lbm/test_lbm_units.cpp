// Physical units of `lbm`: the SI -> lattice conversion (dx, dt, nu, tau, Mach) is printed at start, cases
// outside stability are refused before anything is written (tau too close to 1/2, tau too large) with the
// key and a fix, and risky ones are warned about (Mach > 0.3; BGK with tau < 0.55).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "catch_compat.hpp"
#include "lbm_app_util.hpp"
#include "tessera/core/case.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {
// Runs the cavity quick-start case (32^2, 1 s) with extra --set overrides; returns the exit code and
// everything written to stdout, stderr and the error stream (the log writes to the standard streams).
std::pair<int, std::string> run_captured(Runtime& rt, const std::string& dir, std::vector<std::string> sets) {
  std::vector<std::string> extra{"--set", "domain.cells=[32, 32, 1]", "--set", "time.end=1"};
  for (auto& s : sets) extra.insert(extra.end(), {"--set", s});
  const std::string cap = dir + ".log";
  std::fflush(stdout);
  std::fflush(stderr);
  const int fd = ::open(cap.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int saved1 = ::dup(1), saved2 = ::dup(2);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  static const SolverApp app{"lbm", "test", &lbm::schema(), lbm::memory_estimate, lbm::run};
  std::vector<std::string> argv{"lbm", TESSERA_LBM_CASES_DIR "/cavity2d.yaml", "--device", "cpu", "-o", dir};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int rc = cli::run(rt, argv, app, out, err);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved1, 1);
  ::dup2(saved2, 2);
  ::close(saved1);
  ::close(saved2);
  ::close(fd);
  return {rc, read_text(cap) + out.str() + err.str()};
}
}  // namespace

TEST_CASE("units_from_case: dx, dt, lattice viscosity, tau and Mach from the SI case", "[lbm]") {
  const Case c = Case::load(TESSERA_LBM_CASES_DIR "/cavity2d.yaml", schema(), {"domain.cells=[32, 32, 1]"});
  const Units u = units_from_case(c);
  // dx = 0.1 / 32 m; dt = 0.1 dx / 0.01 m/s; nu_lat = 1e-5 dt / dx^2 = 0.032; tau = 3 nu_lat + 1/2.
  REQUIRE(u.dx == Approx(0.003125));
  REQUIRE(u.dt == Approx(0.03125));
  REQUIRE(u.nu_lattice == Approx(0.032));
  REQUIRE(u.tau == Approx(0.596));
  REQUIRE(u.mach == Approx(std::sqrt(3.0) * 0.1));
}

TEST_CASE("lbm prints the unit conversion; refuses tau near 1/2 or too large; warns on Mach and BGK", "[lbm]") {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  {
    const std::string dir = fresh_dir("units_ok");
    const auto [rc, log] = run_captured(rt, dir, {});
    INFO(log);
    REQUIRE(rc == exit_code::ok);
    for (const char* s : {"dx = 0.003125 m", "dt = 0.03125 s", "nu_lattice = 0.032", "tau = 0.59600", "Mach = 0.173"})
      REQUIRE(log.find(s) != std::string::npos);
    REQUIRE(log.find("Mach 0.") == std::string::npos);  // no warning at Mach 0.17
  }
  {  // lattice_velocity 3e-4: nu_lat = 2.9e-4, tau = 0.50086 < 0.501
    const std::string dir = fresh_dir("units_tau_low");
    const auto [rc, log] = run_captured(rt, dir, {"numerics.lattice_velocity=0.0003"});
    INFO(log);
    REQUIRE(rc == exit_code::bad_input);
    REQUIRE(log.find("too close to 1/2") != std::string::npos);
    REQUIRE(log.find("raise numerics.lattice_velocity") != std::string::npos);
    REQUIRE(log.find("physics.viscosity") != std::string::npos);  // the key that locates the problem
    REQUIRE(!std::filesystem::exists(dir + "/fields_00000000.h5"));  // nothing written
  }
  {  // viscosity 1e-3: nu_lat = 3.2, tau = 10.1 > 5
    const std::string dir = fresh_dir("units_tau_high");
    const auto [rc, log] = run_captured(rt, dir, {"physics.viscosity=1.0e-3"});
    INFO(log);
    REQUIRE(rc == exit_code::bad_input);
    REQUIRE(log.find("too large") != std::string::npos);
  }
  {  // lattice_velocity 0.2: Mach 0.35 runs, with a warning and the fix
    const std::string dir = fresh_dir("units_mach");
    const auto [rc, log] = run_captured(rt, dir, {"numerics.lattice_velocity=0.2"});
    INFO(log);
    REQUIRE(rc == exit_code::ok);
    REQUIRE(log.find("Mach 0.35 > 0.3") != std::string::npos);
    REQUIRE(log.find("lower numerics.lattice_velocity") != std::string::npos);
  }
  {  // BGK at tau = 0.515 (lattice_velocity 0.0155 -> nu_lat 0.00496): warned, with the fix
    const std::string dir = fresh_dir("units_bgk");
    const auto [rc, log] = run_captured(rt, dir, {"collision.model=bgk", "numerics.lattice_velocity=0.0155", "time.end=0.2"});
    INFO(log);
    REQUIRE(rc == exit_code::ok);
    REQUIRE(log.find("close to 1/2; BGK may go unstable") != std::string::npos);
  }
}
