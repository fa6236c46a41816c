// The spatial decomposition (solvers/md decomposition.hpp): a run on N ranks against the one-rank engine
// run by every rank on MPI_COMM_SELF. Run by CTest on 1, 2 and 4 ranks (2 on the GPU).
//
// Tolerances: the decomposed run adds the same pair forces in another order and forms ghost separations
// as x_i - (x_j + L) instead of (x_i - x_j) - L, so trajectories differ by rounding, which the chaotic
// dynamics amplifies (about e^(5 t/tau)); over 200 steps (t = 1 tau) of an LJ liquid that stays below
// 1e-9 in positions, and thermo sums agree to 1e-10 relative. A lost or duplicated atom, a missing ghost
// or a wrong periodic shift changes forces at O(1) and fails these by far.

#include <filesystem>

#include "catch_compat.hpp"
#include "md_ranks_util.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/io/checkpoint.hpp"

using namespace mdranks;

namespace {
// 500 atoms, box 8.4: 4 ranks split it 2 x 2 x 1 (sub-boxes 4.2 wide >= the ghost cut-off 2.8).
const char* kLiquid = R"(
system: {source: lattice, lattice: fcc, cells: [5, 5, 5], density: 0.8442}
velocity: {temperature: 1.2, seed: 11}
pair: {style: lj, shift: energy, cutoff: 2.5}
neighbor: {skin: 0.3}
run: {steps: 200, dt: 0.005}
thermostat: {temperature: 1.0, gamma: 1.0, tau: 0.5, chain: 3, seed: 99}
barostat: {pressure: 1.0, tau: 2.5}
output: {thermo_every: 50, msd_every: 10}
)";

// Kremer-Grest melt (WCA + FENE): the ghost cut-off is R0 = 1.5 (> WCA rc + skin).
const char* kMelt = R"(
system: {source: polymer, cells: [6, 6, 6], density: 0.85, chain_length: 12}
velocity: {temperature: 1.0, seed: 5}
pair: {style: wca}
bonds: {style: fene, k: 30, r0: 1.5}
neighbor: {skin: 0.3}
run: {steps: 200, dt: 0.005, integrator: langevin}
thermostat: {temperature: 1.0, gamma: 1.0}
output: {thermo_every: 50}
)";

struct Result {
  Deviation dev;
  Thermo ref, dec;
};

// n steps on MPI_COMM_SELF and on MPI_COMM_WORLD (space/transport for the latter), energies on the last.
Result run_both(const Case& c, int64_t n, exec::Space space = exec::Space::Host,
                domain::Transport t = domain::Transport::HostStaged) {
  auto ref = make_sim_on(exec::Space::Host, c, MPI_COMM_SELF);
  auto dec = make_sim_on(space, c, MPI_COMM_WORLD, t);
  ref->setup(), dec->setup();
  advance(*ref, n - 1, 50), advance(*dec, n - 1, 50);
  ref->step(true), dec->step(true);
  Result r;
  r.ref = ref->thermo(), r.dec = dec->thermo();
  r.dev = compare(snapshot(*ref), snapshot(*dec), ref->natoms());
  if (world_size() > 1) CHECK(dec->decomposition() != nullptr);
  return r;
}

void check_close(const Result& r, double tol_x, double tol_rel) {
  CHECK(r.dev.each_once);
  CHECK(r.dev.pos < tol_x);
  CHECK(r.dev.vel < tol_x);
  CHECK(close(r.dec.pe, r.ref.pe, tol_rel));
  CHECK(close(r.dec.ke, r.ref.ke, tol_rel));
  CHECK(close(r.dec.conserved, r.ref.conserved, tol_rel));
  CHECK(close(r.dec.pressure, r.ref.pressure, tol_rel, tol_rel));
  for (int a = 0; a < 3; ++a) CHECK(close(r.dec.momentum[a], r.ref.momentum[a], 0, 1e-10));
}

std::string shared_dir(const std::string& tag) { return tessera::test::scratch_path("md_ranks_" + tag); }  // one name on every rank
}  // namespace

TEST_CASE("md on N ranks follows the one-rank trajectory: NVE, Langevin, Nose-Hoover", "[md][ranks]") {
  for (const char* integ : {"nve", "langevin", "nose_hoover"}) {
    INFO("integrator " << integ << " on " << world_size() << " ranks");
    const Result r = run_both(make_case(kLiquid, {std::string("run.integrator=") + integ}), 200);
    CHECK(r.dev.atoms == 500);
    check_close(r, 1e-9, 1e-10);
  }
}

TEST_CASE("md on N ranks: NPT, walls and a Kremer-Grest melt follow the one-rank run", "[md][ranks]") {
  SECTION("npt") { check_close(run_both(make_case(kLiquid, {"run.integrator=npt"}), 200), 1e-9, 1e-10); }
  SECTION("walls") {
    check_close(run_both(make_case(kLiquid, {"walls.z=lj93", "run.integrator=nose_hoover"}), 200), 1e-9, 1e-10);
  }
  SECTION("melt") { check_close(run_both(make_case(kMelt), 200), 1e-9, 1e-10); }
}

