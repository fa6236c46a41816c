// The weather model gives bit-identical fields for 1 rank and N ranks (run under mpiexec with 1-4
// ranks, uneven splits along both axes), on the host and on the GPU.
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <mpi.h>

#include "catch_compat.hpp"
#include "weather_cases.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {

using fixtures::kBox;
using fixtures::kChannel;
using fixtures::kPlane;
using fixtures::run_model;
using fixtures::same_bits;
using fixtures::Snapshot;

void compare_with_one_rank(const std::string& yaml, const std::vector<std::string>& ov,
                           exec::Space sp = exec::Space::Host) {
  Snapshot one;
  if (test::mpi_rank() == 0) one = run_model(MPI_COMM_SELF, yaml, {}, 12, sp);
  const Snapshot many = run_model(MPI_COMM_WORLD, yaml, ov, 12, sp);
  if (test::mpi_rank() != 0) return;
  REQUIRE(!one.h.empty());
  CHECK(one.time == many.time);
  CHECK(same_bits(one.h, many.h));
  CHECK(same_bits(one.u, many.u));
  CHECK(same_bits(one.v, many.v));
  CHECK(same_bits(one.c, many.c));
  // and the run did something: the state moved away from the initial one
  const Snapshot init = run_model(MPI_COMM_SELF, yaml, {}, 0, sp);
  CHECK(!same_bits(init.h, one.h));
}

}  // namespace

TEST_CASE("weather: N ranks give the fields of 1 rank bit for bit", "[weather][mpi]") {
  const int n = test::mpi_size();
  SECTION("channel, automatic rank grid") { compare_with_one_rank(kChannel, {}); }
  SECTION("channel, ranks along x") { compare_with_one_rank(kChannel, {fmt::format("grid.ranks=[{}, 1]", n)}); }
  SECTION("channel, ranks along y") { compare_with_one_rank(kChannel, {fmt::format("grid.ranks=[1, {}]", n)}); }
  SECTION("walled box, SSP-RK2") { compare_with_one_rank(kBox, {}); }
}

TEST_CASE("weather on the GPU: N ranks bit for bit, and the host to rounding", "[weather][mpi][gpu]") {
  TESSERA_GPU_TEST();
  Snapshot one, host;
  if (test::mpi_rank() == 0) {
    one = run_model(MPI_COMM_SELF, kChannel, {}, 12, exec::Space::Device);
    host = run_model(MPI_COMM_SELF, kChannel, {}, 12, exec::Space::Host);
  }
  const Snapshot many = run_model(MPI_COMM_WORLD, kChannel, {}, 12, exec::Space::Device);
  if (test::mpi_rank() != 0) return;
  CHECK(same_bits(one.h, many.h));
  CHECK(same_bits(one.u, many.u));
  CHECK(same_bits(one.v, many.v));
  CHECK(same_bits(one.c, many.c));
  // nvcc contracts a*b+c to FMA: after 12 steps the GPU differs from the host in the last digits only
  auto rel = [](const std::vector<double>& a, const std::vector<double>& b) {
    double e = 0, s = 0;
    for (size_t n = 0; n < a.size(); ++n) {
      e = std::max(e, std::abs(a[n] - b[n]));
      s = std::max(s, std::abs(b[n]));
    }
    return e / s;
  };
  CHECK(rel(one.h, host.h) < 1e-12);
  CHECK(rel(one.u, host.u) < 1e-9);
  CHECK(rel(one.v, host.v) < 1e-9);
  CHECK(rel(one.c, host.c) < 1e-11);
}

TEST_CASE("weather on the GPU, periodic f-plane: 1 rank (stages 1 and 2 fused) equals N ranks bit for bit",
          "[weather][mpi][gpu]") {
  TESSERA_GPU_TEST();
  compare_with_one_rank(kPlane, {}, exec::Space::Device);
}
