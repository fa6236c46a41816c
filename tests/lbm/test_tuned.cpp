// The tuned CUDA kernels against the portable reference on the GPU, on random populations, for every
// 3-D lattice, storage precision and collision model: the two-cells-per-thread kernel (tuned_pair_cuda.cpp;
// the default for D3Q19 fp32 only, so these [gpu] cases select it with TESSERA_LBM_PAIR=on; BGK with even nx), the one-cell
// kernel (odd nx, TRT, regularized) and the four-cells-per-thread kernel of the even steps (tuned_quad_kernel.hpp;
// the default for fp16 and D3Q19 fp32, so the pair and one-cell cases turn it off with TESSERA_LBM_QUAD=off).
//
// The geometries are made for the pair kernel's paths: mostly fluid with a few scattered walls (moving
// ones too), inactive cells and a per-cell force field, so that odd steps take both the shuffled
// pure streaming and the bounce-back of cells next to a wall; rows
// of 36 pairs (warps straddle rows) and of 32 pairs (a warp per row, lane 0 on the ghost); ghost layers
// that are walls (a closed box) or fluid (the periodic box of bench_lbm, where streaming writes into the
// ghosts). Every slot of every cell is compared, ghosts and walls included, so a write the reference does
// not make (or a missing one) fails. Tolerances as in test_lbm_gpu.cpp: the two kernels compile the same
// collision separately, so fused multiply-adds may round differently (fp32 1e-6; fp16 one storage step).
//
// The pair kernel's warp logic (index arithmetic, shuffles, masks, inline walls, aligned warps) is also
// compiled on the host against an emulated warp (32 threads and a barrier per shuffle or vote) and must
// give the reference's bits there, so a host-only build checks it too.
#include <cstdlib>
#include <cstring>

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
  return scattered_flags(g, ghost_walls, seed, 600, 4, 2);
}

// Selects the pair kernel for the lifetime of the guard (the kernel reads TESSERA_LBM_PAIR at every step),
// for both parities (the quad kernel, which takes the even steps of some cases by default, off).
struct PairOn {
  tessera::test::ScopedEnv pair{"TESSERA_LBM_PAIR", "on"}, quad{"TESSERA_LBM_QUAD", "off"};
};

struct Case {
  int64_t nx, ny, nz;
  bool ghost_walls;
};

// split > 0: each step as two sub-boxes (z < split, z >= split) and end_step(): the one-cell kernel's
// sub-box launch, whatever nx.
std::vector<double> run(LatticeKind k, Precision pr, CollisionKind ck, KernelPath path, const Case& cs, int steps,
                        bool flag_bit = true, bool* pair_used = nullptr, int64_t split = 0,
                        bool forced = true) {
  const GridLayout g = grid_for(k, cs.nx, cs.ny, cs.nz);
  const std::vector<uint8_t> fl = sparse_flags(g, cs.ghost_walls, 31);
  LatticeState s(k, pr, g, exec::Space::Device);
  if (flag_bit)
    write_flags(s, fl);
  else  // without kNoWallNeighbour: every cell reads its neighbours' flags (wall links found one by one)
    copy_n(s.flags(), s.memkind(), fl.data(), MemKind::Host, fl.size());
  write_slots(s, k == LatticeKind::D3Q19 ? random_pops<D3Q19>(g, 32) : random_pops<D3Q27>(g, 32));
  if (forced) {  // a per-cell force field on top of the uniform one
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> d(-2e-4f, 2e-4f);
    std::vector<float> h(std::size_t(3 * g.cells()));
    for (float& x : h) x = d(rng);
    copy_n(s.force_field(), s.memkind(), h.data(), MemKind::Host, h.size());
  }
  if (pair_used) *pair_used = lbm::detail::tuned_pair_applicable(s) && ck == CollisionKind::BGK;
  CollisionParams p = test_params(ck, ck == CollisionKind::Regularized ? 0.15 : 0.0);
  if (!forced) p.force[0] = p.force[1] = p.force[2] = 0.0;  // no force at all: the kernels drop the terms
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

double tol(Precision p) { return p == Precision::FP32 ? 1e-6 : 4e-5; }

const CollisionKind kCollisions[] = {CollisionKind::BGK, CollisionKind::TRT, CollisionKind::Regularized};
const Case kCases[] = {{70, 9, 7, true}, {62, 6, 5, false}, {37, 8, 5, true}};

}  // namespace

TEST_CASE("tuned kernels (pair and one-cell) match the portable reference on the GPU", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const PairOn on;
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
            CHECK(pair == (cs.nx % 2 == 0 && ck == CollisionKind::BGK));  // the kernel it means to cover
            REQUIRE(max_diff(ref, tun) < tol(pr));
          }
}

TEST_CASE("pair kernel: the kNoWallNeighbour shortcut gives the bits of the wall-checking path", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const PairOn on;
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (const Case& cs : {Case{70, 9, 7, true}, Case{62, 6, 5, false}}) {
        INFO(to_string(k) << " " << to_string(pr) << " nx " << cs.nx);
        bool pair = false;
        const auto with_bit = run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 4, true, &pair);
        const auto without = run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 4, false);
        REQUIRE(pair);
        REQUIRE(with_bit == without);
      }
}

