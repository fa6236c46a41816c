// 1 rank vs N ranks, bit for bit: the same case on MPI_COMM_WORLD (N ranks, several rank grids) and on
// MPI_COMM_SELF of rank 0 must give identical density and velocity on every cell.
#include <cmath>
#include <initializer_list>
#include <string>

#include "catch_compat.hpp"
#include "tessera/lbm/solver/partition.hpp"
#include "lbm_specs.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {


SimulationSpec periodic_3d(LatticeKind k, Precision p, CollisionKind ck) {
  return fixtures::periodic_3d(k, p, ck, {13, 11, 9}, /*sphere=*/true, ck == CollisionKind::Regularized ? 0.12 : 0.0);
}

void compare(const SimulationSpec& spec, int64_t steps, std::array<int, 3> dims, exec::Space space = exec::Space::Host) {
  const auto [n, one] = fixtures::run_n_and_one(spec, steps, dims, space);
  if (test::mpi_rank() != 0) return;
  REQUIRE(fixtures::same_bits(n.rho, one.rho));
  REQUIRE(fixtures::same_bits(n.u, one.u));
  REQUIRE(fixtures::max_abs(one.u) > 1e-3);  // the flow developed: comparing zeros would prove nothing
}

}  // namespace

TEST_CASE("2-D cavity with an obstacle: N ranks equal 1 rank bit for bit", "[lbm][mpi]") {
  const int n = test::mpi_size();
  compare(fixtures::cavity_2d(), 41, {0, 0, 1});
  compare(fixtures::cavity_2d(), 40, {n, 1, 1});
  compare(fixtures::cavity_2d(), 40, {1, n, 1});
}

TEST_CASE("3-D periodic/walled box: N ranks equal 1 rank bit for bit", "[lbm][mpi]") {
  const int n = test::mpi_size();
  const std::pair<LatticeKind, Precision> combos[] = {{LatticeKind::D3Q19, Precision::FP64},
                                                      {LatticeKind::D3Q27, Precision::FP16}};
  for (const auto& [k, p] : combos) {
    compare(periodic_3d(k, p, CollisionKind::BGK), 15, {0, 0, 0});
    compare(periodic_3d(k, p, CollisionKind::Regularized), 14, {1, 1, n});
  }
  compare(periodic_3d(LatticeKind::D3Q19, Precision::FP32, CollisionKind::TRT), 13, {n, 1, 1});
}

// On the GPU: N ranks equal 1 rank bit for bit (halo staged through pinned host buffers), and the GPU
// matches the host to rounding (FMA contraction on the device): |drho|, |du| < 2e-6 after 40 steps.
TEST_CASE("GPU: N ranks equal 1 rank bit for bit; GPU matches the host", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const int n = test::mpi_size();
  compare(fixtures::cavity_2d(), 41, {n, 1, 1}, exec::Space::Device);
  compare(periodic_3d(LatticeKind::D3Q19, Precision::FP32, CollisionKind::TRT), 14, {1, 1, n}, exec::Space::Device);
  compare(periodic_3d(LatticeKind::D3Q27, Precision::FP16, CollisionKind::Regularized), 14, {0, 0, 0}, exec::Space::Device);
  SimulationSpec spec = periodic_3d(LatticeKind::D3Q19, Precision::FP32, CollisionKind::BGK);
  std::vector<float> rd, ud, rh, uh;
  {
    Simulation sim(MPI_COMM_WORLD, exec::Space::Device, spec);
    sim.advance(40);
    sim.gather(rd, ud);
  }
  {
    Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
    sim.advance(40);
    sim.gather(rh, uh);
  }
  if (test::mpi_rank() == 0) {
    double dr = 0, du = 0;
    for (std::size_t i = 0; i < rd.size(); ++i) dr = std::max(dr, double(std::abs(rd[i] - rh[i])));
    for (std::size_t i = 0; i < ud.size(); ++i) du = std::max(du, double(std::abs(ud[i] - uh[i])));
    INFO("max |drho| " << dr << " max |du| " << du);
    REQUIRE(dr < 2e-6);
    REQUIRE(du < 2e-6);
  }
}

namespace {
// A one-rank GPU run of spec with TESSERA_LBM_FUSED=mode ("off" or "on"), advanced in calls of the given
// numbers of steps; it takes fused pairs exactly when mode is "on". Density and velocity at the end.
fixtures::Fields fused_run(const SimulationSpec& spec, const char* mode, std::initializer_list<int64_t> calls) {
  const tessera::test::ScopedEnv env("TESSERA_LBM_FUSED", mode);
  Simulation sim(MPI_COMM_SELF, exec::Space::Device, spec);
  REQUIRE(sim.fused_steps() == (std::string(mode) == "on"));
  CHECK(sim.fused_choice() == mode);
  for (int64_t n : calls) sim.advance(n);
  fixtures::Fields f;
  sim.gather(f.rho, f.u);
  return f;
}
}  // namespace

