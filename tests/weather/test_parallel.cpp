// The weather model gives bit-identical fields for 1 rank and N ranks (run under mpiexec with 1-4
// ranks, uneven splits along both axes), on the host and on the GPU.
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <mpi.h>

#include "catch_compat.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {

// A case that uses every stencil: walls in y with a beta plane, random topography, a jet, damping,
// tracers with vertical advection; odd cell counts so that every split is uneven.
const char* kChannel = R"(
grid: {cells: [23, 17], length: [2.3e6, 1.7e6], boundary_x: periodic, boundary_y: wall}
physics: {f0: 1.0e-4, beta: 1.6e-11}
initial: {type: jet, depth: 1000.0, jet_speed: 20.0, jet_width: 2.0e5, perturbation: 5.0}
topography: {type: random, height: 50.0}
time: {end: 1.0e9, cfl: 0.5, max_steps: 12}
damping: {coefficient: 0.005}
tracers: {levels: 3, column_depth: 1000.0, w_amplitude: 0.05}
output: {fields: false, spectrum: false}
)";
const char* kBox = R"(
grid: {cells: [19, 22], length: [1.9e6, 2.2e6], boundary_x: wall, boundary_y: periodic}
physics: {f0: 1.0e-4}
initial: {type: gaussian, depth: 500.0, amplitude: 20.0, width: 3.0e5, center: [0.3, 0.6]}
topography: {type: gaussian, height: 100.0, width: 4.0e5}
time: {end: 1.0e9, cfl: 0.6, max_steps: 12, scheme: ssprk2}
output: {fields: false, spectrum: false}
)";

struct Snapshot {
  std::vector<double> h, u, v, c;
  double time = 0;
};

Snapshot run_model(MPI_Comm comm, const std::string& yaml, const std::vector<std::string>& ov, int64_t steps,
                   exec::Space space = exec::Space::Host) {
  const Case c = case_from_string(yaml, ov);
  const Config k = read_config(c);
  Model m(comm, k, exec::Exec(space));
  m.initialise();
  for (int64_t s = 0; s < steps; ++s) m.step(m.stable_dt());
  Snapshot r;
  r.h = domain::gather_to_root(m.decomposition(), m.state().h);
  r.u = domain::gather_to_root(m.decomposition(), m.state().u);
  r.v = domain::gather_to_root(m.decomposition(), m.state().v);
  if (k.levels > 0) r.c = domain::gather_to_root(m.decomposition(), m.state().c);
  r.time = m.time;
  return r;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void compare_with_one_rank(const std::string& yaml, const std::vector<std::string>& ov) {
  Snapshot one;
  if (test::mpi_rank() == 0) one = run_model(MPI_COMM_SELF, yaml, {}, 12);
  const Snapshot many = run_model(MPI_COMM_WORLD, yaml, ov, 12);
  if (test::mpi_rank() != 0) return;
  REQUIRE(!one.h.empty());
  CHECK(one.time == many.time);
  CHECK(same_bits(one.h, many.h));
  CHECK(same_bits(one.u, many.u));
  CHECK(same_bits(one.v, many.v));
  CHECK(same_bits(one.c, many.c));
  // and the run did something: the state moved away from the initial one
  const Snapshot init = run_model(MPI_COMM_SELF, yaml, {}, 0);
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
