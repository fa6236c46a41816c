// The fused steps (lbm::stream_collide_pairs; kernels/lbm/src/tuned_fused_cuda.cpp): an even and an odd step
// in one launch, the odd step of a plane started once the even step has finished the planes it reads, and
// several such pairs in one launch, the next pair's even step of a plane started once the odd step has
// finished the planes around it. They must give the bits of as many tuned steps (stream_collide on the tuned
// path) and the reference's values to rounding, for every lattice and storage, in a closed box with
// scattered walls (moving ones; face cells for D3Q19) and in bench_lbm's periodic box (fluid ghosts,
// streamed into), over slabs of several heights (one row more than the minimum, rows not dividing ny, one
// slab), the even planes 2 .. nz ahead, 1 (the default), 2 or all 3 pairs per launch (TESSERA_LBM_FUSED_PAIRS)
// and both ways of signalling (TESSERA_LBM_FUSED_FENCE: one fence after the barrier, the default, or every
// thread's).
// The closed boxes' face cells take their walls from their own flags (TESSERA_LBM_FACE_CELLS on, the default)
// or from their neighbours' (off), the x faces' with the pair loads (the default) or after them
// (TESSERA_LBM_FUSED_XFACE=late). The even items take the quad step (the default) with fp16 storage on the
// shapes whose slot stride is a multiple of 4 (72 x 11 x 9, 64 x 8 x 7 and 256 x 124 x 66 padded cells) and the
// pair step elsewhere, and the pair step there too with TESSERA_LBM_FUSED_EVEN=pair, on slabs of several
// heights and with several pairs per launch; the D3Q19 quad-even launch also under other launch bounds
// (TESSERA_LBM_FUSED_BLOCKS=5, 7; 6 is the default). Every slot of every cell is compared, ghosts and walls
// included.
#include <array>
#include <cstdlib>
#include <string>
#include <utility>

#include "../../kernels/lbm/src/lattice_ops.hpp"  // detail::fused_lag
#include "catch_compat.hpp"
#include "lbm_test_util.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {

struct Case {
  int64_t nx, ny, nz;
  bool ghost_walls;
};

CollisionParams free_params() {
  CollisionParams p = test_params(CollisionKind::BGK);
  p.force[0] = p.force[1] = p.force[2] = 0.0;  // the fused steps are force-free
  return p;
}

// pairs: step pairs in one stream_collide_pairs call (fused) or 2 x pairs stream_collide calls on `path`.
std::vector<double> run(LatticeKind k, Precision pr, const Case& cs, int pairs, bool fused, KernelPath path) {
  const GridLayout g = grid_for(k, cs.nx, cs.ny, cs.nz);
  LatticeState s(k, pr, g, exec::Space::Device);
  write_flags(s, scattered_flags(g, cs.ghost_walls, 41, 300, 4, 2));
  write_slots(s, k == LatticeKind::D3Q19 ? random_pops<D3Q19>(g, 42) : random_pops<D3Q27>(g, 42));
  const CollisionParams p = free_params();
  const exec::Exec ex(exec::Space::Device);
  if (fused) {
    REQUIRE(fused_steps_available(s, p));
    stream_collide_pairs(ex, s, p, pairs);
  } else {
    for (int t = 0; t < 2 * pairs; ++t) stream_collide(ex, s, p, path);
  }
  exec::fence(ex);
  REQUIRE(s.parity == 0);
  REQUIRE(s.step == 2 * pairs);
  return read_slots(s);
}

}  // namespace

