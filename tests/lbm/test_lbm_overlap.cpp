// Overlap of the AA halo exchange with the interior update (parallel.overlap) and managed memory
// (parallel.memory): the LBM fields on N ranks, overlap on and off, equal one rank without overlap bit
// for bit. Host (CTest, 1 2 4 ranks): the reference kernel on three cases that between them have
// walls, a moving wall, solids, body force, open boundaries, self-exchange along periodic axes and
// every lattice. [gpu] (GPU_RANKS 1 2): the same on GPUs for the reference and the tuned kernel and
// every transport, managed memory against device memory, and the refusal of a managed run that does
// not fit in the GPU.
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "../domain/transports.hpp"
#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/simulation.hpp"

using namespace tessera;
using namespace tessera::lbm;
using domain::Transport;

namespace {

using fixtures::channel_3d;
using fixtures::same_bits;
using Result = fixtures::Fields;

// D2Q9, fp64, BGK: parabolic velocity inlet at x-, pressure outlet at x+, walls on y, a cylinder.
SimulationSpec open_2d() {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = Precision::FP64;
  s.collision.kind = CollisionKind::BGK;
  s.collision.omega = 1.2;
  s.global = {24, 12, 1};
  s.faces[0].kind = FaceBC::VelocityInlet;
  s.faces[0].u = {0.04, 0, 0};
  s.faces[0].parabolic = true;
  s.faces[1].kind = FaceBC::PressureOutlet;
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.solid = [](int64_t x, int64_t y, int64_t) { return (x - 8) * (x - 8) + (y - 6) * (y - 6) <= 4; };
  return s;
}

// D3Q27, fp16, regularized, periodic everywhere: a Taylor-Green-like vortex.
SimulationSpec periodic_d3q27() {
  SimulationSpec s;
  s.lattice = LatticeKind::D3Q27;
  s.precision = Precision::FP16;
  s.collision.kind = CollisionKind::Regularized;
  s.collision.omega = 1.7;
  s.global = {9, 10, 12};
  s.initial = [](int64_t x, int64_t y, int64_t z, double& rho, double u[3]) {
    const double k = 2 * 3.141592653589793;
    rho = 1.0;
    u[0] = 0.05 * std::sin(k * double(x) / 9) * std::cos(k * double(y) / 10) * std::cos(k * double(z) / 12);
    u[1] = -0.05 * std::cos(k * double(x) / 9) * std::sin(k * double(y) / 10) * std::cos(k * double(z) / 12);
    u[2] = 0.0;
  };
  return s;
}


struct Variant {
  exec::Space space = exec::Space::Host;
  KernelPath path = KernelPath::Reference;
  Transport transport = Transport::HostStaged;
  bool overlap = false;
  bool managed = false;
  std::array<int, 3> dims{0, 0, 0};
};

// 7 steps (odd: the run ends after a forward and a reverse exchange), in two advance() calls so that
// the overlap also meets the boundary between calls.
Result run(MPI_Comm comm, SimulationSpec spec, const Variant& o) {
  spec.path = o.path;
  spec.transport = o.transport;
  spec.overlap = o.overlap;
  spec.managed = o.managed;
  spec.rank_dims = o.dims;
  Simulation sim(comm, o.space, spec);
  if (o.managed && o.space == exec::Space::Device) REQUIRE(sim.state().memkind() == MemKind::Managed);
  sim.advance(3);
  sim.advance(4);
  REQUIRE(sim.step() == 7);
  Result r;
  sim.gather(r.rho, r.u);
  return r;
}


// One rank without overlap (rank 0, MPI_COMM_SELF) against every variant on all ranks.
void check_variants(const SimulationSpec& spec, Variant base, const std::vector<Variant>& variants) {
  Result one;
  base.overlap = false;
  base.managed = false;
  base.transport = Transport::HostStaged;
  base.dims = {0, 0, 0};
  if (test::mpi_rank() == 0) one = run(MPI_COMM_SELF, spec, base);
  for (const Variant& v : variants) {
    const Result many = run(MPI_COMM_WORLD, spec, v);
    if (test::mpi_rank() != 0) continue;
    INFO(test::mpi_size() << " ranks, dims " << v.dims[0] << "x" << v.dims[1] << "x" << v.dims[2] << ", "
                          << exec::to_string(v.space) << ", " << (v.path == KernelPath::Tuned ? "tuned" : "reference")
                          << ", transport " << domain::to_string(v.transport) << ", overlap " << v.overlap
                          << ", managed " << v.managed);
    CHECK(same_bits(one.rho, many.rho));
    CHECK(same_bits(one.u, many.u));
  }
  if (test::mpi_rank() == 0) CHECK(fixtures::max_abs(one.u) > 1e-3);  // the flow moved: equal zeros prove nothing
}

// Rank grids: automatic, and every rank along the last axis that has room.
std::vector<std::array<int, 3>> rank_grids(const SimulationSpec& s) {
  const int n = test::mpi_size();
  std::vector<std::array<int, 3>> g{{0, 0, 0}};
  if (n > 1) g.push_back(s.global[2] >= 2 * n ? std::array<int, 3>{1, 1, n} : std::array<int, 3>{n, 1, 1});
  return g;
}

std::vector<Variant> host_variants(const SimulationSpec& s) {
  std::vector<Variant> v;
  for (const auto& d : rank_grids(s))
    for (bool ov : {false, true}) {
      Variant o;
      o.overlap = ov;
      o.dims = d;
      v.push_back(o);
    }
  return v;
}

}  // namespace

