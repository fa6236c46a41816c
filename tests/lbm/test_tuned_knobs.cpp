// The tuned LBM kernels' load knobs (kernels/lbm/src/tuned_ld_hint.hpp), parsed on the host: which storage
// the L2-hinted loads are chosen for, and whether the loads are issued ahead of the flags. The GPU tests
// (test_tuned.cpp) require the same bits with either knob on and off. Also TESSERA_LBM_WALL_STAGE and
// TESSERA_LBM_FACE_CELLS (lattice_ops.hpp).
#include <cstdlib>
#include <memory>
#include <string>

#include "catch_compat.hpp"

// The header's device declarations, compiled for the host (as test_tuned.cpp's warp emulation does).
#define __device__
struct float4 {
  float x, y, z, w;
};
struct uint2 {
  unsigned x, y;
};
#include "../../kernels/lbm/src/tuned_ld_hint.hpp"
#include "lbm_test_util.hpp"
#include "tessera/lbm/lattice.hpp"
#include "tessera/lbm/storage.hpp"

TEST_CASE("TESSERA_LBM_L2HINT: auto takes the caller's choice (fp16, D3Q27), on / off force it, other values are refused",
          "[lbm]") {
  using tessera::lbm::detail::l2hint_wanted;
  unsetenv("TESSERA_LBM_L2HINT");
  REQUIRE(l2hint_wanted(true));
  REQUIRE_FALSE(l2hint_wanted(false));
  for (const char* v : {"auto", ""}) {
    const tessera::test::ScopedEnv e("TESSERA_LBM_L2HINT", v);
    REQUIRE(l2hint_wanted(true));
    REQUIRE_FALSE(l2hint_wanted(false));
  }
  for (const char* v : {"on", "1"}) {
    const tessera::test::ScopedEnv e("TESSERA_LBM_L2HINT", v);
    REQUIRE(l2hint_wanted(true));
    REQUIRE(l2hint_wanted(false));
  }
  for (const char* v : {"off", "0"}) {
    const tessera::test::ScopedEnv e("TESSERA_LBM_L2HINT", v);
    REQUIRE_FALSE(l2hint_wanted(true));
    REQUIRE_FALSE(l2hint_wanted(false));
  }
  tessera::test::check_knob_refused("TESSERA_LBM_L2HINT", "yes", [] { l2hint_wanted(true); },
                                    {"TESSERA_LBM_L2HINT='yes'", "expected on, off or auto"});
}

TEST_CASE("TESSERA_LBM_SPECULATE: on / 1 everywhere, odd the odd-step kernels, patch the wall path alone, off / 0 "
          "none, unset or auto the caller's choice, other values are refused",
          "[lbm]") {
  using namespace tessera::lbm::detail;
  const auto check = [](const char* v, Speculate m, bool even, bool odd) {
    INFO("TESSERA_LBM_SPECULATE=" << (v ? v : "(unset)"));
    unsetenv("TESSERA_LBM_SPECULATE");
    if (v) setenv("TESSERA_LBM_SPECULATE", v, 1);
    REQUIRE(speculate_mode() == m);
    REQUIRE(speculate_mode(Speculate::Patch) == (m == Speculate::Off && !(v && *v && std::string(v) != "auto")
                                                    ? Speculate::Patch : m));  // auto: the caller's choice
    REQUIRE(speculate_wanted() == even);
    REQUIRE(speculate_odd_wanted() == odd);
  };
  for (const char* v : {static_cast<const char*>(nullptr), "auto", "", "off", "0"}) check(v, Speculate::Off, false, false);
  for (const char* v : {"on", "1"}) check(v, Speculate::On, true, true);
  check("odd", Speculate::Odd, false, true);
  check("patch", Speculate::Patch, false, false);
  unsetenv("TESSERA_LBM_SPECULATE");
  tessera::test::check_knob_refused("TESSERA_LBM_SPECULATE", "yes", [] { speculate_mode(); },
                                    {"TESSERA_LBM_SPECULATE='yes'", "expected on, odd, patch, off or auto"});
}

namespace tessera::lbm::detail {
bool wall_stage_wanted(LatticeKind lattice, Precision precision);  // kernels/lbm/src/lattice_ops.hpp
bool face_cells_streamed(const LatticeState& s);
bool face_cells_flagged(const LatticeState& s);
}