// The solver mixes the two kernels (whole-box steps on one rank, sub-box steps when the halo exchange
// overlaps, other widths on other ranks) and its tests compare such runs bit for bit, so the pair kernel
// must give the one-cell kernel's bits.
// With and without a force (the force-free collision, as the one-cell kernel's), and with the L2 prefetch
// ahead off, a few cells ahead and past the last cell (a hint: the same bits).
TEST_CASE("pair kernel equals the one-cell kernel bit for bit", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const PairOn on;
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (const Case& cs : {Case{70, 9, 7, true}, Case{62, 6, 5, false}})
        for (bool forced : {true, false}) {
          INFO(to_string(k) << " " << to_string(pr) << " nx " << cs.nx << " forced " << forced);
          bool pair = false;
          const auto whole = run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, &pair, 0, forced);
          const auto boxes = run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 3, forced);
          REQUIRE(pair);
          REQUIRE(whole == boxes);
          for (const char* kib : {"0", "1", "3", "1000000"}) {
            INFO("TESSERA_LBM_PREFETCH " << kib);
            const tessera::test::ScopedEnv pf("TESSERA_LBM_PREFETCH", kib);
            REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced));
          }
          for (const char* spec : {"on", "odd", "off"}) {  // the loads ahead of the flags (force-free): the same bits
            const tessera::test::ScopedEnv sp("TESSERA_LBM_SPECULATE", spec);
            REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced));
          }
          if (!forced) {  // the force terms kept at zero force: the same values (a zero's sign aside)
            const tessera::test::ScopedEnv terms("TESSERA_LBM_FORCE_TERMS", "1");
            REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced));
          }
        }
}

// The quad kernel (four cells per thread, even steps, TESSERA_LBM_QUAD=on; tuned_quad_kernel.hpp) must give
// the one-cell kernel's bits too: rows whose pitch px is 0 mod 4 (70, 62) and 2 mod 4 (68, 60: its quads
// straddle rows), a closed box and a periodic one, with and without a force, the prefetch at several
// distances, and the shortcut flag bit on and off (for the odd steps, which keep their kernel).
struct QuadOn : tessera::test::ScopedEnv {
  QuadOn() : ScopedEnv("TESSERA_LBM_QUAD", "on") {}
};
const Case kQuadCases[] = {{70, 9, 7, true}, {62, 6, 5, false}, {68, 6, 5, true}, {60, 4, 5, false}};

TEST_CASE("quad kernel equals the one-cell kernel bit for bit, and the reference to rounding", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (const Case& cs : kQuadCases)
        for (bool forced : {true, false}) {
          INFO(to_string(k) << " " << to_string(pr) << " nx " << cs.nx << " ny " << cs.ny << " forced " << forced);
          // The one-cell kernel's sub-box launches (whatever TESSERA_LBM_QUAD says).
          const auto boxes = run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 3, forced);
          const QuadOn on;
          for (const char* odd : {"off", "on"}) {  // the odd steps too where the rows are a multiple of 4 cells
            INFO("TESSERA_LBM_QUAD_ODD " << odd);
            const tessera::test::ScopedEnv odd_steps("TESSERA_LBM_QUAD_ODD", odd);
            {
              const LatticeState probe(k, pr, grid_for(k, cs.nx, cs.ny, cs.nz), exec::Space::Device);
              const std::string form = tuned_kernel_form(probe, CollisionKind::BGK);
              if (std::string(odd) == "on" && (cs.nx + 2) % 4 == 0) REQUIRE(form == "quad");
              else REQUIRE(form.rfind("quad+", 0) == 0);
            }
            const auto whole = run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced);
            REQUIRE(whole == boxes);
            const auto ref = run(k, pr, CollisionKind::BGK, KernelPath::Reference, cs, 3, true, nullptr, 0, forced);
            REQUIRE(max_diff(ref, whole) < tol(pr));
            REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, false, nullptr, 0, forced));
            for (const char* kib : {"0", "1", "3", "1000000"}) {
              INFO("TESSERA_LBM_PREFETCH " << kib);
              const tessera::test::ScopedEnv pf("TESSERA_LBM_PREFETCH", kib);
              REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced));
            }
            for (const char* h : {"on", "off"}) {  // the L2 128-byte hint on the loads (force-free BGK): the same bits
              INFO("TESSERA_LBM_L2HINT " << h);
              const tessera::test::ScopedEnv hint("TESSERA_LBM_L2HINT", h);
              for (const char* spec : {"on", "off"}) {  // the loads ahead of the flags (force-free): the same bits
                INFO("TESSERA_LBM_SPECULATE " << spec);
                const tessera::test::ScopedEnv sp("TESSERA_LBM_SPECULATE", spec);
                REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced));
                // The staged even step (force-free steps; forced ones keep the quad kernel): the same bits.
                for (const char* sv : {"staged", "staged8", "staged16"}) {
                  INFO("TESSERA_LBM_QUAD " << sv);
                  const tessera::test::ScopedEnv staged("TESSERA_LBM_QUAD", sv);
                  {
                    const LatticeState probe(k, pr, grid_for(k, cs.nx, cs.ny, cs.nz), exec::Space::Device);
                    REQUIRE(std::string(tuned_kernel_form(probe, CollisionKind::BGK)).rfind("quad-staged", 0) == 0);
                  }
                  REQUIRE(whole == run(k, pr, CollisionKind::BGK, KernelPath::Tuned, cs, 3, true, nullptr, 0, forced));
                }
              }
            }
          }
        }
}

