// Restart from a checkpoint continues bit for bit (under mpiexec with 1-4 ranks).
#include <cstring>
#include <filesystem>
#include <string>

#include <mpi.h>

#include "catch_compat.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"
#include "tessera/weather_solver/output.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {

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

struct Snapshot {
  std::vector<double> h, u, v, c;
  double time = 0;
};

Snapshot run_model(MPI_Comm comm, const std::string& yaml, const std::vector<std::string>& ov, int64_t steps) {
  const Config k = read_config(case_from_string(yaml, ov));
  Model m(comm, k, exec::Exec(exec::Space::Host));
  m.initialise();
  for (int64_t s = 0; s < steps; ++s) m.step(m.stable_dt());
  Snapshot r;
  r.h = domain::gather_to_root(m.decomposition(), m.state().h);
  r.u = domain::gather_to_root(m.decomposition(), m.state().u);
  r.v = domain::gather_to_root(m.decomposition(), m.state().v);
  r.c = domain::gather_to_root(m.decomposition(), m.state().c);
  r.time = m.time;
  return r;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("weather: restart from a checkpoint continues bit for bit", "[weather][mpi]") {
  const std::string dir = "weather_restart_test_np" + std::to_string(test::mpi_size());
  const Case c = case_from_string(kChannel);
  const Config k = read_config(c);
  Snapshot straight = run_model(MPI_COMM_WORLD, kChannel, {}, 12);
  std::string path;
  {
    Model m(MPI_COMM_WORLD, k, exec::Exec(exec::Space::Host));
    m.initialise();
    for (int s = 0; s < 5; ++s) m.step(m.stable_dt());
    Output out(m, c, dir, false);
    path = out.checkpoint();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  Model m(MPI_COMM_WORLD, k, exec::Exec(exec::Space::Host));
  m.initialise();
  restart_from(m, c, path);
  CHECK(m.steps == 5);
  {  // the loaded state is the state that was saved
    const Snapshot five = run_model(MPI_COMM_WORLD, kChannel, {}, 5);
    const auto c5 = domain::gather_to_root(m.decomposition(), m.state().c);
    const auto h5 = domain::gather_to_root(m.decomposition(), m.state().h);
    if (test::mpi_rank() == 0) {
      CHECK(same_bits(h5, five.h));
      CHECK(same_bits(c5, five.c));
    }
  }
  for (int s = 5; s < 12; ++s) m.step(m.stable_dt());
  const auto h = domain::gather_to_root(m.decomposition(), m.state().h);
  const auto u = domain::gather_to_root(m.decomposition(), m.state().u);
  const auto cc = domain::gather_to_root(m.decomposition(), m.state().c);
  if (test::mpi_rank() == 0) {
    CHECK(same_bits(h, straight.h));
    CHECK(same_bits(u, straight.u));
    CHECK(same_bits(cc, straight.c));
    CHECK(m.time == straight.time);
    std::filesystem::remove_all(dir);
  }
}