TEST_CASE("fused steps give the bits of as many tuned steps and the reference's values", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  const Case cases[] = {{70, 9, 7, true}, {62, 6, 5, false}, {64, 23, 11, true}, {40, 17, 9, false}};
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (const Case& cs : cases) {
        const auto tuned = run(k, pr, cs, 3, false, KernelPath::Tuned);
        const auto ref = run(k, pr, cs, 3, false, KernelPath::Reference);
        for (const char* fence : {"", "all"})  // one fence (the default); every thread's, on fewer shapes
          for (const char* rows : {"", "2", "3", "5", "1000"})
            for (const char* lag : {"", "2", "4", "1000"})
              for (const char* per : {"", "2", "16"}) {  // pairs per launch: 1 (the default), 2 + 1, all 3
                if (fence[0] != '\0' && (rows[0] == '5' || lag[0] == '4')) continue;
                if (per[0] != '\0' && !(rows[0] == '\0' || rows[0] == '3' || lag[0] == '2')) continue;
                INFO(to_string(k) << " " << to_string(pr) << " " << cs.nx << "x" << cs.ny << "x" << cs.nz
                                  << " ghost walls " << cs.ghost_walls << " fence '" << fence << "' rows '" << rows
                                  << "' lag '" << lag << "' pairs per launch '" << per << "'");
                const tessera::test::ScopedEnv f("TESSERA_LBM_FUSED_FENCE", fence), r("TESSERA_LBM_FUSED_ROWS", rows),
                    l("TESSERA_LBM_FUSED_LAG", lag), pp("TESSERA_LBM_FUSED_PAIRS", per);
                const auto fused = run(k, pr, cs, 3, true, KernelPath::Tuned);
                REQUIRE(fused == tuned);
                REQUIRE(max_diff(fused, ref) < (pr == Precision::FP32 ? 1e-6 : 4e-5));
              }
        // The even items' step: the quad step (the runs above) with fp16 on a slot stride of a multiple of 4 only
        // (72 x 11 x 9, 64 x 8 x 7 padded cells), the pair step elsewhere; the library must agree. There the pair
        // step too, with TESSERA_LBM_FUSED_EVEN=pair.
        const bool quad = pr == Precision::FP16 && grid_for(k, cs.nx, cs.ny, cs.nz).cells() % 4 == 0;
        const LatticeState form_of(k, pr, grid_for(k, cs.nx, cs.ny, cs.nz), exec::Space::Host);
        CHECK(fused_steps_form(form_of) == (quad ? "fused-quad-even" : "fused-pair"));
        {
          const tessera::test::ScopedEnv e("TESSERA_LBM_FUSED_EVEN", "pair");
          CHECK(fused_steps_form(form_of) == "fused-pair");
        }
        for (const char* rows : {"", "2", "3", "1000"})
          for (const char* per : {"", "2"}) {
            if (!quad) continue;
            INFO(to_string(k) << " " << to_string(pr) << " " << cs.nx << "x" << cs.ny << "x" << cs.nz
                              << " ghost walls " << cs.ghost_walls << " even pair, rows '" << rows
                              << "' pairs per launch '" << per << "'");
            const tessera::test::ScopedEnv e("TESSERA_LBM_FUSED_EVEN", "pair"), r("TESSERA_LBM_FUSED_ROWS", rows),
                pp("TESSERA_LBM_FUSED_PAIRS", per);
            REQUIRE(run(k, pr, cs, 3, true, KernelPath::Tuned) == tuned);
          }
        // The D3Q19 quad-even launch under other launch bounds than the default 6 blocks per multiprocessor
        // (TESSERA_LBM_FUSED_BLOCKS: 5 or 7, 96 or 72 registers): other registers and spills, the same bits.
        for (const char* blocks : {"5", "7"})
          for (const char* rows : {"", "3"})
            for (const char* per : {"", "2"}) {
              if (!quad || k != LatticeKind::D3Q19) continue;
              INFO(to_string(k) << " " << to_string(pr) << " " << cs.nx << "x" << cs.ny << "x" << cs.nz
                                << " ghost walls " << cs.ghost_walls << " blocks " << blocks << " rows '" << rows
                                << "' pairs per launch '" << per << "'");
              const tessera::test::ScopedEnv b("TESSERA_LBM_FUSED_BLOCKS", blocks), r("TESSERA_LBM_FUSED_ROWS", rows),
                  pp("TESSERA_LBM_FUSED_PAIRS", per);
              REQUIRE(run(k, pr, cs, 3, true, KernelPath::Tuned) == tuned);
              if (cs.ghost_walls && rows[0] == '\0' && per[0] == '\0') {  // the x faces late, the face cells off
                const tessera::test::ScopedEnv xe("TESSERA_LBM_FUSED_XFACE", "late");
                REQUIRE(run(k, pr, cs, 3, true, KernelPath::Tuned) == tuned);
                const tessera::test::ScopedEnv fc("TESSERA_LBM_FACE_CELLS", "off");
                REQUIRE(run(k, pr, cs, 3, true, KernelPath::Tuned) == tuned);
              }
            }
        if (cs.ghost_walls) {
          {  // the face cells' walls from their neighbours' flags (the odd items without FC)
            INFO(to_string(k) << " " << to_string(pr) << " " << cs.nx << "x" << cs.ny << "x" << cs.nz
                              << " face cells off");
            const tessera::test::ScopedEnv fc("TESSERA_LBM_FACE_CELLS", "off");
            REQUIRE(run(k, pr, cs, 3, true, KernelPath::Tuned) == tuned);
          }
          for (const char* rows : {"", "3"}) {  // the x faces' wall links loaded late (without pair_update's XE)
            INFO(to_string(k) << " " << to_string(pr) << " " << cs.nx << "x" << cs.ny << "x" << cs.nz
                              << " x faces late, rows '" << rows << "'");
            const tessera::test::ScopedEnv xe("TESSERA_LBM_FUSED_XFACE", "late"), r("TESSERA_LBM_FUSED_ROWS", rows);
            REQUIRE(run(k, pr, cs, 3, true, KernelPath::Tuned) == tuned);
          }
        }
      }
}