TEST_CASE("lbm: split_shell covers the local box exactly once", "[lbm][overlap]") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    CellBox all{{0, 0, 0}, {1 + int64_t(rng() % 5), 1 + int64_t(rng() % 5), 1 + int64_t(rng() % 5)}};
    std::array<std::array<bool, 2>, 3> sides{};
    for (auto& a : sides)
      for (bool& b : a) b = rng() % 2;
    CellBox inner;
    std::vector<CellBox> shell;
    split_shell(all, sides, 1, inner, shell);
    REQUIRE(shell.size() <= 6);
    std::vector<int> count(std::size_t(all.volume()), 0);
    auto mark = [&](const CellBox& b) {
      for (int64_t k = b.lo[2]; k < b.hi[2]; ++k)
        for (int64_t j = b.lo[1]; j < b.hi[1]; ++j)
          for (int64_t i = b.lo[0]; i < b.hi[0]; ++i) ++count[std::size_t(i + all.hi[0] * (j + all.hi[1] * k))];
    };
    mark(inner);
    for (const CellBox& b : shell) {
      REQUIRE(!b.empty());
      mark(b);
    }
    for (int c : count) REQUIRE(c == 1);
    // The interior keeps one cell away from every exchanging side.
    for (int a = 0; a < 3; ++a)
      if (!inner.empty()) {
        REQUIRE(inner.lo[a] >= (sides[size_t(a)][0] ? 1 : 0));
        REQUIRE(inner.hi[a] <= all.hi[a] - (sides[size_t(a)][1] ? 1 : 0));
      }
  }
}

TEST_CASE("lbm: parallel.overlap and parallel.memory reach the simulation spec", "[lbm][overlap]") {
  const std::string file = std::string(TESSERA_LBM_CASES_DIR) + "/cavity2d.yaml";
  auto spec = [&](const std::vector<std::string>& over) {
    const Case c = Case::load(file, schema(), over);
    return spec_from_case(c, units_from_case(c));
  };
  const SimulationSpec d = spec({});
  CHECK(!d.overlap);  // lbm's default (measured faster on 2 GPUs, docs/performance.md)
  CHECK(!d.managed);
  const SimulationSpec o = spec({"parallel.overlap=true", "parallel.memory=managed"});
  CHECK(o.overlap);
  CHECK(o.managed);
  std::string msg;
  try {
    spec({"parallel.memory=unified_maybe"});
  } catch (const std::exception& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find("parallel.memory") != std::string::npos);
}

TEST_CASE("lbm: overlap on N ranks equals 1 rank without overlap bit for bit (host)", "[lbm][mpi][overlap]") {
  for (const SimulationSpec& s : {channel_3d(), open_2d(), periodic_d3q27()}) {
    INFO(to_string(s.lattice));
    check_variants(s, Variant{}, host_variants(s));
  }
}

TEST_CASE("lbm: overlap on N GPUs equals 1 GPU bit for bit, every transport and kernel", "[lbm][mpi][overlap][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  for (const SimulationSpec& s : {channel_3d(), open_2d(), periodic_d3q27()})
    for (KernelPath path : {KernelPath::Reference, KernelPath::Tuned}) {
      if (path == KernelPath::Tuned && (!tuned_available(s.lattice, s.precision) || s.faces[0].open())) continue;
      INFO(to_string(s.lattice) << (path == KernelPath::Tuned ? " tuned" : " reference"));
      Variant base;
      base.space = exec::Space::Device;
      base.path = path;
      std::vector<Variant> v;
      for (Transport t : available_transports())
        for (bool ov : {false, true}) {
          Variant o = base;
          o.transport = t;
          o.overlap = ov;
          v.push_back(o);
        }
      check_variants(s, base, v);
    }
}

TEST_CASE("lbm: managed memory gives the same fields as device memory bit for bit", "[lbm][mpi][managed][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  for (const SimulationSpec& s : {channel_3d(), periodic_d3q27()}) {
    INFO(to_string(s.lattice));
    Variant base;
    base.space = exec::Space::Device;
    base.path = KernelPath::Tuned;
    std::vector<Variant> v;
    for (bool ov : {false, true}) {
      Variant o = base;
      o.managed = true;
      o.overlap = ov;
      v.push_back(o);
    }
    check_variants(s, base, v);
  }
}

TEST_CASE("lbm: a managed run larger than the GPU's free memory is refused", "[lbm][managed][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  SimulationSpec s = periodic_d3q27();
  s.precision = Precision::FP32;
  s.global = {4096, 4096, 2048};  // 34 G cells x 109 B: far beyond any GPU
  s.managed = true;
  std::string msg;
  try {
    Simulation sim(MPI_COMM_SELF, exec::Space::Device, s);
  } catch (const std::exception& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find("parallel.memory: managed") != std::string::npos);
  CHECK(msg.find("free") != std::string::npos);
}
