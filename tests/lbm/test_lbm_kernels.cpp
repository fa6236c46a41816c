// LBM kernels at a point and over a lattice: fp16 conversion, velocity-set moments, conservation in
// the collision, and the AA-pattern update against a naive two-array reference on random inputs.
#include <cmath>
#include <random>

#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "tessera/lbm/lattice_state.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

TEST_CASE("fp16 storage conversion is exact round trip and rounds to nearest even", "[lbm][unit]") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t b = uint16_t(h);
    if (((b >> 10) & 0x1f) == 0x1f && (b & 0x3ff)) continue;  // NaN payloads
    REQUIRE(float_to_half_bits(half_bits_to_float(b)) == b);
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  for (int t = 0; t < 200000; ++t) {
    const float x = d(rng) * std::ldexp(1.0f, int(rng() % 40) - 30);
    const uint16_t h = float_to_half_bits(x);
    const double err = std::abs(double(half_bits_to_float(h)) - double(x));
    // Neighbouring representable values are no closer (ties must pick the even mantissa).
    for (int s : {-1, 1}) {
      const uint16_t nb = uint16_t(h + s);
      if ((nb & 0x7fff) >= 0x7c00 || ((nb ^ h) & 0x8000)) continue;
      const double en = std::abs(double(half_bits_to_float(nb)) - double(x));
      REQUIRE(err <= en);
      if (err == en) REQUIRE((h & 1u) == 0u);
    }
  }
  REQUIRE(float_to_half_bits(1e6f) == 0x7c00);
  REQUIRE(float_to_half_bits(-65520.0f) == 0xfc00);
  REQUIRE(float_to_half_bits(65504.0f) == 0x7bff);
}

template <class L>
void check_lattice() {
  double s0 = 0, s1[3] = {0, 0, 0}, s2[3][3] = {}, s4[3][3][3][3] = {};
  for (int q = 0; q < L::Q; ++q) {
    REQUIRE(L::c(opposite(q), 0) == -L::c(q, 0));
    REQUIRE(L::c(opposite(q), 1) == -L::c(q, 1));
    REQUIRE(L::c(opposite(q), 2) == -L::c(q, 2));
    REQUIRE(L::w(opposite(q)) == L::w(q));
    s0 += L::w(q);
    for (int a = 0; a < 3; ++a) {
      s1[a] += L::w(q) * L::c(q, a);
      for (int b = 0; b < 3; ++b) {
        s2[a][b] += L::w(q) * L::c(q, a) * L::c(q, b);
        for (int c = 0; c < 3; ++c)
          for (int d = 0; d < 3; ++d) s4[a][b][c][d] += L::w(q) * L::c(q, a) * L::c(q, b) * L::c(q, c) * L::c(q, d);
      }
    }
  }
  REQUIRE(s0 == Approx(1.0).margin(1e-15));
  const int D = L::D;
  auto delta = [](int a, int b) { return a == b ? 1.0 : 0.0; };
  for (int a = 0; a < D; ++a) {
    REQUIRE(std::abs(s1[a]) < 1e-15);
    for (int b = 0; b < D; ++b) {
      REQUIRE(s2[a][b] == Approx(delta(a, b) / 3.0).margin(1e-15));
      for (int c = 0; c < D; ++c)
        for (int d = 0; d < D; ++d)  // fourth-order isotropy: (dd + dd + dd) c_s^4
          REQUIRE(s4[a][b][c][d] ==
                  Approx((delta(a, b) * delta(c, d) + delta(a, c) * delta(b, d) + delta(a, d) * delta(b, c)) / 9.0)
                      .margin(1e-15));
    }
  }
}

TEST_CASE("velocity sets: opposites, weights and isotropy up to fourth order", "[lbm][unit]") {
  check_lattice<D2Q9>();
  check_lattice<D3Q19>();
  check_lattice<D3Q27>();
}

template <class L, CollisionKind K>
void check_collision(double smag) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> d(-1, 1);
  const CollisionParams p = test_params(K, smag);
  const Relaxation<double> r = make_relaxation<double>(p);
  const double F[3] = {p.force[0], p.force[1], L::D == 3 ? p.force[2] : 0.0};
  for (int t = 0; t < 50; ++t) {
    double f[L::Q];
    for (int q = 0; q < L::Q; ++q) f[q] = L::w(q) * 0.1 * d(rng);  // shifted
    double rho0 = 1, j0[3] = {0, 0, 0};
    for (int q = 0; q < L::Q; ++q) {
      rho0 += f[q];
      for (int a = 0; a < 3; ++a) j0[a] += L::c(q, a) * f[q];
    }
    const CellMoments<double> m = collide<L, K, double>(f, r, F[0], F[1], F[2]);
    REQUIRE(m.rho == Approx(rho0).epsilon(1e-14));
    REQUIRE(m.ux == Approx((j0[0] + 0.5 * F[0]) / rho0).epsilon(1e-12));
    double rho1 = 1, j1[3] = {0, 0, 0};
    for (int q = 0; q < L::Q; ++q) {
      rho1 += f[q];
      for (int a = 0; a < 3; ++a) j1[a] += L::c(q, a) * f[q];
    }
    // Mass is conserved; Guo forcing adds exactly F to the momentum in one step.
    REQUIRE(rho1 == Approx(rho0).epsilon(1e-14));
    for (int a = 0; a < 3; ++a) REQUIRE(j1[a] == Approx(j0[a] + F[a]).margin(1e-14));
  }
}

