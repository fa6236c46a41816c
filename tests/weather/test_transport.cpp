// Halo transports, managed memory and the interior/boundary overlap give bit-identical weather fields:
// N ranks with every transport equal one rank, overlap on equals overlap off. Host (CI): host-staged and the GPU requests served through host MPI on a CPU run.
// [gpu] (GPU_RANKS 1 2): every transport this build and MPI offer, and managed fields, against one GPU.
#include <cstring>
#include <string>
#include <vector>

#include <mpi.h>

#include "../domain/transports.hpp"
#include "catch_compat.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"

using namespace tessera;
using namespace tessera::weather;
using domain::Transport;

namespace {

// Walls in y with a beta plane, a jet, damping and tracers: every exchange of the step is used.
const char* kChannel = R"(
grid: {cells: [23, 17], length: [2.3e6, 1.7e6], boundary_x: periodic, boundary_y: wall}
physics: {f0: 1.0e-4, beta: 1.6e-11}
initial: {type: jet, depth: 1000.0, jet_speed: 20.0, jet_width: 2.0e5, perturbation: 5.0}
topography: {type: random, height: 50.0}
time: {end: 1.0e9, cfl: 0.5, max_steps: 6}
damping: {coefficient: 0.005}
tracers: {levels: 2, column_depth: 1000.0, w_amplitude: 0.05}
output: {fields: false, spectrum: false}
)";

// Walls in x (west wall: the wall fill writes u of cell 0), periodic y, no tracers, SSP-RK2.
const char* kBox = R"(
grid: {cells: [19, 22], length: [1.9e6, 2.2e6], boundary_x: wall, boundary_y: periodic}
physics: {f0: 1.0e-4}
initial: {type: gaussian, depth: 500.0, amplitude: 20.0, width: 3.0e5, center: [0.3, 0.6]}
topography: {type: gaussian, height: 100.0, width: 4.0e5}
time: {end: 1.0e9, cfl: 0.6, max_steps: 6, scheme: ssprk2}
output: {fields: false, spectrum: false}
)";

std::vector<double> run(MPI_Comm comm, exec::Space space, const std::string& transport, const std::string& memory,
                        const char* yaml = kChannel, bool overlap = true) {
  const Case c = case_from_string(yaml, {"parallel.transport=" + transport, "parallel.memory=" + memory,
                                         std::string("parallel.overlap=") + (overlap ? "true" : "false")});
  const Config k = read_config(c);
  Model m(comm, k, exec::Exec(space));
  m.initialise();
  for (int s = 0; s < 6; ++s) m.step(m.stable_dt());
  std::vector<double> all;
  for (const domain::Field<double>* f : {&m.state().h, &m.state().u, &m.state().v, &m.state().c}) {
    if (!f->data()) continue;  // no tracers
    const std::vector<double> g = domain::gather_to_root(m.decomposition(), *f);
    all.insert(all.end(), g.begin(), g.end());
  }
  return all;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && !a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::string case_name(Transport t) {
  switch (t) {
    case Transport::HostStaged: return "host";
    case Transport::CudaAware: return "cuda_aware";
    case Transport::Nccl: return "nccl";
    case Transport::Auto: return "auto";
  }
  return "?";
}

void check(exec::Space space, const std::vector<Transport>& transports, const std::vector<std::string>& memories) {
  std::vector<double> one;
  if (test::mpi_rank() == 0) one = run(MPI_COMM_SELF, space, "host", "device");
  for (const std::string& mem : memories)
    for (Transport tr : transports) {
      const std::vector<double> many = run(MPI_COMM_WORLD, space, case_name(tr), mem);
      if (test::mpi_rank() != 0) continue;
      INFO(test::mpi_size() << " ranks, " << exec::to_string(space) << ", transport " << case_name(tr) << ", "
                            << mem << " memory");
      CHECK(same_bits(one, many));
    }
}

}  // namespace

TEST_CASE("weather: every halo transport on N ranks equals 1 rank bit for bit (host)", "[weather][mpi][transport]") {
  std::vector<Transport> t{Transport::HostStaged, Transport::Auto, Transport::CudaAware};
  if (domain::nccl_available()) t.push_back(Transport::Nccl);
  check(exec::Space::Host, t, {"device"});  // "device" memory on a CPU run: host memory
}

TEST_CASE("weather: interior/boundary overlap gives the same bits as the plain step, 1 and N ranks",
          "[weather][mpi][overlap]") {
  for (const char* yaml : {kChannel, kBox}) {
    const std::vector<double> plain_n = run(MPI_COMM_WORLD, exec::Space::Host, "host", "device", yaml, false);
    const std::vector<double> over_n = run(MPI_COMM_WORLD, exec::Space::Host, "host", "device", yaml, true);
    if (test::mpi_rank() != 0) continue;
    const std::vector<double> plain_1 = run(MPI_COMM_SELF, exec::Space::Host, "host", "device", yaml, false);
    const std::vector<double> over_1 = run(MPI_COMM_SELF, exec::Space::Host, "host", "device", yaml, true);
    CHECK(same_bits(plain_n, over_n));
    CHECK(same_bits(plain_1, over_1));
    CHECK(same_bits(plain_1, over_n));
  }
}

TEST_CASE("weather: parallel keys are validated and read", "[weather][transport]") {
  const Config k = read_config(case_from_string(kChannel, {"parallel.transport=auto", "parallel.memory=managed"}));
  CHECK(k.parallel.transport == Transport::Auto);
  CHECK(k.parallel.managed);
  CHECK(k.parallel.overlap);
  CHECK_FALSE(read_config(case_from_string(kChannel, {"parallel.overlap=false"})).parallel.overlap);
  CHECK(read_config(case_from_string(kChannel, {})).parallel.transport == Transport::HostStaged);
  CHECK_THROWS(case_from_string(kChannel, {"parallel.transport=pigeon"}));
}

TEST_CASE("weather: every halo transport and managed memory on N GPUs equal 1 GPU bit for bit",
          "[weather][mpi][transport][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  check(exec::Space::Device, available_transports(), {"device", "managed"});
}
