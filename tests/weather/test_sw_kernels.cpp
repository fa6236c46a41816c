// Shallow-water C-grid kernels: exact discrete conservation laws, well-balancedness, the fused fast
// path against the staged reference, and the GPU against the host on random inputs.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "catch_compat.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/sw_step.hpp"
#include "weather_test_util.hpp"

using namespace tessera;
using namespace tessera::weather;
using namespace tessera::weather::test;

namespace {

SwParams params(bool wall_x, bool wall_y, double beta) {
  SwParams p;
  p.gravity = 9.81;
  p.f0 = 1e-4 * 1e3;  // O(1) Coriolis so that rotation terms matter at these scales
  p.beta = beta;
  p.y_ref = 0.5 * 40 * 1000.0;
  p.wall_x = wall_x;
  p.wall_y = wall_y;
  return p;
}

struct Tendencies {
  std::vector<double> h, u, v;
  double mass_rate, energy_rate, energy_scale, enstrophy_rate, enstrophy_scale;
};

Tendencies reference_tendencies(const Grid& gr, const SwParams& p, SwState& s) {
  const exec::Exec ex(exec::Space::Host);
  SwScratch w(gr, MemKind::Host);
  SwState t(gr, MemKind::Host);
  sw_tendency_reference(ex, gr, p, s.cview(), w, t.view());
  Tendencies r;
  r.h = download(t.h);
  r.u = download(t.u);
  r.v = download(t.v);
  r.mass_rate = 0;
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) r.mass_rate += r.h[size_t(gr.idx(i, j))];
  SwConstView tv{t.h.data(), t.u.data(), t.v.data(), nullptr};
  r.energy_rate = sw_energy_tendency(ex, gr, p, s.cview(), tv);
  // scale of the individual terms: sum |B Lh| dA
  const SwPoint P{gr, p, s.cview()};
  r.energy_scale = 0;
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) r.energy_scale += std::abs(P.bernoulli(i, j) * r.h[size_t(gr.idx(i, j))]);
  r.energy_scale *= gr.dx * gr.dy;
  // potential enstrophy: the tendency needs its ghosts (same parity rules as the state)
  sw_fill_ghosts_local(ex, gr, p, t.view());
  r.enstrophy_rate = sw_enstrophy_tendency(ex, gr, p, s.cview(), tv);
  // scale: sum over corners |q d(zeta)/dt| dA
  const auto tu = download(t.u), tvv = download(t.v);
  r.enstrophy_scale = 0;
  for (int64_t j = 0; j <= gr.ny; ++j)
    for (int64_t i = 0; i <= gr.nx; ++i) {
      const auto n = size_t(gr.idx(i, j));
      const double dz = (tvv[n] - tvv[size_t(gr.idx(i - 1, j))]) / gr.dx - (tu[n] - tu[size_t(gr.idx(i, j - 1))]) / gr.dy;
      r.enstrophy_scale += std::abs(P.q(i, j) * dz);
    }
  r.enstrophy_scale *= gr.dx * gr.dy;
  return r;
}

}  // namespace

TEST_CASE("shallow water conserves mass and energy semi-discretely", "[weather][sw]") {
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const bool al = GENERATE(true, false);
  const Grid gr = make_grid(37, 40, 1000.0, 1000.0);
  // a beta plane needs walls in y: f(y) is not periodic (the solver refuses beta with periodic y)
  SwParams p = params(wall_x, wall_y, wall_y ? 2e-5 : 0.0);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  const exec::Exec ex(exec::Space::Host);
  SwState s(gr, MemKind::Host);
  fill_random(s, gr, 11);
  sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
  const Tendencies t = reference_tendencies(gr, p, s);
  // mass: flux form telescopes; the sum of |dh/dt| is O(1e-2 * n), so 1e-12 is round-off
  CHECK(std::abs(t.mass_rate) < 1e-12 * double(gr.nx * gr.ny));
  // energy: Coriolis terms cancel pairwise, pressure terms by summation by parts
  INFO("walls " << wall_x << wall_y << " AL81 " << al << " energy rate " << t.energy_rate << " scale "
                 << t.energy_scale);
  CHECK(std::abs(t.energy_rate) < 1e-12 * t.energy_scale);
}

