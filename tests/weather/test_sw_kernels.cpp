// Shallow-water C-grid kernels: exact discrete conservation laws, well-balancedness, the fused fast
// path against the staged reference, and the GPU against the host on random inputs.
#include <cmath>

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
  double mass_rate, energy_rate, energy_scale;
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
  return r;
}

}  // namespace

TEST_CASE("shallow water conserves mass and energy semi-discretely", "[weather][sw]") {
  const bool wall_x = GENERATE(false, true);
  const bool wall_y = GENERATE(false, true);
  const Grid gr = make_grid(37, 40, 1000.0, 1000.0);
  // a beta plane needs walls in y: f(y) is not periodic (the solver refuses beta with periodic y)
  const SwParams p = params(wall_x, wall_y, wall_y ? 2e-5 : 0.0);
  const exec::Exec ex(exec::Space::Host);
  SwState s(gr, MemKind::Host);
  fill_random(s, gr, 11);
  sw_fill_ghosts_local(ex, gr, p, s.view(), s.b.data());
  const Tendencies t = reference_tendencies(gr, p, s);
  // mass: flux form telescopes; the sum of |dh/dt| is O(1e-2 * n), so 1e-12 is round-off
  CHECK(std::abs(t.mass_rate) < 1e-12 * double(gr.nx * gr.ny));
  // energy: Coriolis terms cancel pairwise, pressure terms by summation by parts
  INFO("walls " << wall_x << wall_y << " energy rate " << t.energy_rate << " scale " << t.energy_scale);
  CHECK(std::abs(t.energy_rate) < 1e-12 * t.energy_scale);
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
  const Grid gr = make_grid(32, 28, 500.0, 700.0);
  const SwParams p = params(true, false, 1e-5);
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
  const Grid gr = make_grid(33, 26, 1000.0, 800.0);
  const SwParams p = params(wall_x, wall_y, 1e-5);
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

TEST_CASE("GPU shallow-water stage matches the host", "[weather][sw][gpu]") {
  TESSERA_GPU_TEST();
  const Grid gr = make_grid(300, 170, 1000.0, 800.0);
  const SwParams p = params(false, true, 1e-5);
  std::vector<double> out[2][3];
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
  }
  // FMA contraction on the device changes the last bits: atol 1e-12 on O(10) values
  for (int f = 0; f < 3; ++f) CHECK(max_diff_interior(gr, out[0][f], out[1][f]) < 1e-12);
  CHECK(integ[1].mass == Approx(integ[0].mass).epsilon(1e-13));
  CHECK(integ[1].energy == Approx(integ[0].energy).epsilon(1e-13));
  CHECK(integ[1].enstrophy == Approx(integ[0].enstrophy).epsilon(1e-12));
  CHECK(speed[1] == Approx(speed[0]).epsilon(1e-15));
}
