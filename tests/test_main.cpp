// Shared Catch2 main: initialises MPI (tests under mpiexec and single-process tests alike).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/device.hpp"

namespace tessera::test {
bool gpu_or_skip() {
  if (device::gpu_available()) return true;
  const char* req = std::getenv("TESSERA_REQUIRE_GPU");
  if (req && std::string(req) == "1") {
    FAIL("TESSERA_REQUIRE_GPU=1 but no GPU is visible: a GPU test must not skip on the GPU machine");
  }
  WARN("no GPU visible: GPU test skipped (set TESSERA_REQUIRE_GPU=1 to make this a failure)");
  return false;
}
std::string read_text(const std::string& path) {
  std::ifstream f(path);
  INFO("reading " << path);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
int mpi_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int mpi_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

namespace {
std::filesystem::path g_scratch;  // set in main(), before any test runs
}
std::filesystem::path scratch_root() {
  std::error_code ec;  // another rank may create it at the same time
  std::filesystem::create_directories(g_scratch, ec);
  if (!std::filesystem::is_directory(g_scratch)) FAIL("cannot create the test scratch directory " << g_scratch.string());
  return g_scratch;
}
std::string scratch_path(const std::string& name) { return (scratch_root() / name).string(); }
std::string fresh_scratch_path(const std::string& name) {
  const std::string p = scratch_path(name);
  if (mpi_rank() == 0) std::filesystem::remove_all(p);
  MPI_Barrier(MPI_COMM_WORLD);
  return p;
}
}  // namespace tessera::test

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {  // the scratch directory: named after rank 0's process, the same on every rank
    long long pid = ::getpid();
    MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    tessera::test::g_scratch = std::filesystem::temp_directory_path() / ("tessera_test_" + std::to_string(pid));
  }
  Catch::Session session;
  // A test executable may hold only [gpu] cases (or none): its host entry ("~[gpu]") then matches no test,
  // which Catch2 3 reports as a failure unless told otherwise (Catch2 2 returns 0 by default).
  std::vector<char*> args(argv, argv + argc);
#if TESSERA_CATCH3
  static char allow[] = "--allow-running-no-tests";
  args.push_back(allow);
#endif
  int rc = session.applyCommandLine(int(args.size()), args.data());
  if (rc == 0) rc = session.run();
  // Every rank must agree: a failure on any rank fails the test.
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // The scratch directory goes when every rank passed (after the reduction: no rank still writes there);
  // a failure, or TESSERA_TEST_KEEP=1, keeps it for a look.
  const auto& scratch = tessera::test::g_scratch;
  if (rank == 0 && std::filesystem::exists(scratch)) {
    const char* keep = std::getenv("TESSERA_TEST_KEEP");
    if (worst == 0 && !(keep && keep[0] == '1')) {
      std::error_code ec;
      std::filesystem::remove_all(scratch, ec);
      if (ec) std::fprintf(stderr, "could not remove the test scratch directory %s: %s\n", scratch.c_str(), ec.message().c_str());
    } else {
      std::fprintf(stderr, "test scratch directory kept: %s\n", scratch.c_str());
    }
  }
  MPI_Finalize();
  return worst;
}