TEST_CASE("Arakawa-Lamb conserves potential enstrophy, Sadourny's energy scheme does not", "[weather][sw]") {
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const int topo = GENERATE(0, 1);  // flat bottom or random topography
  const bool rotating = GENERATE(true, false);
  const Grid gr = make_grid(31, 36, 1000.0, 700.0);
  const exec::Exec ex(exec::Space::Host);
  SwState s(gr, MemKind::Host);
  fill_random(s, gr, 17);
  if (!topo) s.b.zero();
  for (const SwScheme sc : {SwScheme::ArakawaLamb, SwScheme::SadournyEnergy}) {
    SwParams p = params(wall_x, wall_y, wall_y && rotating ? 2e-5 : 0.0);
    if (!rotating) p.f0 = 0.0;
    p.scheme = sc;
    sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
    const Tendencies t = reference_tendencies(gr, p, s);
    INFO("walls " << wall_x << wall_y << " rotating " << rotating << " topography " << topo << " AL81 " << (sc == SwScheme::ArakawaLamb)
                  << " enstrophy rate " << t.enstrophy_rate << " scale " << t.enstrophy_scale);
    // the terms are O(scale); round-off leaves ~1e-16 * scale * sqrt(corners). Exact on periodic axes,
    // and at free-slip walls without rotation (the walled domain is half of its mirror-doubled periodic
    // one). With f != 0 the mirror ghosts do not double into a periodic rotating flow (reflection flips
    // the sense of rotation; zeta = 0 on the wall): AL81 do not conserve enstrophy there either, see
    // docs/weather.md "Limits".
    if (sc == SwScheme::ArakawaLamb && (!rotating || (!wall_x && !wall_y)))
      CHECK(std::abs(t.enstrophy_rate) < 1e-12 * t.enstrophy_scale);
    else if (sc == SwScheme::ArakawaLamb)  // bounded: O(1e-2) of the scale from the wall corners only
      CHECK(std::abs(t.enstrophy_rate) < 3e-2 * t.enstrophy_scale);
    else  // random divergent flow: Sadourny's energy scheme changes enstrophy at O(1e-2) of the scale
      CHECK(std::abs(t.enstrophy_rate) > 1e-6 * t.enstrophy_scale);
    CHECK(std::abs(t.energy_rate) < 1e-12 * t.energy_scale);
  }
}

TEST_CASE("energy oracle detects inconsistent ghosts and a periodic beta plane", "[weather][sw]") {
  // guards the oracle above: states that break the discrete symmetry must show a nonzero energy rate
  const Grid gr = make_grid(24, 20, 1000.0, 1000.0);
  const exec::Exec ex(exec::Space::Host);
  SwState s(gr, MemKind::Host);
  fill_random(s, gr, 5);
  SECTION("a wrong east ghost face velocity") {
    const SwParams p = params(true, true, 0.0);
    sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
    s.u[size_t(gr.idx(gr.nx, 3))] = 0.5;  // flow through the east wall
    const Tendencies t = reference_tendencies(gr, p, s);
    CHECK(std::abs(t.energy_rate) > 1e-6 * t.energy_scale);
  }
  SECTION("beta with periodic y") {
    const SwParams p = params(false, false, 2e-5);
    sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
    const Tendencies t = reference_tendencies(gr, p, s);
    CHECK(std::abs(t.energy_rate) > 1e-6 * t.energy_scale);
  }
}

TEST_CASE("lake at rest over topography has zero tendency", "[weather][sw]") {
  const bool al = GENERATE(true, false);
  const Grid gr = make_grid(32, 28, 500.0, 700.0);
  SwParams p = params(true, false, 1e-5);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  const exec::Exec ex(exec::Space::Host);
  SwState s(gr, MemKind::Host);
  const auto b = random_field(size_t(gr.size2()), 0.0, 3.0, 3);
  std::vector<double> h(b.size());
  for (size_t n = 0; n < b.size(); ++n) h[n] = 10.0 - b[n];
  upload(s.b, b);
  upload(s.h, h);
  sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
  const Tendencies t = reference_tendencies(gr, p, s);
  double mh = 0, mu = 0, mv = 0;
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) {
      const auto n = size_t(gr.idx(i, j));
      mh = std::max(mh, std::abs(t.h[n]));
      mu = std::max(mu, std::abs(t.u[n]));
      mv = std::max(mv, std::abs(t.v[n]));
    }
  CHECK(mh == 0.0);  // u = v = 0 exactly gives zero mass flux exactly
  // g (h + b) is 98.1 up to one rounding of h + b: |du/dt| <= g * 2 ulp(10) / dx
  CHECK(mu < 9.81 * 4e-15 / 500.0);
  CHECK(mv < 9.81 * 4e-15 / 700.0);
}