namespace {
// A run straight to step n, and one checkpointed at n / 2 (in dir) and restored into a fresh engine that
// then continues to n; the caller compares the two.
struct RestartPair {
  std::unique_ptr<Simulation> straight, resumed;
  std::string path;
  io::LoadOptions lo;
};
RestartPair straight_and_restarted(exec::Space space, const Case& c, int64_t n, const std::string& dir,
                                   domain::Transport t = domain::Transport::HostStaged) {
  RestartPair r;
  r.straight = make_sim_on(space, c, MPI_COMM_WORLD, t);
  r.straight->setup();
  advance(*r.straight, n, 7);
  {
    auto first = make_sim_on(space, c, MPI_COMM_WORLD, t);
    first->setup();
    advance(*first, n / 2, 7);
    io::CheckpointMeta m;
    m.case_hash = c.hash_hex();
    m.case_text = c.yaml();
    r.path = first->write_checkpoint(MPI_COMM_WORLD, dir, m);
  }
  r.lo.expected_case_hash = c.hash_hex();
  r.resumed = make_sim_on(space, c, MPI_COMM_WORLD, t);
  r.resumed->restore(io::CheckpointReader(MPI_COMM_WORLD, r.path, r.lo));
  advance(*r.resumed, n, 7);
  return r;
}
}  // namespace

TEST_CASE("md checkpoint/restart on N ranks is bit-identical; another rank count continues to rounding",
          "[md][ranks][restart]") {
  const Case c = make_case(kLiquid, {"run.integrator=langevin"});
  const int64_t n = 120;
  const std::string dir = shared_dir("restart");
  auto [straight, resumed, path, lo] = straight_and_restarted(exec::Space::Host, c, n, dir);
  // Same rank count: every particle array in memory order, bit for bit, on every rank.
  int same = same_state(*straight, *resumed) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  CHECK(same == 1);
  const auto ma = straight->msd(), mb = resumed->msd();
  CHECK(std::memcmp(ma.data(), mb.data(), sizeof ma) == 0);

  // The N-rank checkpoint continued on one rank (each rank on MPI_COMM_SELF) follows the N-rank run.
  auto single = make_sim_on(exec::Space::Host, c, MPI_COMM_SELF);
  single->restore(io::CheckpointReader(MPI_COMM_SELF, path, lo));
  advance(*single, n, 7);
  const Deviation d = compare(snapshot(*single), snapshot(*straight), straight->natoms());
  CHECK(d.each_once);
  CHECK(d.pos < 1e-9);
  CHECK(d.vel < 1e-9);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove_all(dir);
}

TEST_CASE("md refuses more ranks than the box can hold, naming the fix", "[md][ranks]") {
  // Walls on every axis (no minimum-image limit): 32 atoms in a box of about 5.4, narrower than two ghost
  // cut-offs (3.0 + 0.3) on every axis, so no split of 2 or more ranks is valid.
  const Case c = make_case(kLiquid, {"system.cells=[2, 2, 2]", "pair.cutoff=3.0", "walls.x=lj93", "walls.y=lj93",
                                     "walls.z=lj93"});
  if (world_size() < 2) return;
  try {
    make_sim_on(exec::Space::Host, c, MPI_COMM_WORLD);
    FAIL("a decomposition with sub-boxes narrower than the ghost cut-off was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("run on one of 1 ranks") != std::string::npos);
  }
}

TEST_CASE("md on 2 GPUs follows the one-rank host run, with every transport; a GPU restart is exact",
          "[md][ranks][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));  // one GPU per rank where there are enough
  const Case c = make_case(kLiquid, {"run.integrator=langevin"});
  // GPU arithmetic (FMA contraction, another reduction order) differs from the host's by rounding too;
  // the bound is looser than between host runs (test_md_dynamics allows 1e-6 after 100 GPU steps), still
  // far below the O(1e-3) and more of a missing ghost or a wrong shift.
  const Result h = run_both(c, 200, exec::Space::Device, domain::Transport::HostStaged);
  check_close(h, 1e-7, 1e-9);
  if (domain::nccl_available() && domain::gpus_distinct(MPI_COMM_WORLD)) {
    const Result x = run_both(c, 200, exec::Space::Device, domain::Transport::Nccl);
    // Every transport moves the same bytes: the same bits as the host-staged run.
    CHECK(x.dec.pe == h.dec.pe);
    CHECK(x.dec.conserved == h.dec.conserved);
    CHECK(x.dev.pos == h.dev.pos);
  } else {
    WARN("NCCL transport not tested: no NCCL in this build, or ranks share a GPU");
  }
  if (domain::mpi_cuda_aware()) {
    const Result x = run_both(c, 200, exec::Space::Device, domain::Transport::CudaAware);
    CHECK(x.dec.pe == h.dec.pe);
    CHECK(x.dec.conserved == h.dec.conserved);
    CHECK(x.dev.pos == h.dev.pos);
  }
  // A checkpoint written on the GPUs and restored there continues bit for bit (the restore's sort and
  // ghost build run on the device as the rebuilds do).
  const domain::Transport t = domain::nccl_available() && domain::gpus_distinct(MPI_COMM_WORLD)
                                  ? domain::Transport::Nccl
                                  : domain::Transport::HostStaged;
  const int64_t n = 120;
  const std::string dir = shared_dir("restart_gpu");
  auto [straight, resumed, path, lo] = straight_and_restarted(exec::Space::Device, c, n, dir, t);
  int same = same_state(*straight, *resumed) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  CHECK(same == 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove_all(dir);
}