TEST_CASE("collision conserves mass and adds the Guo force to the momentum", "[lbm][unit]") {
  for (double smag : {0.0, 0.17}) {
    check_collision<D2Q9, CollisionKind::BGK>(smag);
    check_collision<D2Q9, CollisionKind::TRT>(smag);
    check_collision<D2Q9, CollisionKind::Regularized>(smag);
    check_collision<D3Q19, CollisionKind::BGK>(smag);
    check_collision<D3Q19, CollisionKind::TRT>(smag);
    check_collision<D3Q19, CollisionKind::Regularized>(smag);
    check_collision<D3Q27, CollisionKind::BGK>(smag);
    check_collision<D3Q27, CollisionKind::TRT>(smag);
    check_collision<D3Q27, CollisionKind::Regularized>(smag);
  }
}

TEST_CASE("BGK at omega = 1 lands on the equilibrium; TRT with w- = w+ equals BGK", "[lbm][unit]") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(-1, 1);
  double f[19], g[19];
  for (int q = 0; q < 19; ++q) f[q] = g[q] = D3Q19::w(q) * 0.1 * d(rng);
  Relaxation<double> r;
  r.omega = 1.0;
  const CellMoments<double> m = collide<D3Q19, CollisionKind::BGK, double>(f, r, 0, 0, 0);
  const double usq = m.ux * m.ux + m.uy * m.uy + m.uz * m.uz;
  for (int q = 0; q < 19; ++q) REQUIRE(f[q] == Approx(feq_bar<D3Q19, double>(q, m.rho, m.ux, m.uy, m.uz, usq)).margin(1e-16));
  // Lambda = (1/w - 1/2)^2 makes w- = w+, where TRT is BGK.
  for (int q = 0; q < 19; ++q) f[q] = g[q];
  r.omega = 1.3;
  r.omega_minus = 1.3;
  double h[19];
  for (int q = 0; q < 19; ++q) h[q] = g[q];
  collide<D3Q19, CollisionKind::BGK, double>(f, r, 1e-3, 2e-3, -1e-3);
  collide<D3Q19, CollisionKind::TRT, double>(h, r, 1e-3, 2e-3, -1e-3);
  for (int q = 0; q < 19; ++q) REQUIRE(h[q] == Approx(f[q]).margin(1e-16));
}

// The BGK collision (written by pairs of opposite velocities in collision.hpp) against the textbook form
// evaluated per q in this test: f*_q = f_q - omega (f_q - feq_q) + (1 - omega/2) w_q [3 (c_q - u).F +
// 9 (c_q.u)(c_q.F)], feq_q = w_q [drho + rho (3 c.u + 9/2 (c.u)^2 - 3/2 u.u)], u = (j + F/2) / rho; fp64,
// random shifted populations, relaxation rates and forces, with and without force.
template <class L>
void check_bgk_textbook() {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> d(-1, 1);
  for (int t = 0; t < 200; ++t) {
    Relaxation<double> r;
    r.omega = 1.2 + 0.7 * d(rng);
    const bool forced = t % 2 == 0;
    const double F[3] = {forced ? 1e-3 * d(rng) : 0.0, forced ? 1e-3 * d(rng) : 0.0,
                         forced && L::D == 3 ? 1e-3 * d(rng) : 0.0};
    double f[L::Q], ref[L::Q];
    for (int q = 0; q < L::Q; ++q) f[q] = L::w(q) * 0.2 * d(rng);
    double drho = 0, j[3] = {0, 0, 0};
    for (int q = 0; q < L::Q; ++q) {
      drho += f[q];
      for (int a = 0; a < 3; ++a) j[a] += L::c(q, a) * f[q];
    }
    const double rho = 1 + drho;
    double u[3], usq = 0, uF = 0;
    for (int a = 0; a < 3; ++a) {
      u[a] = (j[a] + 0.5 * F[a]) / rho;
      usq += u[a] * u[a];
      uF += u[a] * F[a];
    }
    for (int q = 0; q < L::Q; ++q) {
      double cu = 0, cF = 0;
      for (int a = 0; a < 3; ++a) {
        cu += L::c(q, a) * u[a];
        cF += L::c(q, a) * F[a];
      }
      const double feq = L::w(q) * (drho + rho * (3 * cu + 4.5 * cu * cu - 1.5 * usq));
      ref[q] = f[q] - r.omega * (f[q] - feq) + (1 - 0.5 * r.omega) * L::w(q) * (3 * (cF - uF) + 9 * cu * cF);
    }
    if (forced) collide<L, CollisionKind::BGK, double>(f, r, F[0], F[1], F[2]);
    else collide<L, CollisionKind::BGK, double, false>(f, r, 0.0, 0.0, 0.0);
    for (int q = 0; q < L::Q; ++q) REQUIRE(f[q] == Approx(ref[q]).margin(2e-16));
  }
}

