// Checkpoint/restart of the md engine: N steps straight against N/2 + checkpoint + restart + N/2, bit for
// bit (NVE, Langevin, Nose-Hoover, a FENE polymer melt; host and GPU), and a corrupt or foreign checkpoint
// refused with a clear message.

#include <filesystem>

#include "catch_compat.hpp"
#include "md_case_util.hpp"
#include "tessera/io/checkpoint.hpp"

using namespace mdcase;

namespace {
// 256 atoms; sort_every 2 so that particles are re-sorted between checkpoints (memory order matters).
const char* kLiquid = R"(
system: {source: lattice, lattice: fcc, cells: [4, 4, 4], density: 0.8442}
velocity: {temperature: 1.2, seed: 11}
pair: {style: lj, shift: force, cutoff: 2.5}
neighbor: {skin: 0.3, sort_every: 2}
run: {steps: 240, dt: 0.005}
thermostat: {temperature: 1.0, gamma: 1.0, tau: 0.5, chain: 3, seed: 99}
output: {thermo_every: 7, msd_every: 10}
)";

// Kremer-Grest melt (WCA + FENE): bonds are stored per atom and must follow the restored memory order.
const char* kMelt = R"(
system: {source: polymer, cells: [6, 6, 6], density: 0.85, chain_length: 12}
velocity: {temperature: 1.0, seed: 5}
pair: {style: wca}
bonds: {style: fene, k: 30, r0: 1.5}
neighbor: {skin: 0.4, sort_every: 3}
run: {steps: 200, dt: 0.005, integrator: langevin}
thermostat: {temperature: 1.0, gamma: 1.0}
output: {thermo_every: 10}
)";

std::string fresh_dir(const std::string& tag) {
  const auto d = tessera::test::scratch_root() / ("md_restart_" + tag);
  std::filesystem::remove_all(d);
  return d.string();
}

// Straight run of n steps vs n/2 + checkpoint + restore into a fresh engine + n/2: the same bits.
void check_restart(exec::Space space, const std::string& yaml, const std::vector<std::string>& ov, int64_t n,
                   const std::string& tag) {
  const Case c = make_case(yaml, ov);
  const int64_t te = read_config(c).thermo_every;
  auto straight = make_sim(space, c);
  straight->setup();
  advance(*straight, n, te);

  const std::string dir = fresh_dir(tag);
  std::string path;
  {
    auto first = make_sim(space, c);
    first->setup();
    advance(*first, n / 2, te);
    io::CheckpointMeta m;
    m.case_hash = c.hash_hex();
    m.case_text = c.yaml();
    path = first->write_checkpoint(MPI_COMM_WORLD, dir, m);
  }
  CHECK(io::verify_checkpoint(path).empty());
  auto resumed = make_sim(space, c);
  io::LoadOptions lo;
  lo.expected_case_hash = c.hash_hex();
  resumed->restore(io::CheckpointReader(MPI_COMM_WORLD, path, lo));
  CHECK(resumed->step_count() == n / 2);
  advance(*resumed, n, te);
  CHECK(same_state(*straight, *resumed));
  if (straight->config().integrator == Integrator::npt) {
    CHECK(straight->barostat().v_eps() == resumed->barostat().v_eps());
    CHECK(straight->box().L[0] == resumed->box().L[0]);
  }
  if (straight->config().integrator == Integrator::nose_hoover) {
    CHECK(same_bits(straight->nose_hoover().xi(), resumed->nose_hoover().xi()));
    CHECK(same_bits(straight->nose_hoover().v(), resumed->nose_hoover().v()));
  }
  if (straight->config().msd) {
    const auto a = straight->msd(), b = resumed->msd();
    CHECK(std::memcmp(a.data(), b.data(), sizeof a) == 0);
  }
  // Thermo at the end agrees bit for bit too (energies on the last step in both).
  straight->step(true);
  resumed->step(true);
  const Thermo ta = straight->thermo(), tb = resumed->thermo();
  CHECK(ta.pe == tb.pe);
  CHECK(ta.conserved == tb.conserved);
  // Several neighbour-list builds (and hence re-sorts) happened after the restart point.
  CHECK(resumed->neighbors().stats().builds >= 3);
  std::filesystem::remove_all(dir);
}
}  // namespace

TEST_CASE("md restart is bit-identical: NVE, Langevin, Nose-Hoover, NPT", "[md][restart]") {
  for (const char* integ : {"nve", "langevin", "nose_hoover", "npt"}) {
    INFO("integrator " << integ);
    check_restart(exec::Space::Host, kLiquid, {std::string("run.integrator=") + integ}, 240, integ);
  }
}

TEST_CASE("md restart is bit-identical for a FENE melt (bonds follow the restored order)", "[md][restart]") {
  check_restart(exec::Space::Host, kMelt, {}, 200, "melt");
}

TEST_CASE("md restart is bit-identical with walls and mixed precision", "[md][restart]") {
  check_restart(exec::Space::Host, kLiquid, {"walls.z=lj93", "run.precision=mixed", "run.integrator=nose_hoover"}, 240,
                "walls");
}

TEST_CASE("md refuses a checkpoint of another case, naming the difference", "[md][restart]") {
  const Case c = make_case(kLiquid);
  const std::string dir = fresh_dir("foreign");
  auto sim = make_sim(exec::Space::Host, c);
  sim->setup();
  advance(*sim, 10, 7);
  io::CheckpointMeta m;
  m.case_hash = c.hash_hex();
  m.case_text = c.yaml();
  const std::string path = sim->write_checkpoint(MPI_COMM_WORLD, dir, m);
  const Case other = make_case(kLiquid, {"system.cells=[5, 4, 4]"});
  io::LoadOptions lo;
  lo.expected_case_hash = other.hash_hex();
  lo.expected_case_text = other.yaml();
  CHECK_THROWS(io::CheckpointReader(MPI_COMM_WORLD, path, lo));
  // Forced past the hash check, the engine still refuses a different atom count.
  lo.force = true;
  auto big = make_sim(exec::Space::Host, other);
  try {
    big->restore(io::CheckpointReader(MPI_COMM_WORLD, path, lo));
    FAIL("restore accepted a checkpoint with another atom count");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("256 atoms") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("md restart on the GPU is bit-identical to the uninterrupted GPU run", "[md][restart][gpu]") {
  TESSERA_GPU_TEST();
  for (const char* integ : {"nve", "langevin", "nose_hoover", "npt"}) {
    INFO("integrator " << integ);
    check_restart(exec::Space::Device, kLiquid, {std::string("run.integrator=") + integ}, 240,
                  std::string("gpu_") + integ);
  }
  check_restart(exec::Space::Device, kMelt, {}, 200, "gpu_melt");
}
