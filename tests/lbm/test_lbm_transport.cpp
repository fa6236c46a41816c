// Halo transports give bit-identical LBM fields: every transport on N ranks equals one rank.
// Host (CI): host-staged, and requests for the GPU transports on a CPU run (served through host MPI).
// [gpu] (GPU_RANKS 1 2 on the two-GPU machine): host-staged, auto, CUDA-aware MPI (when the library
// supports it) and NCCL (when built with it), each against one GPU rank, bit for bit.
#include <cmath>
#include <cstring>

#include "../domain/transports.hpp"
#include "catch_compat.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;
using domain::Transport;

namespace {

// D3Q19 with walls on y (the top one moving), periodic x and z, a solid sphere and a body force: every
// kind of halo region (faces, edges, self-exchange along periodic axes) carries populations.
SimulationSpec channel_3d() {
  SimulationSpec s;
  s.lattice = LatticeKind::D3Q19;
  s.precision = Precision::FP32;
  s.collision.kind = CollisionKind::TRT;
  s.collision.omega = 1.6;
  s.collision.force[0] = 2e-5;
  s.global = {14, 11, 10};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {0.03, 0, 0.01};
  s.solid = [](int64_t x, int64_t y, int64_t z) { return (x - 6) * (x - 6) + (y - 5) * (y - 5) + (z - 4) * (z - 4) <= 5; };
  s.initial = [](int64_t x, int64_t y, int64_t z, double& rho, double u[3]) {
    rho = 1.0 + 0.01 * std::sin(0.7 * double(x + 2 * y + 3 * z));
    u[0] = 0.03 * std::sin(0.4 * double(y));
    u[1] = 0.02 * std::cos(0.3 * double(x + z));
    u[2] = 0.01 * std::sin(0.5 * double(x));
  };
  return s;
}

struct Result {
  std::vector<float> rho, u;
};

Result run(MPI_Comm comm, exec::Space space, Transport tr, int64_t steps) {
  SimulationSpec spec = channel_3d();
  spec.transport = tr;
  Simulation sim(comm, space, spec);
  sim.advance(steps);
  Result r;
  sim.gather(r.rho, r.u);
  return r;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && !a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void check_transports(exec::Space space, const std::vector<Transport>& transports) {
  const int64_t steps = 7;  // odd: the state ends after a forward and a reverse exchange
  Result one;
  if (test::mpi_rank() == 0) one = run(MPI_COMM_SELF, space, Transport::HostStaged, steps);
  for (Transport tr : transports) {
    const Result many = run(MPI_COMM_WORLD, space, tr, steps);
    if (test::mpi_rank() != 0) continue;
    INFO(test::mpi_size() << " ranks, " << exec::to_string(space) << ", transport " << domain::to_string(tr));
    CHECK(same_bits(one.rho, many.rho));
    CHECK(same_bits(one.u, many.u));
  }
  if (test::mpi_rank() == 0) {
    double umax = 0;
    for (float v : one.u) umax = std::max(umax, double(std::abs(v)));
    CHECK(umax > 1e-3);  // the flow moved: equal zeros would prove nothing
  }
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
