// Shared Catch2 main: initialises MPI (tests under mpiexec and single-process tests alike).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
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
}  // namespace tessera::test

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
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
  MPI_Finalize();
  return worst;
}