TEST_CASE("fused SSP stage matches the staged reference on random inputs", "[weather][sw]") {
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const bool al = GENERATE(true, false);
  const Grid gr = make_grid(33, 26, 1000.0, 800.0);
  SwParams p = params(wall_x, wall_y, 1e-5);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  const exec::Exec ex(exec::Space::Host);
  SwState s0(gr, MemKind::Host), sk(gr, MemKind::Host), fused(gr, MemKind::Host), ref(gr, MemKind::Host),
      tend(gr, MemKind::Host);
  fill_random(s0, gr, 21);
  fill_random(sk, gr, 31);
  copy(sk.b, s0.b);
  sw_fill_ghosts_local(ex, gr, p, sk.view(), sk.b.data());
  const double a = 0.75, c = 0.25, dt = 7.0;
  sw_stage(ex, gr, p, s0.cview(), sk.cview(), fused.view(), a, c, dt);
  SwScratch w(gr, MemKind::Host);
  sw_tendency_reference(ex, gr, p, sk.cview(), w, tend.view());
  sw_combine(ex, gr, p, s0.cview(), sk.cview(), tend.cview(), ref.view(), a, c, dt);
  // same formulas, different evaluation order of a few products: agree to a few ulp of O(10) values
  CHECK(max_diff_interior(gr, download(fused.h), download(ref.h)) < 1e-12);
  CHECK(max_diff_interior(gr, download(fused.u), download(ref.u)) < 1e-12);
  CHECK(max_diff_interior(gr, download(fused.v), download(ref.v)) < 1e-12);
  if (wall_x)
    for (int64_t j = 0; j < gr.ny; ++j) CHECK(download(fused.u)[size_t(gr.idx(0, j))] == 0.0);
}

// Every CUDA kernel shape of the shallow-water stage (TESSERA_SW_TILE, sw_tiled.cpp), one per section.
#define SW_KERNEL_SHAPE()                                                                                   \
  GENERATE(std::string("32x16"), std::string("strip4"), std::string("strip4m4"), std::string("strip8m4"), \
           std::string("strip16m4"), std::string("strip8"), std::string("strip12"), std::string("strip4x"),         \
           std::string("strip8m4x"), std::string("strip8m2x8"), std::string("strip8m4xf"), std::string("strip16m4xf"))