TEST_CASE("the default kernel forms: the staged quad even step for fp16 only", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const tessera::test::ScopedEnv quad("TESSERA_LBM_QUAD", ""), pair("TESSERA_LBM_PAIR", "");
  // 70 x 9 x 7: 7,128 padded cells (a multiple of 8: the 16-byte staged form fits); 60 x 4 x 5: 2,604 (not:
  // D3Q19 fp16 stays staged in 8-byte chunks, D3Q27 fp16 takes the register form).
  for (const Case& cs : {kQuadCases[0], kQuadCases[3]})
    for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
      for (Precision pr : {Precision::FP32, Precision::FP16}) {
        const LatticeState s(k, pr, grid_for(k, cs.nx, cs.ny, cs.nz), exec::Space::Device);
        const std::string form = tuned_kernel_form(s, CollisionKind::BGK);
        INFO(to_string(k) << " " << to_string(pr) << " nx " << cs.nx << ", " << s.grid().cells() << " cells: " << form);
        const bool staged = pr == Precision::FP16 && (s.grid().cells() % 8 == 0 || k == LatticeKind::D3Q19);
        REQUIRE(form.rfind(staged ? "quad-staged+" : "quad+", 0) == 0);
      }
}

// Steps without any force take kernels compiled without the force terms (collide<..., kForce = false>),
// and lattices with Q * cells < 2^32 the 32-bit index form of the one-cell kernel. Against the
// reference; and equal to the 64-bit form (TESSERA_LBM_INDEX=64), to the same step with the force terms
// kept at zero force (TESSERA_LBM_FORCE_TERMS=1: the same values, a zero's sign aside) and to the
// sub-box launches (whole == boxes compares values, so -0 == +0).
TEST_CASE("one-cell kernel: 32-bit indices and the no-force form give the reference's values", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const tessera::test::ScopedEnv quad("TESSERA_LBM_QUAD", "off");  // the one-cell kernel's even steps too
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (CollisionKind ck : kCollisions)
        for (const Case& cs : kCases)
          for (bool forced : {false, true}) {
            INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck) << " nx " << cs.nx << " forced "
                              << forced);
            const int steps = 3;
            const auto ref = run(k, pr, ck, KernelPath::Reference, cs, steps, true, nullptr, 0, forced);
            const auto tun = run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced);
            REQUIRE(max_diff(ref, tun) < tol(pr));
            const auto boxes = run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 2, forced);
            REQUIRE(tun == boxes);
            {
              const tessera::test::ScopedEnv wide("TESSERA_LBM_INDEX", "64");
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
            }
            for (const char* h : {"on", "off"}) {  // the 32-bit form for every storage, hinted or not
              INFO("TESSERA_LBM_INDEX 32, TESSERA_LBM_L2HINT " << h);
              const tessera::test::ScopedEnv narrow("TESSERA_LBM_INDEX", "32");
              const tessera::test::ScopedEnv hint("TESSERA_LBM_L2HINT", h);
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
            }
            // The hinted force-free 32-bit kernel's odd step in one pass per warp (wall-checking for all
            // cells of a warp with a wall-adjacent cell), and its loads issued ahead of the flags (or not):
            // the same bits.
            for (const auto& [var, val] : {std::pair{"TESSERA_LBM_WALL_WARP", "uniform"},
                                           std::pair{"TESSERA_LBM_SPECULATE", "on"}, std::pair{"TESSERA_LBM_SPECULATE", "odd"},
                                           std::pair{"TESSERA_LBM_SPECULATE", "patch"}, std::pair{"TESSERA_LBM_SPECULATE", "off"}}) {
              INFO(var << " " << val);
              const tessera::test::ScopedEnv narrow("TESSERA_LBM_INDEX", "32"), hint("TESSERA_LBM_L2HINT", "on"),
                  knob(var, val);
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
            }
            if (!forced) {
              const tessera::test::ScopedEnv terms("TESSERA_LBM_FORCE_TERMS", "1");
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
            }
            for (const char* h : {"on", "off"}) {  // the L2 128-byte hint on the 32-bit kernel's loads: the same bits
              INFO("TESSERA_LBM_L2HINT " << h);
              const tessera::test::ScopedEnv hint("TESSERA_LBM_L2HINT", h);
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
            }
            // The L2 prefetch ahead (a hint: the same values): off, a few cells ahead, past the last cell.
            for (const char* kib : {"0", "1", "3", "1000000"}) {
              const tessera::test::ScopedEnv pf("TESSERA_LBM_PREFETCH", kib);
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
              const tessera::test::ScopedEnv wide("TESSERA_LBM_INDEX", "64");
              REQUIRE(tun == run(k, pr, ck, KernelPath::Tuned, cs, steps, true, nullptr, 0, forced));
            }
          }
  // TESSERA_LBM_WALL_WARP takes uniform or divergent; another value is refused with those names.
  tessera::test::check_knob_refused("TESSERA_LBM_WALL_WARP", "yes", [] {
    run(LatticeKind::D3Q19, Precision::FP16, CollisionKind::BGK, KernelPath::Tuned, kCases[0], 2, true, nullptr, 0, false);
  }, {"TESSERA_LBM_WALL_WARP='yes'", "expected uniform or divergent"});
  tessera::test::check_knob_refused("TESSERA_LBM_SPECULATE", "yes", [] {
    run(LatticeKind::D3Q19, Precision::FP16, CollisionKind::BGK, KernelPath::Tuned, kCases[0], 2, true, nullptr, 0, false);
  }, {"TESSERA_LBM_SPECULATE='yes'", "expected on, odd, patch, off or auto"});
}