// A closed box on one rank has nothing to exchange, so the solver takes its tuned steps in fused pairs
// (stream_collide_pairs, several pairs per launch) where TESSERA_LBM_FUSED=on: the same bits as step by step, also with
// an odd number of steps (the last one alone) and across two advance() calls that split a pair. A box
// with periodic axes on one rank takes fused pairs too (next test case). With auto (the default) the run
// times both forms on its first steps (a trial of kTrialSteps steps, which may span calls) and keeps the
// faster: the same bits whichever it keeps, also with the trial split over calls that start at odd steps.
TEST_CASE("GPU: a closed box takes fused step pairs and gives the bits of single steps", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  if (test::mpi_rank() != 0) return;
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27}) {
    INFO(to_string(k));
    SimulationSpec spec = fixtures::periodic_3d(k, Precision::FP32, CollisionKind::BGK, {14, 11, 9}, /*sphere=*/true);
    spec.collision.force[0] = 0.0;  // the fused steps are force-free; the moving wall drives the flow
    spec.path = KernelPath::Tuned;
    for (int f : {0, 1, 4, 5}) spec.faces[std::size_t(f)].kind = FaceBC::Wall;
    const fixtures::Fields single = fused_run(spec, "off", {50});
    const fixtures::Fields fused = fused_run(spec, "on", {5, 45});  // the second call starts at an odd step
    REQUIRE(fixtures::max_abs(single.u) > 1e-3);
    REQUIRE(fixtures::same_bits(single.rho, fused.rho));
    REQUIRE(fixtures::same_bits(single.u, fused.u));
    std::vector<float> r_auto, u_auto;
    {
      const tessera::test::ScopedEnv unset("TESSERA_LBM_FUSED", "");  // the default: auto
      Simulation sim(MPI_COMM_SELF, exec::Space::Device, spec);
      REQUIRE(sim.fused_pending());
      REQUIRE_FALSE(sim.fused_steps());
      sim.advance(3);  // a pair of the trial, then a single step
      CHECK(sim.fused_pending());
      sim.advance(Simulation::kTrialSteps - 4);  // at an odd step: a single step, 7 pairs of the trial, a single step
      CHECK(sim.fused_pending());
      CHECK(sim.step() == Simulation::kTrialSteps - 1);
      sim.advance(Simulation::kTrialSteps + 1);  // a single step, the trial's last 2 pairs, the choice, the rest
      CHECK_FALSE(sim.fused_pending());
      CHECK(sim.step() == 2 * Simulation::kTrialSteps);
      const std::string choice = sim.fused_choice();
      INFO(choice);
      CHECK(choice.rfind(sim.fused_steps() ? "auto: fused pairs (" : "auto: single steps (", 0) == 0);
      sim.advance(50 - 2 * Simulation::kTrialSteps);
      sim.gather(r_auto, u_auto);
    }
    REQUIRE(fixtures::same_bits(single.rho, r_auto));
    REQUIRE(fixtures::same_bits(single.u, u_auto));
  }
}

// One rank along periodic axes exchanges with itself: the fused even step writes the forward exchange into
// the ghost layer (image_put) and the solver runs the reverse exchange after each pair. The same bits
// as single steps with their exchanges: x and z periodic (y walls, the lid moving) and every axis periodic,
// in one slab and in slabs of 3 rows (the first slab's row 0 left to the last slab), at the default lag and
// at 3 (the odd planes interleaved with the even ones), with a sphere inside
// and a plate of solid cells on the periodic side x = 0 (copied as they are), D3Q19 / D3Q27, fp32 / fp16.
TEST_CASE("GPU: periodic axes on one rank take fused step pairs and give the bits of single steps", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  if (test::mpi_rank() != 0) return;
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (int all : {0, 1})
        for (const char* rows : {"", "3"})
          for (const char* lag : {"", "3"}) {  // unset: 16, so nz = 9 (every even plane first); 3: interleaved
            INFO(to_string(k) << " " << to_string(pr) << (all ? " every axis periodic" : " x, z periodic") << " rows '"
                              << rows << "' lag '" << lag << "'");
            SimulationSpec spec = fixtures::periodic_3d(k, pr, CollisionKind::BGK, {14, 11, 9}, /*sphere=*/true);
            spec.collision.force[0] = 0.0;
            spec.path = KernelPath::Tuned;
            if (all) spec.faces[2].kind = spec.faces[3].kind = FaceBC::Periodic;
            const auto sphere = spec.solid;
            spec.solid = [sphere](int64_t x, int64_t y, int64_t z) {
              return sphere(x, y, z) || (x == 0 && y >= 4 && y <= 6 && z >= 2);  // a plate on the periodic side
            };
            const tessera::test::ScopedEnv slab("TESSERA_LBM_FUSED_ROWS", rows), ahead("TESSERA_LBM_FUSED_LAG", lag);
            const fixtures::Fields single = fused_run(spec, "off", {31});
            const fixtures::Fields fused = fused_run(spec, "on", {7, 24});  // the second call starts at an odd step
            REQUIRE(fixtures::max_abs(single.u) > 1e-3);
            REQUIRE(fixtures::same_bits(single.rho, fused.rho));
            REQUIRE(fixtures::same_bits(single.u, fused.u));
          }
}

// The automatic rank grid splits where the halo is smallest and contiguous: z for a box long in z (not
// x, which MPI_Dims_create would pick), never z for a 2-D lattice, and every rank's box tiles the grid.
TEST_CASE("lbm partition: the automatic rank grid minimises the halo", "[lbm][mpi]") {
  const int n = test::mpi_size();
  Partition p = Partition::make(MPI_COMM_WORLD, {16, 16, 32}, {true, true, true});
  CHECK(p.dims[0] * p.dims[1] * p.dims[2] == n);
  if (n == 2) CHECK(p.dims == std::array<int, 3>{1, 1, 2});
  if (n == 4) CHECK(p.dims == std::array<int, 3>{1, 1, 4});
  int64_t cells = p.size[0] * p.size[1] * p.size[2], all = 0;
  MPI_Allreduce(&cells, &all, 1, MPI_INT64_T, MPI_SUM, p.comm);
  CHECK(all == 16 * 16 * 32);
  MPI_Comm_free(&p.comm);
  Partition q = Partition::make(MPI_COMM_WORLD, {24, 12, 1}, {false, false, true});
  CHECK(q.dims[2] == 1);
  if (n == 2) CHECK(q.dims == std::array<int, 3>{1, 2, 1});  // x faces are strided: split y
  MPI_Comm_free(&q.comm);
}
