// Halo transports, managed memory and the interior/boundary overlap give bit-identical weather fields:
// N ranks with every transport equal one rank, overlap on equals overlap off. Host (CI): host-staged and the GPU requests served through host MPI on a CPU run.
// [gpu] (GPU_RANKS 1 2): every transport this build and MPI offer, and managed fields, against one GPU.
#include <cstring>
#include <string>
#include <vector>

#include <mpi.h>

#include "../domain/transports.hpp"
#include "catch_compat.hpp"
#include "weather_cases.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"

using namespace tessera;
using namespace tessera::weather;
using domain::Transport;

namespace {

using fixtures::kBox;
using fixtures::kChannel;
using fixtures::same_bits;
using fixtures::Snapshot;

// Six steps of a case with the given transport, memory kind and overlap.
Snapshot run(MPI_Comm comm, exec::Space space, const std::string& transport, const std::string& memory,
             const char* yaml = kChannel, bool overlap = true) {
  return fixtures::run_model(comm, yaml,
                         {"parallel.transport=" + transport, "parallel.memory=" + memory,
                          std::string("parallel.overlap=") + (overlap ? "true" : "false")},
                         6, space);
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
  Snapshot one;
  if (test::mpi_rank() == 0) one = run(MPI_COMM_SELF, space, "host", "device");
  for (const std::string& mem : memories)
    for (Transport tr : transports) {
      const Snapshot many = run(MPI_COMM_WORLD, space, case_name(tr), mem);
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
    const Snapshot plain_n = run(MPI_COMM_WORLD, exec::Space::Host, "host", "device", yaml, false);
    const Snapshot over_n = run(MPI_COMM_WORLD, exec::Space::Host, "host", "device", yaml, true);
    if (test::mpi_rank() != 0) continue;
    const Snapshot plain_1 = run(MPI_COMM_SELF, exec::Space::Host, "host", "device", yaml, false);
    const Snapshot over_1 = run(MPI_COMM_SELF, exec::Space::Host, "host", "device", yaml, true);
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