// Which index form the one-cell kernel takes by default (tuned_cuda.cpp, use_index32): 32-bit for fp16
// storage and for D3Q27, 64-bit for D3Q19 fp32; TESSERA_LBM_INDEX=64 / 32 force either.
TEST_CASE("one-cell kernel: the index form by lattice and storage", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const tessera::test::ScopedEnv quad("TESSERA_LBM_QUAD", "off"), pair("TESSERA_LBM_PAIR", "off");
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16}) {
      INFO(to_string(k) << " " << to_string(pr));
      const LatticeState s(k, pr, grid_for(k, 16, 8, 8), exec::Space::Device);
      const bool narrow = pr == Precision::FP16 || k == LatticeKind::D3Q27;
      REQUIRE(std::string(tuned_kernel_form(s, CollisionKind::BGK)) == (narrow ? "one-cell-32" : "one-cell"));
      {
        const tessera::test::ScopedEnv wide("TESSERA_LBM_INDEX", "64");
        REQUIRE(std::string(tuned_kernel_form(s, CollisionKind::BGK)) == "one-cell");
      }
      const tessera::test::ScopedEnv n32("TESSERA_LBM_INDEX", "32");
      REQUIRE(std::string(tuned_kernel_form(s, CollisionKind::BGK)) == "one-cell-32");
    }
}

// Grids whose Q x cells pass 2^32 (the billion-cell runs) take the tuned forms (quad, pair, the 32-bit
// one-cell kernel) since their slot bases are kernel arguments (tuned_slot.hpp); before, they ran the
// one-cell kernel's 64-bit form. For each lattice and storage such a grid (ghost walls, a moving wall,
// interior walls and inactive cells) runs, in the default forms and in the 64-bit one-cell form from the
// same start, three force-free BGK steps (the staged quad even step for fp16), then two BGK steps with a
// uniform force and a per-cell force field (the quad kernel's register form; the pair kernel's forced form
// for D3Q19 fp32; the force components read through slot()), two TRT and two regularized steps (the 32-bit
// one-cell kernel, selected for D3Q19 fp32 with TESSERA_LBM_INDEX=32), and after each phase the populations must agree bit for bit, the slot arrays beyond
// element 2^32 included (where a 32-bit element index would wrap). 11-44 GB of device memory per case.
TEST_CASE("tuned kernels on grids of Q x cells over 2^32 equal the 64-bit one-cell kernel", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  struct Big {
    LatticeKind k;
    Precision pr;
    int64_t nx, ny, nz;
    const char* form;  // the default form on that grid
  };
  const Big cases[] = {
      {LatticeKind::D3Q19, Precision::FP32, 640, 640, 600, "quad+pair"},
      {LatticeKind::D3Q19, Precision::FP16, 640, 640, 600, "quad-staged+one-cell-32"},
      {LatticeKind::D3Q27, Precision::FP32, 560, 560, 560, "quad+one-cell-32"},
      {LatticeKind::D3Q27, Precision::FP16, 560, 560, 560, "quad-staged+one-cell-32"},
  };
  const exec::Exec ex(exec::Space::Device);
  for (const Big& b : cases) {
    INFO(to_string(b.k) << " " << to_string(b.pr) << " " << b.nx << " x " << b.ny << " x " << b.nz);
    const GridLayout g = grid_for(b.k, b.nx, b.ny, b.nz);
    const std::size_t n = std::size_t(g.cells());
    const std::vector<uint8_t> fl = sparse_flags(g, true, 41);
    // Equilibrium from random density and velocity per cell (a cheap generator: 4 n values).
    Buffer<float> d_rho(n, MemKind::Device, "test::rho"), d_u(3 * n, MemKind::Device, "test::u");
    uint64_t x = 0x9e3779b97f4a7c15ull;
    auto next = [&] {  // xorshift64*, a value in [-1, 1)
      x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
      return float(int64_t((x * 0x2545f4914f6cdd1dull) >> 40) - (int64_t(1) << 23)) / float(1 << 23);
    };
    {
      std::vector<float> h(3 * n);
      for (std::size_t i = 0; i < n; ++i) h[i] = 1.0f + 0.05f * next();
      copy_n(d_rho.data(), d_rho.kind(), h.data(), MemKind::Host, n);
      for (float& v : h) v = 0.05f * next();
      copy_n(d_u.data(), d_u.kind(), h.data(), MemKind::Host, 3 * n);
    }
    auto start = [&](LatticeState& s) {
      write_flags(s, fl);
      init_equilibrium(ex, s, d_rho.data(), d_u.data());
    };
    LatticeState tuned(b.k, b.pr, g, exec::Space::Device), wide(b.k, b.pr, g, exec::Space::Device);
    REQUIRE(uint64_t(tuned.q()) * uint64_t(n) > (uint64_t(1) << 32));
    start(tuned);
    {
      const tessera::test::ScopedEnv quad("TESSERA_LBM_QUAD", "off"), pair("TESSERA_LBM_PAIR", "off"),
          i64("TESSERA_LBM_INDEX", "64");
      start(wide);
      REQUIRE(std::string(tuned_kernel_form(wide, CollisionKind::BGK)) == "one-cell");
    }
    // `steps` steps of both states with parameters p (wide in the 64-bit one-cell form, tuned with
    // TESSERA_LBM_INDEX = index), then every population byte compared (in chunks of 256 M bytes; the first
    // differing element reported).
    auto run_and_compare = [&](const char* phase, const CollisionParams& p, int steps, const char* index = "") {
      INFO(phase);
      {
        const tessera::test::ScopedEnv ix("TESSERA_LBM_INDEX", index);
        // BGK: the default form checked below; TRT and regularized: the 32-bit one-cell kernel.
        if (p.kind != CollisionKind::BGK) REQUIRE(std::string(tuned_kernel_form(tuned, p.kind)) == "one-cell-32");
        for (int t = 0; t < steps; ++t) stream_collide(ex, tuned, p, KernelPath::Tuned);
      }
      {
        const tessera::test::ScopedEnv quad("TESSERA_LBM_QUAD", "off"), pair("TESSERA_LBM_PAIR", "off"),
            i64("TESSERA_LBM_INDEX", "64");
        for (int t = 0; t < steps; ++t) stream_collide(ex, wide, p, KernelPath::Tuned);
      }
      exec::fence(ex);
      const std::size_t bytes = std::size_t(tuned.q()) * n * std::size_t(precision_bytes(b.pr));
      const std::size_t chunk = std::size_t(1) << 28;
      std::vector<unsigned char> ha(chunk), hb(chunk);
      std::size_t first_diff = bytes;
      for (std::size_t o = 0; o < bytes && first_diff == bytes; o += chunk) {
        const std::size_t m = std::min(chunk, bytes - o);
        copy_n(ha.data(), MemKind::Host, static_cast<const unsigned char*>(tuned.pops()) + o, tuned.memkind(), m);
        copy_n(hb.data(), MemKind::Host, static_cast<const unsigned char*>(wide.pops()) + o, wide.memkind(), m);
        if (std::memcmp(ha.data(), hb.data(), m) != 0)
          for (std::size_t i = 0; i < m; ++i)
            if (ha[i] != hb[i]) {
              first_diff = o + i;
              break;
            }
      }
      INFO("first differing byte " << first_diff << " of " << bytes << " (element "
                                   << first_diff / std::size_t(precision_bytes(b.pr)) << ", slot "
                                   << first_diff / std::size_t(precision_bytes(b.pr)) / n << ")");
      REQUIRE(first_diff == bytes);
    };

    CollisionParams p = test_params(CollisionKind::BGK);
    p.force[0] = p.force[1] = p.force[2] = 0.0;  // force-free: the default kernels of a plain run
    REQUIRE(std::string(tuned_kernel_form(tuned, CollisionKind::BGK)) == b.form);
    run_and_compare("force-free BGK", p, 3);

    // The same per-cell force field in both states (small values from the generator above).
    {
      std::vector<float> h(3 * n);
      for (float& v : h) v = 2e-5f * next();
      copy_n(tuned.force_field(), tuned.memkind(), h.data(), MemKind::Host, h.size());
      copy_n(wide.force_field(), wide.memkind(), h.data(), MemKind::Host, h.size());
    }
    // Forced BGK: the quad kernel's register form for the even steps (the staged one is force-free only),
    // the odd steps in the form named after the "+".
    run_and_compare("forced BGK (uniform force and force field)", test_params(CollisionKind::BGK), 2);
    // TRT and regularized: the 32-bit one-cell kernel (the default for fp16 and D3Q27; for D3Q19 fp32,
    // whose default here is the 64-bit form, selected with TESSERA_LBM_INDEX=32).
    run_and_compare("forced TRT", test_params(CollisionKind::TRT), 2, "32");
    run_and_compare("forced regularized with LES", test_params(CollisionKind::Regularized, 0.15), 2, "32");
  }
}