TEST_CASE("fused steps: a grid of many slabs and blocks in flight", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  // 2 x 64 planes x 21 slabs of 6 rows (the last 2) x 2 blocks per pair, 5 pairs: thousands of items, most
  // of them waiting; in five launches (the default), in launches of 2, 2 and 1 pairs, and in one.
  const Case cs{254, 122, 64, true};
  for (Precision pr : {Precision::FP32, Precision::FP16}) {
    const auto tuned = run(LatticeKind::D3Q19, pr, cs, 5, false, KernelPath::Tuned);
    for (const char* fence : {"all", "one"})
      for (const char* per : {"", "2", "16"}) {
        INFO(to_string(pr) << " fence " << fence << " pairs per launch '" << per << "'");
        const tessera::test::ScopedEnv f("TESSERA_LBM_FUSED_FENCE", fence), r("TESSERA_LBM_FUSED_ROWS", "6"),
            pp("TESSERA_LBM_FUSED_PAIRS", per);
        REQUIRE(run(LatticeKind::D3Q19, pr, cs, 5, true, KernelPath::Tuned) == tuned);
      }
    {  // the x faces' wall links loaded late
      const tessera::test::ScopedEnv xe("TESSERA_LBM_FUSED_XFACE", "late"), r("TESSERA_LBM_FUSED_ROWS", "6");
      REQUIRE(run(LatticeKind::D3Q19, pr, cs, 5, true, KernelPath::Tuned) == tuned);
    }
    // fp16 (256 x 124 x 66 padded cells, 4n): the runs above took the even items' quad step (the default);
    // the pair step too (TESSERA_LBM_FUSED_EVEN=pair).
    const LatticeState form_of(LatticeKind::D3Q19, pr, grid_for(LatticeKind::D3Q19, cs.nx, cs.ny, cs.nz),
                               exec::Space::Host);
    REQUIRE(fused_steps_form(form_of) == (pr == Precision::FP16 ? "fused-quad-even" : "fused-pair"));
    for (const char* per : {"", "16"}) {
      if (pr != Precision::FP16) continue;
      INFO(to_string(pr) << " even pair, pairs per launch '" << per << "'");
      const tessera::test::ScopedEnv e("TESSERA_LBM_FUSED_EVEN", "pair"), r("TESSERA_LBM_FUSED_ROWS", "6"),
          pp("TESSERA_LBM_FUSED_PAIRS", per);
      REQUIRE(fused_steps_form(form_of) == "fused-pair");
      REQUIRE(run(LatticeKind::D3Q19, pr, cs, 5, true, KernelPath::Tuned) == tuned);
    }
  }
}

TEST_CASE("fused steps: where they do not apply they say so", "[lbm]") {
  const GridLayout g = grid_for(LatticeKind::D3Q19, 8, 6, 4);
  LatticeState s(LatticeKind::D3Q19, Precision::FP32, g, exec::Space::Host);
  CollisionParams p = free_params();
  // A host lattice (or a build without CUDA): not available, and the call names the GPU.
  CHECK_FALSE(fused_steps_available(s, p));
  const exec::Exec host(exec::Space::Host);
  try {
    stream_collide_two(host, s, p);
    FAIL("stream_collide_two ran on the host");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("GPU") != std::string::npos);
  }
  CHECK(s.parity == 0);
  CHECK(s.step == 0);
  p.force[0] = 1e-4;
  CHECK_FALSE(fused_steps_available(s, p));
}

