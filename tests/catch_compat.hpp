// Catch2 compatibility: Debian 12 ships Catch2 2.13 (single header), the GPU machine Catch2 3.x.
// Tests include only this header.
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#define TESSERA_CATCH3 1
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#define TESSERA_CATCH3 0
#endif

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <initializer_list>
#include <string>

namespace tessera::test {
// Sets an environment variable for one scope (the kernel-variant knobs of the tuned paths, read per call)
// and on exit restores what it was (unset, or the outer scope's value when guards nest).
struct ScopedEnv {
  std::string name, old;
  bool had = false;
  ScopedEnv(const char* n, const std::string& v) : name(n) {
    if (const char* e = std::getenv(n)) {
      had = true;
      old = e;
    }
    setenv(n, v.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};
// Runs f with the environment knob set to the unknown value `bad` and checks that it throws an error naming
// `bad` and each of `names` (the kernel-shape knobs list what exists).
template <class F>
void check_knob_refused(const char* knob, const char* bad, F&& f, std::initializer_list<const char*> names) {
  const ScopedEnv env(knob, bad);
  try {
    f();
    FAIL(std::string(knob) + "=" + bad + " was accepted");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    CHECK(what.find(bad) != std::string::npos);
    for (const char* n : names) CHECK(what.find(n) != std::string::npos);
  }
}
// GPU tests: on a machine with a GPU they run; without one they skip, unless the environment sets
// TESSERA_REQUIRE_GPU=1 (the GPU machine's script does), in which case a missing GPU fails the test.
bool gpu_or_skip();
// The whole of a text file; a file that cannot be opened fails the test (so that two missing files never
// compare equal).
std::string read_text(const std::string& path);
// MPI communicator size/rank of the test process.
int mpi_rank();
int mpi_size();
// The test program's scratch directory, <temp>/tessera_test_<pid of rank 0> (the same for every rank of an
// MPI test), created on first use (by any rank, any number of times). Tests put their temporary files and
// output directories under it; test_main.cpp removes it when every test passed, and keeps it (and says
// where) when one failed or TESSERA_TEST_KEEP=1 is set, so that a failure can be looked at.
std::filesystem::path scratch_root();
// scratch_root() / name, as a string (name may contain '/').
std::string scratch_path(const std::string& name);
// scratch_path(name), emptied (removed by rank 0): collective over MPI_COMM_WORLD, every rank returns after
// the removal.
std::string fresh_scratch_path(const std::string& name);
}  // namespace tessera::test

// Use at the top of a GPU test case:  TESSERA_GPU_TEST();
#define TESSERA_GPU_TEST()                          \
  do {                                              \
    if (!::tessera::test::gpu_or_skip()) return;    \
  } while (0)