// stream_pattern_only (bench_lbm --kernel pattern) moves the data as the tuned kernel's streaming does:
// an even step then an odd one carry slot q of cell x to x + 2 c_q, in every slot array.
TEST_CASE("access-pattern step: two steps stream every slot by two links", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (const char* prefetch : {"0", "4"})
  for (bool blocked : {false, true})
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16}) {
      INFO(to_string(k) << " " << to_string(pr) << " blocked layout " << blocked << " prefetch " << prefetch);
      const tessera::test::ScopedEnv pf("TESSERA_LBM_PREFETCH", prefetch);
      const GridLayout g = grid_for(k, 20, 9, 8);
      LatticeState s(k, pr, g, exec::Space::Device);
      write_flags(s, std::vector<uint8_t>(std::size_t(g.cells()), kFluid));
      const std::size_t B = std::size_t(precision_bytes(pr)), Q = std::size_t(s.q()), n = std::size_t(g.cells());
      std::vector<unsigned char> before(Q * n * B), after(Q * n * B);
      std::mt19937 rng(5);
      for (unsigned char& b : before) b = static_cast<unsigned char>(rng() & 0x3f);  // finite halves/floats
      copy_n(static_cast<unsigned char*>(s.pops()), s.memkind(), before.data(), MemKind::Host, before.size());
      const exec::Exec ex(exec::Space::Device);
      stream_pattern_only(ex, s, blocked);
      stream_pattern_only(ex, s, blocked);
      exec::fence(ex);
      copy_n(after.data(), MemKind::Host, static_cast<const unsigned char*>(s.pops()), s.memkind(), after.size());
      const auto lat = k == LatticeKind::D3Q19 ? &D3Q19::c : &D3Q27::c;
      int64_t checked = 0;
      for (int64_t z = 2; z < g.nz - 2; ++z)
        for (int64_t y = 2; y < g.ny - 2; ++y)
          for (int64_t x = 2; x < g.nx - 2; ++x)
            for (int q = 0; q < int(Q); ++q) {
              const int64_t off = g.offset(lat(q, 0), lat(q, 1), lat(q, 2)), c = g.cell(x, y, z), src = c - 2 * off;
              // The blocked pattern skips cells with a neighbour in the last, partial block of 32.
              const int64_t limit = int64_t(n) / 32 * 32, reach = g.px() * g.py() + g.px() + 1;
              if (blocked && (src + reach >= limit || c - off + reach >= limit)) continue;
              auto at = [&](int64_t cell) {  // element of slot q of cell in the layout under test
                return blocked ? std::size_t(((cell / 32) * int64_t(Q) + q) * 32 + cell % 32)
                               : std::size_t(q) * n + std::size_t(cell);
              };
              REQUIRE(std::memcmp(&after[at(c) * B], &before[at(src) * B], B) == 0);
              ++checked;
            }
      REQUIRE(checked > 1000);
    }
}

