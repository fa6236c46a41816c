// The tuned CUDA kernels against the portable reference on the GPU, on random populations, for every
// 3-D lattice, storage precision and collision model: the two-cells-per-thread kernel (even nx,
// tuned_pair_cuda.cpp) and the one-cell kernel it falls back to (odd nx).
//
// The geometries are made for the pair kernel's paths: mostly fluid with a few scattered walls (moving
// ones too), inactive cells and a per-cell force field, so that odd steps take both the shuffled
// pure-streaming path (warps without a wall next to their cells) and the per-cell bounce-back path; rows
// of 36 pairs (warps straddle rows) and of 32 pairs (a warp per row, lane 0 on the ghost); ghost layers
// that are walls (a closed box) or fluid (the periodic box of bench_lbm, where streaming writes into the
// ghosts). Every slot of every cell is compared, ghosts and walls included, so a write the reference does
// not make (or a missing one) fails. Tolerances as in test_lbm_gpu.cpp: the two kernels compile the same
// collision separately, so fused multiply-adds may round differently (fp32 1e-6; fp16 one storage step).
#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "tessera/core/buffer.hpp"

namespace tessera::lbm::detail {
bool tuned_pair_applicable(const LatticeState& s);  // kernels/lbm/src/lattice_ops.hpp
}

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {

// Flags: ghosts walls (ids 0/1, the y-max face moves) or fluid; ~1 in 150 interior cells a wall (ids 0-2),
// ~1 in 400 inactive.
std::vector<uint8_t> sparse_flags(const GridLayout& g, bool ghost_walls, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> fl(static_cast<std::size_t>(g.cells()), kFluid);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 0; j < g.py(); ++j)
      for (int64_t i = 0; i < g.px(); ++i) {
        const std::size_t c = std::size_t(i + g.px() * (j + g.py() * k));
        const bool ghost = i == 0 || i == g.px() - 1 || j == 0 || j == g.py() - 1 || k == 0 || k == g.pz() - 1;
        const unsigned r = rng() % 600;
        if (ghost)
          fl[c] = ghost_walls ? make_wall(j == g.py() - 1 ? 1 : 0) : kFluid;
        else if (r < 4)
          fl[c] = make_wall(int(rng() % 3));
        else if (r == 4 || r == 5)
          fl[c] = kInactive;
      }
  return fl;
}

struct Case {
  int64_t nx, ny, nz;
  bool ghost_walls;
};

// split > 0: each step as two sub-boxes (z < split, z >= split) and end_step(): the one-cell kernel's
// sub-box launch, whatever nx.
std::vector<double> run(LatticeKind k, Precision pr, CollisionKind ck, KernelPath path, const Case& cs, int steps,
                        bool flag_bit = true, bool* pair_used = nullptr, int64_t split = 0) {
  const GridLayout g = grid_for(k, cs.nx, cs.ny, cs.nz);
  const std::vector<uint8_t> fl = sparse_flags(g, cs.ghost_walls, 31);
  LatticeState s(k, pr, g, exec::Space::Device);
  if (flag_bit)
    write_flags(s, fl);
  else  // without kNoWallNeighbour: every odd step takes the per-cell bounce-back path
    copy_n(s.flags(), s.memkind(), fl.data(), MemKind::Host, fl.size());
  write_slots(s, k == LatticeKind::D3Q19 ? random_pops<D3Q19>(g, 32) : random_pops<D3Q27>(g, 32));
  {  // a per-cell force field on top of the uniform one
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> d(-2e-4f, 2e-4f);
    std::vector<float> h(std::size_t(3 * g.cells()));
    for (float& x : h) x = d(rng);
    copy_n(s.force_field(), s.memkind(), h.data(), MemKind::Host, h.size());
  }
  if (pair_used) *pair_used = lbm::detail::tuned_pair_applicable(s);
  const CollisionParams p = test_params(ck, ck == CollisionKind::Regularized ? 0.15 : 0.0);
  const exec::Exec ex(exec::Space::Device);
  for (int t = 0; t < steps; ++t) {
    if (split > 0) {
      stream_collide_box(ex, s, p, CellBox{{0, 0, 0}, {g.nx, g.ny, split}}, path);
      stream_collide_box(ex, s, p, CellBox{{0, 0, split}, {g.nx, g.ny, g.nz}}, path);
      end_step(s);
    } else {
      stream_collide(ex, s, p, path);
    }
  }
  exec::fence(ex);
  return read_slots(s);
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}
double tol(Precision p) { return p == Precision::FP32 ? 1e-6 : 4e-5; }

const CollisionKind kCollisions[] = {CollisionKind::BGK, CollisionKind::TRT, CollisionKind::Regularized};
const Case kCases[] = {{70, 9, 7, true}, {62, 6, 5, false}, {37, 8, 5, true}};

}  // namespace

TEST_CASE("tuned kernels (pair and one-cell) match the portable reference on the GPU", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (CollisionKind ck : kCollisions)
        for (const Case& cs : kCases)
          for (int steps : {1, 2, 5}) {
            INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck) << " nx " << cs.nx << " ghost walls "
                              << cs.ghost_walls << " steps " << steps);
            REQUIRE(tuned_available(k, pr));
            bool pair = false;
            const auto ref = run(k, pr, ck, KernelPath::Reference, cs, steps);
            const auto tun = run(k, pr, ck, KernelPath::Tuned, cs, steps, true, &pair);
            CHECK(pair == (cs.nx % 2 == 0));  // the test covers the kernel it means to
            REQUIRE(max_diff(ref, tun) < tol(pr));
          }
}

TEST_CASE("pair kernel: shuffled streaming equals the per-cell path bit for bit", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (const Case& cs : {Case{70, 9, 7, true}, Case{62, 6, 5, false}}) {
        INFO(to_string(k) << " " << to_string(pr) << " nx " << cs.nx);
        bool pair = false;
        const auto with_bit = run(k, pr, CollisionKind::TRT, KernelPath::Tuned, cs, 4, true, &pair);
        const auto without = run(k, pr, CollisionKind::TRT, KernelPath::Tuned, cs, 4, false);
        REQUIRE(pair);
        REQUIRE(with_bit == without);
      }
}

// The solver mixes the two kernels (whole-box steps on one rank, sub-box steps when the halo exchange
// overlaps, other widths on other ranks) and its tests compare such runs bit for bit, so the pair kernel
// must give the one-cell kernel's bits.
TEST_CASE("pair kernel equals the one-cell kernel bit for bit", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (CollisionKind ck : kCollisions)
        for (const Case& cs : {Case{70, 9, 7, true}, Case{62, 6, 5, false}}) {
          INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck) << " nx " << cs.nx);
          bool pair = false;
          const auto whole = run(k, pr, ck, KernelPath::Tuned, cs, 3, true, &pair);
          const auto boxes = run(k, pr, ck, KernelPath::Tuned, cs, 3, true, nullptr, 3);
          REQUIRE(pair);
          REQUIRE(whole == boxes);
        }
}
