// Checkpoint/restart of the LBM state: N steps straight equal N/2 steps + checkpoint + restart + N/2 steps
// bit for bit (populations and moments), with the restart on the same or another rank count, after an
// even and an odd number of steps (the two AA parities), for fp32 and fp16 storage.

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {

using fixtures::cavity_2d;

// x, z periodic; y walls, the top one moving; fp16 storage, regularized collision, no solid.
SimulationSpec periodic_3d_fp16() {
  return fixtures::periodic_3d(LatticeKind::D3Q19, Precision::FP16, CollisionKind::Regularized, {11, 9, 8}, false);
}

// A fresh directory shared by all ranks of MPI_COMM_WORLD.
std::string fresh_dir(const std::string& tag) {
  const std::filesystem::path d = test::fresh_scratch_path("lbm_restart_" + tag);
  if (test::mpi_rank() == 0) {
    for (const char* sub : {"a", "b", "straight"}) std::filesystem::create_directories(d / sub);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return d.string();
}

struct Result {
  std::vector<float> rho, u;         // gathered on rank 0 of the run's communicator
  std::vector<uint8_t> populations;  // whole box, raw storage words (read back from a final checkpoint)
  int64_t step = 0;
};

// The whole box of a final checkpoint, read on every rank of comm.
void read_final(MPI_Comm comm, Simulation& sim, const std::string& dir, Result& r) {
  const std::string path = sim.write_checkpoint(dir, io::CheckpointMeta{});
  io::CheckpointReader rd(comm, path);
  const auto& g = sim.spec().global;
  const io::LocalBox all{{0, 0, 0}, {g[0], g[1], g[2]}};
  const int64_t per_cell = int64_t(sim.state().q()) * precision_bytes(sim.state().precision());
  r.populations.resize(std::size_t(all.num_cells() * per_cell));
  rd.read_field("populations", all, r.populations.data());
  r.step = rd.meta().step;
}

// Runs `first` steps on comm_a, checkpoints, restores on comm_b (rank grid dims_b) and runs `second` more.
// Ranks outside a communicator (MPI_COMM_NULL) skip that part.
Result split_run(SimulationSpec spec, int64_t first, int64_t second, MPI_Comm comm_a, MPI_Comm comm_b,
                 std::array<int, 3> dims_b, const std::string& dir, exec::Space space) {
  std::string path;
  if (comm_a != MPI_COMM_NULL) {
    Simulation a(comm_a, space, spec);
    a.advance(first);
    path = a.write_checkpoint(dir + "/a", io::CheckpointMeta{});
  }
  // Ranks of comm_b that were not in comm_a need the path: every test writes to the same dir, so find it.
  MPI_Barrier(MPI_COMM_WORLD);
  if (path.empty()) path = io::list_checkpoints(dir + "/a").front().path;
  Result r;
  if (comm_b != MPI_COMM_NULL) {
    spec.rank_dims = dims_b;
    Simulation b(comm_b, space, spec);
    b.restore(io::CheckpointReader(comm_b, path));
    REQUIRE(b.step() == first);
    b.advance(second);
    b.gather(r.rho, r.u);
    read_final(comm_b, b, dir + "/b", r);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return r;
}

Result straight_run(const SimulationSpec& spec, int64_t steps, const std::string& dir, exec::Space space) {
  Result r;
  Simulation s(MPI_COMM_WORLD, space, spec);
  s.advance(steps);
  s.gather(r.rho, r.u);
  read_final(MPI_COMM_WORLD, s, dir + "/straight", r);
  return r;
}

void require_equal(const Result& a, const Result& b, bool have_moments) {
  REQUIRE(a.step == b.step);
  REQUIRE(a.populations.size() == b.populations.size());
  REQUIRE(std::memcmp(a.populations.data(), b.populations.data(), a.populations.size()) == 0);
  if (!have_moments) return;
  REQUIRE(a.rho.size() == b.rho.size());
  REQUIRE(std::memcmp(a.rho.data(), b.rho.data(), a.rho.size() * sizeof(float)) == 0);
  REQUIRE(std::memcmp(a.u.data(), b.u.data(), a.u.size() * sizeof(float)) == 0);
  REQUIRE(fixtures::max_abs(a.u) > 1e-3);  // the flow must have developed: comparing zeros would prove nothing
}

void check_spec(const SimulationSpec& spec, int64_t n_first, int64_t n_second, const std::string& tag,
                exec::Space space = exec::Space::Host) {
  const int n = test::mpi_size(), rank = test::mpi_rank();
  const Result ref = straight_run(spec, n_first + n_second, fresh_dir(tag + "_ref"), space);
  // Same communicator, another rank grid.
  const Result same = split_run(spec, n_first, n_second, MPI_COMM_WORLD, MPI_COMM_WORLD, {1, n, 1}, fresh_dir(tag + "_w"), space);
  require_equal(ref, same, rank == 0);
  if (n == 1) return;
  // N ranks -> 1 rank and 1 rank -> N ranks.
  const MPI_Comm self = rank == 0 ? MPI_COMM_SELF : MPI_COMM_NULL;
  const Result down = split_run(spec, n_first, n_second, MPI_COMM_WORLD, self, {0, 0, 0}, fresh_dir(tag + "_down"), space);
  if (rank == 0) require_equal(ref, down, true);
  const Result up = split_run(spec, n_first, n_second, self, MPI_COMM_WORLD, {n, 1, 1}, fresh_dir(tag + "_up"), space);
  require_equal(ref, up, rank == 0);
}

}  // namespace

TEST_CASE("2-D cavity: restart is bit-identical after an even and an odd step count", "[lbm][mpi]") {
  check_spec(cavity_2d(), 20, 20, "c2e");  // checkpoint at parity 0
  check_spec(cavity_2d(), 21, 20, "c2o");  // parity 1: ghosts refilled by the forward exchange
}

TEST_CASE("3-D D3Q19 fp16 periodic box: restart is bit-identical", "[lbm][mpi]") {
  check_spec(periodic_3d_fp16(), 7, 6, "p3o");
  check_spec(periodic_3d_fp16(), 6, 6, "p3e");
}

// The message of the tessera::Error that f throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("A checkpoint of another lattice or geometry is refused", "[lbm]") {
  const std::string dir = fresh_dir("refuse");
  std::string path;
  {
    Simulation a(MPI_COMM_WORLD, exec::Space::Host, cavity_2d());
    a.advance(3);
    path = a.write_checkpoint(dir, io::CheckpointMeta{});
  }
  SimulationSpec fp64 = cavity_2d();
  fp64.precision = Precision::FP64;
  Simulation b(MPI_COMM_WORLD, exec::Space::Host, fp64);
  const std::string e1 = error_of([&] { b.restore(io::CheckpointReader(MPI_COMM_WORLD, path)); });
  INFO(e1);
  REQUIRE(e1.find("numerics.precision") != std::string::npos);
  SimulationSpec moved = cavity_2d();
  moved.solid = [](int64_t x, int64_t y, int64_t) { return (x - 9) * (x - 9) + (y - 6) * (y - 6) <= 4; };
  Simulation c(MPI_COMM_WORLD, exec::Space::Host, moved);
  const std::string e2 = error_of([&] { c.restore(io::CheckpointReader(MPI_COMM_WORLD, path)); });
  INFO(e2);
  REQUIRE(e2.find("flags") != std::string::npos);
}

TEST_CASE("GPU: restart is bit-identical on the device", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  check_spec(cavity_2d(), 21, 20, "g2o", exec::Space::Device);
  check_spec(periodic_3d_fp16(), 7, 6, "g3o", exec::Space::Device);
}