// stream_pattern_only with the collision on the blocked layout (bench_lbm --kernel tuned-blocked) computes
// what the tuned kernel computes: two steps from the same populations, laid out blocked (32 cells x Q
// slots) on one side and as the solver's slot arrays on the other, agree at every cell whose two-step
// neighbourhood avoids the cells the blocked form skips (fp32 1e-6, fp16 one storage step).
TEST_CASE("tuned kernel on the blocked layout (measurement) matches the tuned kernel", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16}) {
      INFO(to_string(k) << " " << to_string(pr));
      const GridLayout g = grid_for(k, 36, 9, 8);
      const std::size_t B = std::size_t(precision_bytes(pr)), n = std::size_t(g.cells());
      LatticeState nat(k, pr, g, exec::Space::Device), blk(k, pr, g, exec::Space::Device);
      const std::size_t Q = std::size_t(nat.q());
      const std::vector<uint8_t> fl(n, kFluid);
      write_flags(nat, fl);
      write_flags(blk, fl);
      write_slots(nat, k == LatticeKind::D3Q19 ? random_pops<D3Q19>(g, 7) : random_pops<D3Q27>(g, 7));
      const int64_t limit = int64_t(n) / 32 * 32;
      auto at = [&](std::size_t q, int64_t c) { return std::size_t(((c / 32) * int64_t(Q) + int64_t(q)) * 32 + c % 32); };
      std::vector<unsigned char> raw(Q * n * B), braw(Q * n * B, 0);
      copy_n(raw.data(), MemKind::Host, static_cast<const unsigned char*>(nat.pops()), nat.memkind(), raw.size());
      for (std::size_t q = 0; q < Q; ++q)
        for (int64_t c = 0; c < limit; ++c) std::memcpy(&braw[at(q, c) * B], &raw[(q * n + std::size_t(c)) * B], B);
      copy_n(static_cast<unsigned char*>(blk.pops()), blk.memkind(), braw.data(), MemKind::Host, braw.size());
      CollisionParams p = test_params(CollisionKind::BGK);
      p.force[0] = p.force[1] = p.force[2] = 0.0;
      const exec::Exec ex(exec::Space::Device);
      for (int step = 0; step < 2; ++step) {
        stream_collide(ex, nat, p, KernelPath::Tuned);
        stream_pattern_only(ex, blk, true, &p);
      }
      exec::fence(ex);
      copy_n(raw.data(), MemKind::Host, static_cast<const unsigned char*>(nat.pops()), nat.memkind(), raw.size());
      copy_n(braw.data(), MemKind::Host, static_cast<const unsigned char*>(blk.pops()), blk.memkind(), braw.size());
      auto value = [&](const std::vector<unsigned char>& v, std::size_t e) {
        if (B == 4) {
          float x;
          std::memcpy(&x, &v[e * 4], 4);
          return double(x);
        }
        uint16_t h;
        std::memcpy(&h, &v[e * 2], 2);
        return double(half_bits_to_float(h));
      };
      // A value after two steps depends on cells up to three links away through the cells the blocked form
      // skips (a host emulation of both layouts differs at a margin of two reaches, agrees at three).
      const int64_t reach = 3 * (g.px() * g.py() + g.px() + 1);
      int64_t checked = 0;
      double worst = 0;
      for (int64_t z = 2; z < g.nz - 2; ++z)
        for (int64_t y = 2; y < g.ny - 2; ++y)
          for (int64_t x = 2; x < g.nx - 2; ++x) {
            const int64_t c = g.cell(x, y, z);
            if (c + reach >= limit) continue;
            for (std::size_t q = 0; q < Q; ++q) {
              worst = std::max(worst, std::abs(value(raw, q * n + std::size_t(c)) - value(braw, at(q, c))));
              ++checked;
            }
          }
      CHECK(checked > 1000);
      REQUIRE(worst < tol(pr));
    }
}

// ---- host emulation of a warp, for the pair kernel's device code (tuned_pair_kernel.hpp) ----
#if !TESSERA_CUDA_COMPILER
#include "warp_emulation.hpp"
struct float2 {
  float x, y;
};
inline float2 make_float2(float a, float b) { return {a, b}; }
struct __half2 {
  uint16_t x, y;
};
inline float2 __half22float2(__half2 h) {
  return {tessera::lbm::half_bits_to_float(h.x), tessera::lbm::half_bits_to_float(h.y)};
}
inline __half2 __floats2half2_rn(float a, float b) {
  return {tessera::lbm::float_to_half_bits(a), tessera::lbm::float_to_half_bits(b)};
}
struct float4 {
  float x, y, z, w;
};
struct uint2 {
  uint32_t x, y;
};
#include "../../kernels/lbm/src/lattice_impl.hpp"
#include "../../kernels/lbm/src/tuned_pair_kernel.hpp"
#include "../../kernels/lbm/src/tuned_quad_kernel.hpp"