TEST_CASE("TESSERA_LBM_WALL_STAGE: unset or auto stages the wall links of D3Q19 with fp16 storage, on every "
          "lattice and storage, off none; other values are refused",
          "[lbm]") {
  using namespace tessera::lbm;
  using tessera::lbm::detail::wall_stage_wanted;
  const auto check = [](const char* v, bool d3q19_fp16, bool others) {
    INFO("TESSERA_LBM_WALL_STAGE=" << (v ? v : "(unset)"));
    unsetenv("TESSERA_LBM_WALL_STAGE");
    if (v) setenv("TESSERA_LBM_WALL_STAGE", v, 1);
    REQUIRE(wall_stage_wanted(LatticeKind::D3Q19, Precision::FP16) == d3q19_fp16);
    REQUIRE(wall_stage_wanted(LatticeKind::D3Q19, Precision::FP32) == others);
    REQUIRE(wall_stage_wanted(LatticeKind::D3Q27, Precision::FP16) == others);
    REQUIRE(wall_stage_wanted(LatticeKind::D3Q27, Precision::FP32) == others);
  };
  for (const char* v : {static_cast<const char*>(nullptr), "", "auto"}) check(v, true, false);
  check("on", true, true);
  check("off", false, false);
  unsetenv("TESSERA_LBM_WALL_STAGE");
  tessera::test::check_knob_refused(
      "TESSERA_LBM_WALL_STAGE", "0", [] { wall_stage_wanted(LatticeKind::D3Q19, Precision::FP16); },
      {"TESSERA_LBM_WALL_STAGE='0'", "expected on, off or auto"});
}

TEST_CASE("TESSERA_LBM_FACE_CELLS: on (the default) streams the face cells of a D3Q19 lattice that has some (and "
          "the fused steps those of D3Q27 too), off none; other values are refused",
          "[lbm]") {
  using namespace tessera::lbm;
  using tessera::lbm::detail::face_cells_flagged;
  using tessera::lbm::detail::face_cells_streamed;
  auto state = [](LatticeKind k, bool walls) {
    const GridLayout g = test::grid_for(k, 12, 10, 8);
    auto s = std::make_unique<LatticeState>(k, Precision::FP16, g, tessera::exec::Space::Host);
    if (walls) write_flags(*s, test::random_flags(g, 3));  // ghost walls: face cells on every face
    return s;
  };
  const auto d3q19 = state(LatticeKind::D3Q19, true), d3q27 = state(LatticeKind::D3Q27, true),
             open = state(LatticeKind::D3Q19, false);
  REQUIRE(d3q19->face_cells() > 0);
  REQUIRE(d3q27->face_cells() > 0);
  REQUIRE(open->face_cells() == 0);
  for (const char* v : {static_cast<const char*>(nullptr), "", "on"}) {  // unset: on
    INFO("TESSERA_LBM_FACE_CELLS=" << (v ? v : "(unset)"));
    unsetenv("TESSERA_LBM_FACE_CELLS");
    if (v) setenv("TESSERA_LBM_FACE_CELLS", v, 1);
    REQUIRE(face_cells_streamed(*d3q19));
    REQUIRE_FALSE(face_cells_streamed(*d3q27));  // D3Q27 has no face form: its staging keeps them
    REQUIRE_FALSE(face_cells_streamed(*open));   // no face cells
    REQUIRE(face_cells_flagged(*d3q19));        // the fused steps' pair kernel: either lattice
    REQUIRE(face_cells_flagged(*d3q27));
    REQUIRE_FALSE(face_cells_flagged(*open));
  }
  {
    const tessera::test::ScopedEnv e("TESSERA_LBM_FACE_CELLS", "off");
    REQUIRE_FALSE(face_cells_streamed(*d3q19));
    REQUIRE_FALSE(face_cells_flagged(*d3q27));
  }
  {  // the one-pass wall warps have no face form: their staging keeps the face cells
    const tessera::test::ScopedEnv e("TESSERA_LBM_WALL_WARP", "uniform");
    REQUIRE_FALSE(face_cells_streamed(*d3q19));
    REQUIRE_FALSE(face_cells_flagged(*d3q27));
  }
  unsetenv("TESSERA_LBM_FACE_CELLS");
  tessera::test::check_knob_refused("TESSERA_LBM_FACE_CELLS", "auto", [&] { face_cells_streamed(*d3q19); },
                                    {"TESSERA_LBM_FACE_CELLS='auto'", "expected on or off"});
}