TEST_CASE("GPU shallow-water stage matches the host", "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  // every boundary combination and both schemes; sizes not multiples of the CUDA tile (32 x 16) or strip
  // (29 columns x 4 warps x 4, 8, 12 or 16 rows); every CUDA kernel shape (TESSERA_SW_TILE)
  const std::string shape = SW_KERNEL_SHAPE();
  const tessera::test::ScopedEnv use_shape("TESSERA_SW_TILE", shape);
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const bool al = GENERATE(true, false);
  const Grid gr = make_grid(300, 170, 1000.0, 800.0);
  SwParams p = params(wall_x, wall_y, wall_y ? 1e-5 : 0.0);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  std::vector<double> out[2][3], split[3];
  SwIntegrals integ[2];
  double speed[2];
  for (int dev = 0; dev < 2; ++dev) {
    const exec::Exec ex(dev ? exec::Space::Device : exec::Space::Host);
    const MemKind mk = default_memkind(ex.space);
    SwState s0(gr, mk), sk(gr, mk), r(gr, mk);
    fill_random(s0, gr, 41);
    fill_random(sk, gr, 51);
    copy(sk.b, s0.b);
    sw_fill_ghosts_local(ex, gr, p, sk.view(), sk.b.data());
    sw_stage(ex, gr, p, s0.cview(), sk.cview(), r.view(), 1.0 / 3.0, 2.0 / 3.0, 5.0);
    exec::fence(ex);
    out[dev][0] = download(r.h);
    out[dev][1] = download(r.u);
    out[dev][2] = download(r.v);
    integ[dev] = sw_integrals(ex, gr, p, sk.cview());
    speed[dev] = sw_max_signal_speed(ex, gr, p, sk.cview());
    if (dev) {  // the interior/shell split a solver uses for overlap: the same bits per cell
      SwState q(gr, mk);
      const int64_t m = 3;
      const CellRect parts[5] = {{m, gr.nx - m, m, gr.ny - m}, {0, gr.nx, 0, m}, {0, gr.nx, gr.ny - m, gr.ny},
                                 {0, m, m, gr.ny - m}, {gr.nx - m, gr.nx, m, gr.ny - m}};
      for (const CellRect& c : parts) sw_stage(ex, gr, p, s0.cview(), sk.cview(), q.view(), 1.0 / 3.0, 2.0 / 3.0, 5.0, c);
      exec::fence(ex);
      split[0] = download(q.h);
      split[1] = download(q.u);
      split[2] = download(q.v);
    }
  }
  // FMA contraction on the device (and, in the tiled CUDA stage, products stored to shared memory
  // before they are summed) changes the last bits: atol 1e-12 on O(10) values
  for (int f = 0; f < 3; ++f) {
    double ulp = 0;
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i) {
        const auto n = size_t(gr.idx(i, j));
        ulp = std::max(ulp, std::abs(out[0][f][n] - out[1][f][n]) / std::max(1e-300, std::abs(out[0][f][n]) * 2.2e-16));
      }
    INFO(shape << " field " << f << " walls " << wall_x << wall_y << " AL81 " << al << " max GPU-host difference " << ulp
               << " ulp");
    std::printf("sw GPU (%s) vs host: field %d walls %d%d AL81 %d: max difference %.1f ulp\n", shape.c_str(), f,
                int(wall_x), int(wall_y), int(al), ulp);
    CHECK(max_diff_interior(gr, out[0][f], out[1][f]) < 1e-12);
    CHECK(max_diff_interior(gr, split[f], out[1][f]) == 0.0);
  }
  CHECK(integ[1].mass == Approx(integ[0].mass).epsilon(1e-13));
  CHECK(integ[1].energy == Approx(integ[0].energy).epsilon(1e-13));
  CHECK(integ[1].enstrophy == Approx(integ[0].enstrophy).epsilon(1e-12));
  CHECK(speed[1] == Approx(speed[0]).epsilon(1e-15));
}

TEST_CASE("first stage with s^n the same arrays as s_k equals the stage with s^n a copy", "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  // the CUDA kernels take s^n from what they have loaded when s0 and sk are the same arrays (a step's
  // first stage) instead of reading it again: the same bits as reading a separate copy
  const std::string shape = SW_KERNEL_SHAPE();
  const tessera::test::ScopedEnv use_shape("TESSERA_SW_TILE", shape);
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const bool al = GENERATE(true, false);
  const Grid gr = make_grid(100, 70, 1000.0, 800.0);
  SwParams p = params(wall_x, wall_y, wall_y ? 1e-5 : 0.0);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  const exec::Exec ex(exec::Space::Device);
  const MemKind mk = default_memkind(ex.space);
  SwState s(gr, mk), copy_of_s(gr, mk), a(gr, mk), b(gr, mk);
  fill_random(s, gr, 91);
  sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
  copy(copy_of_s.h, s.h);
  copy(copy_of_s.u, s.u);
  copy(copy_of_s.v, s.v);
  copy(copy_of_s.b, s.b);
  for (const double a0 : {0.0, 0.5}) {  // a = 0 as in SSP-RK3's first stage, and a weight on s^n
    sw_stage(ex, gr, p, s.cview(), s.cview(), a.view(), a0, 1.0 - a0, 5.0);
    sw_stage(ex, gr, p, copy_of_s.cview(), s.cview(), b.view(), a0, 1.0 - a0, 5.0);
    exec::fence(ex);
    INFO(shape << " a = " << a0 << " walls " << wall_x << wall_y << " AL81 " << al);
    CHECK(max_diff_interior(gr, download(a.h), download(b.h)) == 0.0);
    CHECK(max_diff_interior(gr, download(a.u), download(b.u)) == 0.0);
    CHECK(max_diff_interior(gr, download(a.v), download(b.v)) == 0.0);
  }
}