namespace {
// Threads 0 .. threads - 1 (rounded up to 128-thread blocks) of each plane k < nz, warp by warp: each warp's
// 32 lanes as threads (their shuffles and ballots meet), body(t, k, lane).
template <class Body>
void emulate_warps(uint32_t threads, uint32_t nz, Body body) {
  constexpr uint32_t BX = 128;
  for (uint32_t k = 0; k < nz; ++k)
    for (uint32_t t0 = 0; t0 < (threads + BX - 1) / BX * BX; t0 += 32)
      tessera::test::emu::run_warp([&](unsigned l) { body(t0 + l, k, l); });
}

// One step of the pair kernel, block by block (128 threads) and warp by warp, on a host lattice. SP: its form
// with the loads ahead of the flags (TESSERA_LBM_SPECULATE); FC: its form that takes the face cells' walls
// from their own flags (TESSERA_LBM_FACE_CELLS); XE: with FC, the x faces' wall links loaded with the pair
// loads (the fused steps' TESSERA_LBM_FUSED_XFACE=early).
template <class L, class S, CollisionKind K, bool KF, bool SP, bool FC = false, bool XE = false>
void emulated_pair_step(LatticeState& s, const CollisionParams& p, uint32_t align) {
  const GridLayout& g = s.grid();
  const lbm::detail::PairGeom pg = lbm::detail::make_pair_geom(g, align);
  const StepArgs<float> a = lbm::detail::make_step_args<float>(s, p);
  const auto sp = lbm::detail::make_slot_ptrs(static_cast<S*>(s.pops()), L::Q, g.cells());
  emulate_warps(pg.pairs, uint32_t(g.nz), [&](uint32_t t, uint32_t k, unsigned l) {
    lbm::detail::pair_update<L, S, K, 0, KF, SP, FC, XE>(static_cast<S*>(s.pops()), sp, s.flags(), a, pg, p.walls, t,
                                                          k, l);
  });
  s.parity ^= 1;
  ++s.step;
}

// One even step of the quad kernel, thread by thread (it has no warp logic), on a host lattice.
template <class L, class S, CollisionKind K, bool KF, bool SP>
void emulated_quad_step(LatticeState& s, const CollisionParams& p) {
  const GridLayout& g = s.grid();
  REQUIRE(s.parity == 0);
  const lbm::detail::QuadGeom qg = lbm::detail::make_quad_geom(g);
  REQUIRE(qg.n % 4 == 0);
  const StepArgs<float> a = lbm::detail::make_step_args<float>(s, p);
  const auto sp = lbm::detail::make_slot_ptrs(static_cast<S*>(s.pops()), L::Q, g.cells());
  for (uint32_t k = 0; k < uint32_t(g.nz); ++k)
    for (uint32_t t = 0; t < qg.quads; ++t)
      lbm::detail::quad_update_even<L, S, K, KF, false, SP>(sp, s.flags(), a, qg, t, k);
  s.parity ^= 1;
  ++s.step;
}

// One odd step of the quad kernel (rows of a multiple of 4 cells), block by block (128 threads) and warp by
// warp, on a host lattice.
template <class L, class S, CollisionKind K, bool KF>
void emulated_quad_odd_step(LatticeState& s, const CollisionParams& p) {
  const GridLayout& g = s.grid();
  REQUIRE(s.parity == 1);
  REQUIRE(g.px() % 4 == 0);
  const lbm::detail::QuadGeom qg = lbm::detail::make_quad_geom(g);
  const StepArgs<float> a = lbm::detail::make_step_args<float>(s, p);
  const auto sp = lbm::detail::make_slot_ptrs(static_cast<S*>(s.pops()), L::Q, g.cells());
  emulate_warps(qg.quads, uint32_t(g.nz), [&](uint32_t t, uint32_t k, unsigned l) {
    lbm::detail::quad_update_odd<L, S, K, KF>(static_cast<S*>(s.pops()), sp, s.flags(), a, qg, p.walls, t, k, l);
  });
  s.parity ^= 1;
  ++s.step;
}

// KF = false: a step without force (no field, no uniform force) through the force-free collision.
// align = 0: the quad kernel (four cells per thread) for the even steps, and for the odd ones where the rows
// are a multiple of 4 cells (px % 4 == 0); the pair kernel for the other odd ones. SP: the kernels' forms
// with the loads ahead of the flags (force-free BGK, TESSERA_LBM_SPECULATE). FC: the pair kernel's form for
// the face cells (TESSERA_LBM_FACE_CELLS; the ghost walls give every face some), XE: with the x faces' links
// from the wall loaded early. channel: wall planes (id 2) at padded x = 3 and 6 as well, so that the pair of
// cells x = 4, 5 between them holds two x-face cells (XE takes the upper one early, the lower one late).
template <class L, class S, CollisionKind K, bool KF = true, bool SP = false, bool FC = false, bool XE = false>
void check_emulated(const Case& cs, uint32_t align, double smag = 0.0, bool channel = false) {
  INFO(L::name << (sizeof(S) == 2 ? " fp16 " : " fp32 ") << to_string(K) << " nx " << cs.nx << " align " << align
               << " force " << KF << " smagorinsky " << smag << " speculative " << SP << " face cells " << FC
               << " x faces early " << XE << " channel " << channel);
  const GridLayout g = grid_for(L::kind, cs.nx, cs.ny, cs.nz);
  std::vector<uint8_t> fl = sparse_flags(g, cs.ghost_walls, 31);
  if (channel)
    for (int64_t k = 1; k < g.pz() - 1; ++k)
      for (int64_t j = 1; j < g.py() - 1; ++j)
        for (int64_t i : {3, 6}) fl[std::size_t(i + g.px() * (j + g.py() * k))] = make_wall(2);
  const Precision pr = sizeof(S) == 2 ? Precision::FP16 : Precision::FP32;
  LatticeState ref(L::kind, pr, g, exec::Space::Host), pair(L::kind, pr, g, exec::Space::Host);
  const std::vector<double> f0 = random_pops<L>(g, 32);
  std::mt19937 rng(33);
  std::uniform_real_distribution<float> d(-2e-4f, 2e-4f);
  std::vector<float> force(std::size_t(3 * g.cells()));
  for (float& x : force) x = d(rng);
  for (LatticeState* s : {&ref, &pair}) {
    write_flags(*s, fl);
    write_slots(*s, f0);
    if (KF) std::memcpy(s->force_field(), force.data(), force.size() * sizeof(float));
  }
  if (FC) REQUIRE((pair.face_cells() > 0) == cs.ghost_walls);
  if (channel) {  // some pair (4, 5) of the channel has both cells on x faces (faces 1 and 2)
    const std::vector<uint8_t> marked = read_flags(pair);
    int both = 0;
    for (int64_t k = 1; k < g.pz() - 1; ++k)
      for (int64_t j = 1; j < g.py() - 1; ++j) {
        const std::size_t c = std::size_t(4 + g.px() * (j + g.py() * k));
        both += flag_face(marked[c]) == 1 && flag_face(marked[c + 1]) == 2 ? 1 : 0;
      }
    REQUIRE(both > 0);
  }
  CollisionParams p = test_params(K, K == CollisionKind::Regularized ? 0.15 : smag);
  if (!KF) p.force[0] = p.force[1] = p.force[2] = 0.0;
  const exec::Exec ex(exec::Space::Host);
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    stream_collide(ex, ref, p, KernelPath::Reference);
    if (align == 0 && pair.parity == 0)
      emulated_quad_step<L, S, K, KF, SP>(pair, p);
    else if (align == 0 && g.px() % 4 == 0)
      emulated_quad_odd_step<L, S, K, KF>(pair, p);
    else
      emulated_pair_step<L, S, K, KF, SP, FC, XE>(pair, p, align == 0 ? 2u : align);
    const std::vector<double> a = read_slots(ref), b = read_slots(pair);
    REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
  }
}
}  // namespace

