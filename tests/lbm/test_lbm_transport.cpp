// Halo transports give bit-identical LBM fields: every transport on N ranks equals one rank.
// Host (CI): host-staged, and requests for the GPU transports on a CPU run (served through host MPI).
// [gpu] (GPU_RANKS 1 2 on the two-GPU machine): host-staged, auto, CUDA-aware MPI (when the library
// supports it) and NCCL (when built with it), each against one GPU rank, bit for bit.
#include <cmath>
#include <cstring>

#include "../domain/transports.hpp"
#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;
using domain::Transport;

namespace {

using fixtures::channel_3d;
using fixtures::Fields;
using fixtures::same_bits;

Fields run(MPI_Comm comm, exec::Space space, Transport tr, int64_t steps) {
  SimulationSpec spec = channel_3d();
  spec.transport = tr;
  Simulation sim(comm, space, spec);
  sim.advance(steps);
  Fields r;
  sim.gather(r.rho, r.u);
  return r;
}


void check_transports(exec::Space space, const std::vector<Transport>& transports) {
  const int64_t steps = 7;  // odd: the state ends after a forward and a reverse exchange
  Fields one;
  if (test::mpi_rank() == 0) one = run(MPI_COMM_SELF, space, Transport::HostStaged, steps);
  for (Transport tr : transports) {
    const Fields many = run(MPI_COMM_WORLD, space, tr, steps);
    if (test::mpi_rank() != 0) continue;
    INFO(test::mpi_size() << " ranks, " << exec::to_string(space) << ", transport " << domain::to_string(tr));
    CHECK(same_bits(one.rho, many.rho));
    CHECK(same_bits(one.u, many.u));
  }
  if (test::mpi_rank() == 0) CHECK(fixtures::max_abs(one.u) > 1e-3);  // the flow moved: equal zeros prove nothing
}

}  // namespace

TEST_CASE("lbm: every halo transport on N ranks equals 1 rank bit for bit (host)", "[lbm][mpi][transport]") {
  std::vector<Transport> t{Transport::HostStaged, Transport::Auto, Transport::CudaAware};
  if (domain::nccl_available()) t.push_back(Transport::Nccl);
  check_transports(exec::Space::Host, t);
}

TEST_CASE("lbm: every halo transport on N GPUs equals 1 GPU bit for bit", "[lbm][mpi][transport][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  check_transports(exec::Space::Device, available_transports());
}