TEST_CASE("an unknown TESSERA_SW_TILE is refused with the names that exist", "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  const Grid gr = make_grid(40, 30, 1000.0, 800.0);
  const SwParams p = params(false, false, 0.0);
  const exec::Exec ex(exec::Space::Device);
  SwState s(gr, default_memkind(ex.space)), o(gr, default_memkind(ex.space));
  fill_random(s, gr, 5);
  check_knob_refused("TESSERA_SW_TILE", "strip5", [&] { sw_stage(ex, gr, p, s.cview(), s.cview(), o.view(), 0.0, 1.0, 1.0); },
                     {"strip4", "32x16"});
}

TEST_CASE("stage with folded ghost refresh equals stage then ghost fill", "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  const std::string shape = SW_KERNEL_SHAPE();
  const tessera::test::ScopedEnv use_shape("TESSERA_SW_TILE", shape);
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const Grid gr = make_grid(67, 45, 1000.0, 800.0);
  const SwParams p = params(wall_x, wall_y, wall_y ? 1e-5 : 0.0);
  const exec::Exec ex(exec::Space::Device);
  const MemKind mk = default_memkind(ex.space);
  SwState s0(gr, mk), sk(gr, mk), a(gr, mk), b(gr, mk);
  fill_random(s0, gr, 61);
  fill_random(sk, gr, 71);
  fill_random(a, gr, 81);  // stale ghosts that the fill must overwrite
  copy(b.h, a.h);
  copy(b.u, a.u);
  copy(b.v, a.v);
  copy(sk.b, s0.b);
  sw_fill_ghosts_local(ex, gr, p, sk.view(), sk.b.data());
  sw_stage(ex, gr, p, s0.cview(), sk.cview(), a.view(), 0.75, 0.25, 4.0);
  sw_fill_ghosts_local(ex, gr, p, a.view());
  sw_stage_and_fill(ex, gr, p, s0.cview(), sk.cview(), b.view(), 0.75, 0.25, 4.0);
  exec::fence(ex);
  // every point, ghosts included, bit for bit
  CHECK(download(a.h) == download(b.h));
  CHECK(download(a.u) == download(b.u));
  CHECK(download(a.v) == download(b.v));
}

#define SW_FUSED_SHAPE()                                                                                      \
  GENERATE(std::string("f6"), std::string("f8"), std::string("f10"), std::string("f12"), std::string("f12m3"), \
           std::string("f12a1"))

TEST_CASE("fused stages 1 and 2 equal the two stages with a ghost fill between, bit for bit", "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  // periodic f-plane, one rank: s_1 is formed in registers from s^n read at wrapped indices; every
  // point of stage 2's output (ghost images included) must carry the bits of stage 1, ghost fill,
  // stage 2, ghost fill with the default strip shape. Sizes not multiples of the 26 columns / 6, 8, 10, 12
  // rows of a warp, down to the smallest the kernel takes (32 x 20 for 12 rows).
  const std::string shape = SW_FUSED_SHAPE();
  const tessera::test::ScopedEnv use_shape("TESSERA_SW_FUSED", shape);
  const bool al = GENERATE(true, false);
  const auto [nx, ny] = GENERATE(std::pair<int64_t, int64_t>{300, 170}, std::pair<int64_t, int64_t>{100, 70},
                                 std::pair<int64_t, int64_t>{32, 20});
  const Grid gr = make_grid(nx, ny, 1000.0, 800.0);
  SwParams p = params(false, false, 0.0);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  const exec::Exec ex(exec::Space::Device);
  const MemKind mk = default_memkind(ex.space);
  SwState s(gr, mk), t1(gr, mk), ref(gr, mk), out(gr, mk);
  fill_random(s, gr, 17);
  fill_random(out, gr, 19);  // stale ghosts that the fused kernel must overwrite
  sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
  const auto k = stage_coefficients(TimeScheme::SspRk3);
  const double dt = 5.0;
  sw_stage(ex, gr, p, s.cview(), s.cview(), t1.view(), k[0].a, k[0].c, dt);
  sw_fill_ghosts_local(ex, gr, p, t1.view());
  copy(t1.b, s.b);
  sw_stage(ex, gr, p, s.cview(), t1.cview(), ref.view(), k[1].a, k[1].c, dt);
  sw_fill_ghosts_local(ex, gr, p, ref.view());
  REQUIRE(sw_stages12(ex, gr, p, s.cview(), out.view(), k[0], k[1], dt));
  exec::fence(ex);
  INFO(shape << " " << nx << " x " << ny << " AL81 " << al);
  CHECK(download(out.h) == download(ref.h));
  CHECK(download(out.u) == download(ref.u));
  CHECK(download(out.v) == download(ref.v));
}