TEST_CASE("BGK by pairs equals the textbook BGK evaluated per direction", "[lbm][unit]") {
  check_bgk_textbook<D2Q9>();
  check_bgk_textbook<D3Q19>();
  check_bgk_textbook<D3Q27>();
}

// AA pattern on the library vs the naive scheme, fp64 storage, 4 steps, moments at odd parity too.
template <class L, CollisionKind K>
void check_aa_against_naive() {
  const GridLayout g = grid_for(L::kind, 11, 9, 7);
  const std::vector<uint8_t> fl = random_flags(g, 5);
  std::vector<double> ref = random_pops<L>(g, 9);
  const CollisionParams p = test_params(K, K == CollisionKind::BGK ? 0.1 : 0.0);
  LatticeState s(L::kind, Precision::FP64, g, exec::Space::Host);
  write_flags(s, fl);
  write_slots(s, ref);
  const exec::Exec ex(exec::Space::Host);
  const int64_t n = g.cells();
  std::vector<float> rho(static_cast<std::size_t>(n)), u(static_cast<std::size_t>(3 * n));
  for (int step = 1; step <= 4; ++step) {
    stream_collide(ex, s, p);
    naive_step<L, K>(g, fl, p, ref);
    if (step % 2 == 0) {
      REQUIRE(max_fluid_diff<L>(g, fl, read_slots(s), ref) < 1e-14);
    } else {
      compute_moments(ex, s, p, rho.data(), u.data());
      for (int64_t c0 = 0; c0 < g.interior(); ++c0) {
        const int64_t c = g.cell(c0 % g.nx, (c0 / g.nx) % g.ny, c0 / (g.nx * g.ny));
        if (!is_fluid(fl[std::size_t(c)])) continue;
        double r = 0, jx = 0;
        for (int q = 0; q < L::Q; ++q) {
          r += ref[std::size_t(q * n + c)];
          jx += L::c(q, 0) * ref[std::size_t(q * n + c)];
        }
        REQUIRE(double(rho[std::size_t(c)]) == Approx(r).epsilon(1e-6));
        REQUIRE(double(u[std::size_t(c)]) == Approx((jx + 0.5 * p.force[0]) / r).margin(1e-7));
      }
    }
  }
}

TEST_CASE("AA-pattern stream-collide equals naive pull streaming with bounce-back", "[lbm][unit]") {
  check_aa_against_naive<D2Q9, CollisionKind::BGK>();
  check_aa_against_naive<D2Q9, CollisionKind::TRT>();
  check_aa_against_naive<D2Q9, CollisionKind::Regularized>();
  check_aa_against_naive<D3Q19, CollisionKind::BGK>();
  check_aa_against_naive<D3Q19, CollisionKind::TRT>();
  check_aa_against_naive<D3Q19, CollisionKind::Regularized>();
  check_aa_against_naive<D3Q27, CollisionKind::BGK>();
  check_aa_against_naive<D3Q27, CollisionKind::TRT>();
  check_aa_against_naive<D3Q27, CollisionKind::Regularized>();
}

// Reduced-precision storage follows fp64 to within the storage rounding.
TEST_CASE("fp32 and fp16 storage track fp64 storage", "[lbm][unit]") {
  using L = D3Q19;
  const GridLayout g = grid_for(L::kind, 10, 8, 6);
  const std::vector<uint8_t> fl = random_flags(g, 2);
  const std::vector<double> f0 = random_pops<L>(g, 4);
  const CollisionParams p = test_params(CollisionKind::TRT);
  std::vector<double> out[3];
  const Precision precs[3] = {Precision::FP64, Precision::FP32, Precision::FP16};
  for (int i = 0; i < 3; ++i) {
    LatticeState s(L::kind, precs[i], g, exec::Space::Host);
    write_flags(s, fl);
    write_slots(s, f0);
    for (int t = 0; t < 6; ++t) stream_collide(exec::Exec(exec::Space::Host), s, p);
    out[i] = read_slots(s);
  }
  const double d32 = max_fluid_diff<L>(g, fl, out[0], out[1]);
  const double d16 = max_fluid_diff<L>(g, fl, out[0], out[2]);
  INFO("fp32 " << d32 << " fp16 " << d16);
  REQUIRE(d32 < 2e-7);  // fp32 arithmetic and storage on O(0.1) random non-equilibrium
  REQUIRE(d16 < 2e-5);  // fp16 holds f - w_q (|f - w| < 0.03) with a relative step of 2^-11
  REQUIRE(d16 > 0.0);
}