// The quad kernel runs BGK only, as the launcher picks it.
TEST_CASE("quad kernel: emulated on the host, it gives the reference's bits", "[lbm]") {
  // px = 72, 64 (0 mod 4: the odd steps too) and 70, 62 (2 mod 4: quads straddle rows, the odd steps take the
  // pair kernel); closed and periodic ghosts.
  for (const Case& cs : {Case{70, 3, 3, true}, Case{62, 3, 3, false}, Case{68, 4, 3, true}, Case{60, 2, 3, false}}) {
    check_emulated<D3Q19, float, CollisionKind::BGK>(cs, 0);
    check_emulated<D3Q19, half_t, CollisionKind::BGK>(cs, 0);
    check_emulated<D3Q27, float, CollisionKind::BGK>(cs, 0);
    check_emulated<D3Q27, half_t, CollisionKind::BGK, false>(cs, 0);
    check_emulated<D3Q19, float, CollisionKind::BGK, false>(cs, 0);
    check_emulated<D3Q19, float, CollisionKind::BGK, false, true>(cs, 0);
    check_emulated<D3Q27, half_t, CollisionKind::BGK, false, true>(cs, 0);
    // With the Smagorinsky model the launcher takes the form with the force terms (tuned_force_terms).
    check_emulated<D3Q19, half_t, CollisionKind::BGK, true>(cs, 0, 0.15);
    check_emulated<D3Q27, float, CollisionKind::BGK, true>(cs, 0, 0.15);
  }
}

TEST_CASE("pair kernel: the warp logic, emulated on the host, gives the reference's bits", "[lbm]") {
  // Small boxes (each emulated warp is 32 threads): rows of 36 and 32 pairs, closed and periodic ghosts.
  for (const Case& cs : {Case{70, 3, 3, true}, Case{62, 3, 3, false}})
    for (uint32_t align : {2u, 64u}) {
      check_emulated<D3Q19, float, CollisionKind::BGK>(cs, align);
      check_emulated<D3Q19, half_t, CollisionKind::TRT>(cs, align);
      check_emulated<D3Q27, float, CollisionKind::Regularized>(cs, align);
      check_emulated<D3Q27, half_t, CollisionKind::BGK>(cs, align);
      check_emulated<D3Q19, half_t, CollisionKind::BGK, false>(cs, align);
      check_emulated<D3Q27, float, CollisionKind::BGK, false>(cs, align);
      check_emulated<D3Q19, float, CollisionKind::BGK, false, true>(cs, align);
      check_emulated<D3Q19, float, CollisionKind::BGK, false, false, true>(cs, align);
      check_emulated<D3Q19, half_t, CollisionKind::BGK, false, false, true>(cs, align);
      check_emulated<D3Q27, float, CollisionKind::BGK, false, false, true>(cs, align);  // the fused steps' form
      // The x faces' links from the wall loaded early (the fused steps' default odd items).
      check_emulated<D3Q19, float, CollisionKind::BGK, false, false, true, true>(cs, align);
      check_emulated<D3Q27, float, CollisionKind::BGK, false, false, true, true>(cs, align);
      check_emulated<D3Q27, half_t, CollisionKind::BGK, false, false, true, true>(cs, align);
    }
  // Both cells of a pair on x faces (a channel two cells wide), with and without XE.
  for (uint32_t align : {2u, 64u}) {
    check_emulated<D3Q19, float, CollisionKind::BGK, false, false, true, true>(Case{70, 6, 5, true}, align, 0.0, true);
    check_emulated<D3Q27, float, CollisionKind::BGK, false, false, true, true>(Case{70, 6, 5, true}, align, 0.0, true);
    check_emulated<D3Q19, half_t, CollisionKind::BGK, false, false, true, false>(Case{70, 6, 5, true}, align, 0.0,
                                                                                  true);
  }
}
#endif