TEST_CASE("the fused stages decline where they do not apply, and a step is the same bits either way",
          "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  const Grid gr = make_grid(90, 50, 1000.0, 800.0);
  const exec::Exec ex(exec::Space::Device);
  const MemKind mk = default_memkind(ex.space);
  SwState s(gr, mk), out(gr, mk);
  fill_random(s, gr, 23);
  const auto k = stage_coefficients(TimeScheme::SspRk3);
  // walls, beta, the host, a non-Rf strip shape, TESSERA_SW_FUSED=off, a grid below 32 x 20
  CHECK_FALSE(sw_stages12(ex, gr, params(true, false, 0.0), s.cview(), out.view(), k[0], k[1], 1.0));
  CHECK_FALSE(sw_stages12(ex, gr, params(false, true, 1e-5), s.cview(), out.view(), k[0], k[1], 1.0));
  CHECK_FALSE(sw_stages12(ex, gr, params(false, false, 1e-5), s.cview(), out.view(), k[0], k[1], 1.0));
  {
    const exec::Exec host(exec::Space::Host);
    SwState hs(gr, MemKind::Host), ho(gr, MemKind::Host);
    fill_random(hs, gr, 23);
    CHECK_FALSE(sw_stages12(host, gr, params(false, false, 0.0), hs.cview(), ho.view(), k[0], k[1], 1.0));
  }
  {
    const tessera::test::ScopedEnv plain("TESSERA_SW_TILE", "strip8m4x");
    CHECK_FALSE(sw_stages12(ex, gr, params(false, false, 0.0), s.cview(), out.view(), k[0], k[1], 1.0));
  }
  {
    const tessera::test::ScopedEnv off("TESSERA_SW_FUSED", "off");
    CHECK_FALSE(sw_stages12(ex, gr, params(false, false, 0.0), s.cview(), out.view(), k[0], k[1], 1.0));
  }
  {
    const Grid small = make_grid(31, 50, 1000.0, 800.0);
    SwState a(small, mk), o(small, mk);
    fill_random(a, small, 29);
    CHECK_FALSE(sw_stages12(ex, small, params(false, false, 0.0), a.cview(), o.view(), k[0], k[1], 1.0));
  }
  check_knob_refused("TESSERA_SW_FUSED", "f7",
                     [&] { sw_stages12(ex, gr, params(false, false, 0.0), s.cview(), out.view(), k[0], k[1], 1.0); },
                     {"off", "f8"});
  // whole SSP-RK3 steps, fused and not: the same bits (three steps, so stage 3 reads a fused s_2)
  const bool al = GENERATE(true, false);
  SwParams p = params(false, false, 0.0);
  p.scheme = al ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
  std::vector<double> res[2][3];
  for (int fused = 0; fused < 2; ++fused) {
    const tessera::test::ScopedEnv knob("TESSERA_SW_FUSED", fused ? "f10" : "off");
    SwState a(gr, mk), t1(gr, mk), t2(gr, mk);
    fill_random(a, gr, 31);
    sw_fill_ghosts_local(ex, gr, p, a.view(), a.b.data());
    for (int n = 0; n < 3; ++n) CHECK(sw_ssprk3_step_local(ex, gr, p, a.view(), a.b.data(), t1.view(), t2.view(), 4.0) == bool(fused));
    exec::fence(ex);
    res[fused][0] = download(a.h);
    res[fused][1] = download(a.u);
    res[fused][2] = download(a.v);
  }
  INFO("AL81 " << al);
  for (int f = 0; f < 3; ++f) CHECK(max_diff_interior(gr, res[0][f], res[1][f]) == 0.0);
}