TEST_CASE("fused steps: the shape and the knobs", "[lbm]") {
  const GridLayout g = grid_for(LatticeKind::D3Q19, 254, 122, 64);
  LatticeState s(LatticeKind::D3Q19, Precision::FP32, g, exec::Space::Host);
  // Defaults: the even step 6 planes ahead; 9 planes of 256 x 77 B rows in 12 MB: up to 67 rows, so 2 slabs of 61.
  CHECK(fused_steps_shape(s) == std::array<int, 3>{61, 6, 1});
  {
    const tessera::test::ScopedEnv r("TESSERA_LBM_FUSED_ROWS", "6"), l("TESSERA_LBM_FUSED_LAG", "1000");
    CHECK(fused_steps_shape(s) == std::array<int, 3>{6, 64, 1});  // the lag at most nz
    CHECK(lbm::detail::fused_lag(s, 4u) == 64);
  }
  // A rank periodic along z (bit 4 of the periodic axes; its odd planes run one later): 16 unless the knob is
  // set, then at least 3; other axes do not change the lag.
  CHECK(lbm::detail::fused_lag(s, 4u) == 16);
  CHECK(lbm::detail::fused_lag(s, 7u) == 16);
  CHECK(lbm::detail::fused_lag(s, 3u) == 6);
  {
    const tessera::test::ScopedEnv l("TESSERA_LBM_FUSED_LAG", "2");
    CHECK(lbm::detail::fused_lag(s, 4u) == 3);
    CHECK(lbm::detail::fused_lag(s, 0u) == 2);
  }
  {
    const tessera::test::ScopedEnv pp("TESSERA_LBM_FUSED_PAIRS", "3");
    CHECK(fused_steps_shape(s) == std::array<int, 3>{61, 6, 3});
  }
  {
    const tessera::test::ScopedEnv pp("TESSERA_LBM_FUSED_PAIRS", "0");  // at least one pair per launch
    CHECK_THROWS(fused_steps_shape(s));
  }
  for (const char* var : {"TESSERA_LBM_FUSED_LAG", "TESSERA_LBM_FUSED_MB", "TESSERA_LBM_FUSED_ROWS", "TESSERA_LBM_FUSED_PAIRS",
                          "TESSERA_LBM_FUSED_FENCE", "TESSERA_LBM_FUSED_XFACE", "TESSERA_LBM_FUSED_EVEN",
                          "TESSERA_LBM_FUSED_BLOCKS"}) {
    const tessera::test::ScopedEnv bad(var, "x");
    try {
      (void)fused_steps_shape(s);
      FAIL(var << "=x was accepted");
    } catch (const std::exception& e) {
      CHECK(std::string(e.what()).find(var) != std::string::npos);
    }
  }
  {
    const tessera::test::ScopedEnv lag("TESSERA_LBM_FUSED_LAG", "1");  // the odd step needs the plane after it
    CHECK_THROWS(fused_steps_shape(s));
  }
  {
    const tessera::test::ScopedEnv rows("TESSERA_LBM_FUSED_ROWS", "1");  // the odd rows start one row back
    CHECK_THROWS(fused_steps_shape(s));
  }
  // The even items' step: the quad step with fp16 storage and a slot stride of a multiple of 4 (256 x 124 x 66
  // padded cells; not 66 x 25 x 13), unless TESSERA_LBM_FUSED_EVEN=pair; the pair step elsewhere.
  CHECK(fused_steps_form(s) == "fused-pair");  // fp32
  {
    const LatticeState h(LatticeKind::D3Q19, Precision::FP16, g, exec::Space::Host);
    const LatticeState odd(LatticeKind::D3Q19, Precision::FP16, grid_for(LatticeKind::D3Q19, 64, 23, 11), exec::Space::Host);
    CHECK(fused_steps_form(h) == "fused-quad-even");
    CHECK(fused_steps_form(odd) == "fused-pair");  // a slot stride of 21,450 cells
    {
      const tessera::test::ScopedEnv e("TESSERA_LBM_FUSED_EVEN", "quad");
      CHECK(fused_steps_form(h) == "fused-quad-even");
      CHECK(fused_steps_form(s) == "fused-pair");
      CHECK(fused_steps_form(odd) == "fused-pair");
    }
    const tessera::test::ScopedEnv e("TESSERA_LBM_FUSED_EVEN", "pair");
    CHECK(fused_steps_form(h) == "fused-pair");
  }
  const CollisionParams p = free_params();
  CHECK_FALSE(fused_steps_available(s, p));  // a host lattice
  CHECK(fused_steps_mode() == FusedSteps::Auto);  // the default: timed on the run's own steps
  const std::pair<const char*, FusedSteps> modes[] = {
      {"off", FusedSteps::Off}, {"on", FusedSteps::On}, {"auto", FusedSteps::Auto}};
  for (const auto& [value, mode] : modes) {
    const tessera::test::ScopedEnv set("TESSERA_LBM_FUSED", value);
    CHECK(fused_steps_mode() == mode);
  }
  const tessera::test::ScopedEnv bad("TESSERA_LBM_FUSED", "maybe");
  try {
    (void)fused_steps_mode();
    FAIL("TESSERA_LBM_FUSED=maybe was accepted");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("TESSERA_LBM_FUSED") != std::string::npos);
  }
}
