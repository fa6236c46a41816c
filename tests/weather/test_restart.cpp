// Restart from a checkpoint continues bit for bit (under mpiexec with 1-4 ranks).
#include <cstring>
#include <filesystem>
#include <string>

#include <mpi.h>

#include "catch_compat.hpp"
#include "weather_cases.hpp"
#include "tessera/weather_solver/output.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {

using fixtures::kChannel;
using fixtures::run_model;
using fixtures::same_bits;
using fixtures::Snapshot;

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
