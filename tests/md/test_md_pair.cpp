// Pair and bond evaluators: forces against -dU/dr by central finite differences, known values,
// mixing rules and tail corrections against numerical quadrature.
#include <cmath>
#include <numbers>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/md/bonds.hpp"
#include "tessera/md/pair_lj.hpp"
#include "tessera/md/pair_morse.hpp"
#include "tessera/md/pair_table.hpp"
#include "tessera/md/potential.hpp"

using namespace tessera::md;

namespace {
// Checks F(r) = -dU/dr with a central difference (error O(h^2)); tolerance atol + rtol |F|.
template <class Eval, class P>
void check_fd(const P& p, double r_lo, double r_hi, int samples = 200) {
  const double h = 1e-5;
  for (int s = 0; s < samples; ++s) {
    const double r = r_lo + (r_hi - r_lo) * (s + 0.5) / samples;
    double fr = 0, u = 0, fr_p = 0, u_p = 0, fr_m = 0, u_m = 0;
    REQUIRE(Eval::eval(r * r, p, fr, u));
    REQUIRE(Eval::eval((r + h) * (r + h), p, fr_p, u_p));
    REQUIRE(Eval::eval((r - h) * (r - h), p, fr_m, u_m));
    const double f = fr * r, fd = -(u_p - u_m) / (2 * h);
    INFO("r = " << r << " F = " << f << " -dU/dr = " << fd);
    CHECK(std::abs(f - fd) <= 1e-6 + 1e-6 * std::abs(f));
  }
}
}  // namespace

TEST_CASE("LJ forces are -dU/dr for cut, shifted and force-shifted variants", "[md][pair]") {
  for (auto m : {ShiftMode::cut, ShiftMode::shift, ShiftMode::force_shift}) check_fd<PairLJ>(LJParam::make(1.3, 1.1, 2.7, m), 0.9, 2.69);
  check_fd<PairLJ>(LJParam::wca(1.0, 1.0), 0.85, std::pow(2.0, 1.0 / 6.0) - 1e-4);
}

TEST_CASE("LJ known values: minimum at 2^(1/6) sigma, shifts make U (and F) vanish at rc", "[md][pair]") {
  double fr, u;
  const double rmin = std::pow(2.0, 1.0 / 6.0);
  REQUIRE(PairLJ::eval(rmin * rmin, LJParam::make(1, 1, 2.5, ShiftMode::cut), fr, u));
  CHECK(u == Approx(-1.0).epsilon(1e-14));
  CHECK(std::abs(fr) < 1e-13);
  // sigma: U = 0, F = 24 eps / sigma
  REQUIRE(PairLJ::eval(1.0, LJParam::make(2, 1, 2.5, ShiftMode::cut), fr, u));
  CHECK(std::abs(u) < 1e-14);
  CHECK(fr == Approx(48.0).epsilon(1e-14));
  const double rc = 2.5, r = rc - 1e-9;
  REQUIRE(PairLJ::eval(r * r, LJParam::make(1, 1, rc, ShiftMode::shift), fr, u));
  CHECK(std::abs(u) < 1e-9);
  REQUIRE(PairLJ::eval(r * r, LJParam::make(1, 1, rc, ShiftMode::force_shift), fr, u));
  CHECK(std::abs(u) < 1e-9);
  CHECK(std::abs(fr) < 1e-8);
  CHECK_FALSE(PairLJ::eval(rc * rc, LJParam::make(1, 1, rc, ShiftMode::cut), fr, u));
  // WCA at the minimum is exactly zero, and +eps at sigma.
  REQUIRE(PairLJ::eval(1.0, LJParam::wca(1.0, 1.0), fr, u));
  CHECK(u == Approx(1.0).epsilon(1e-14));
}

TEST_CASE("Morse forces are -dU/dr; minimum -D0 at r0", "[md][pair]") {
  check_fd<PairMorse>(MorseParam::make(0.7, 1.9, 1.2, 3.0, false), 0.6, 2.99);
  check_fd<PairMorse>(MorseParam::make(0.7, 1.9, 1.2, 3.0, true), 0.6, 2.99);
  double fr, u;
  REQUIRE(PairMorse::eval(1.44, MorseParam::make(0.7, 1.9, 1.2, 3.0, false), fr, u));
  CHECK(u == Approx(-0.7).epsilon(1e-14));
  CHECK(std::abs(fr) < 1e-14);
}

TEST_CASE("Tabulated potential: consistent F = -dU/dr, reproduces the tabulated function", "[md][pair]") {
  // Tabulate LJ on [0.8, 2.5]; the Hermite interpolant must be exact at the knots and close between.
  const auto lj = LJParam::make(1, 1, 2.5 + 1e-9, ShiftMode::cut);
  const double rmin = 0.8, dr = 0.002;
  const int n = int(std::lround((2.5 - rmin) / dr)) + 1;
  std::vector<double> u(static_cast<std::size_t>(n)), f(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const double r = rmin + k * dr;
    double fr = 0, e = 0;
    REQUIRE(PairLJ::eval(r * r, lj, fr, e));
    u[std::size_t(k)] = e;
    f[std::size_t(k)] = fr * r;
  }
  std::vector<double> data(2 * std::size_t(n));
  for (int k = 0; k < n; ++k) data[2 * std::size_t(k)] = u[std::size_t(k)], data[2 * std::size_t(k) + 1] = f[std::size_t(k)];
  const double rc = rmin + dr * (n - 1);
  TableParam tp{data.data(), rmin, dr, rc * rc, n};
  check_fd<PairTable>(tp, 0.81, rc - 1e-4);
  for (double r : {0.9, 1.0, 1.12, 1.5, 2.2}) {
    double fr = 0, e = 0, fr_ref = 0, e_ref = 0;
    REQUIRE(PairTable::eval(r * r, tp, fr, e));
    REQUIRE(PairLJ::eval(r * r, lj, fr_ref, e_ref));
    INFO("r = " << r);
    CHECK(std::abs(e - e_ref) < 1e-7);
    CHECK(std::abs(fr - fr_ref) < 1e-5 * (1 + std::abs(fr_ref)));
  }
}

TEST_CASE("Mixed precision evaluators agree with double to float rounding", "[md][pair]") {
  const auto p = LJParam::make(1, 1, 2.5, ShiftMode::force_shift);
  for (double r = 0.9; r < 2.49; r += 0.01) {  // (float r^2 near rc may round past the cut-off)
    double frd = 0, ud = 0;
    float frf = 0, uf = 0;
    REQUIRE(PairLJ::eval(r * r, p, frd, ud));
    REQUIRE(PairLJ::eval(float(r * r), p, frf, uf));
    CHECK(std::abs(frf - frd) <= 1e-5 * (1 + std::abs(frd)));
    CHECK(std::abs(uf - ud) <= 1e-5 * (1 + std::abs(ud)));
  }
}

TEST_CASE("Bonds: harmonic and FENE forces are -dU/dr; FENE diverges at R0", "[md][bond]") {
  check_fd<BondEval>(BondParam{int(BondStyle::harmonic), 50.0, 1.1}, 0.5, 2.0);
  check_fd<BondEval>(BondParam{int(BondStyle::fene), 30.0, 1.5}, 0.3, 1.45);
  double fr, u;
  CHECK_FALSE(BondEval::eval(1.5 * 1.5, BondParam{int(BondStyle::fene), 30.0, 1.5}, fr, u));
  // Kremer-Grest: FENE + WCA has its minimum near r = 0.97 sigma.
  double best = 1e9, rbest = 0;
  for (double r = 0.8; r < 1.2; r += 1e-4) {
    double fb, ub, fp, up;
    BondEval::eval(r * r, BondParam{int(BondStyle::fene), 30.0, 1.5}, fb, ub);
    if (!PairLJ::eval(r * r, LJParam::wca(1, 1), fp, up)) up = 0;
    if (ub + up < best) best = ub + up, rbest = r;
  }
  CHECK(rbest == Approx(0.9609).margin(2e-3));
}

TEST_CASE("Mixing rules", "[md][pair]") {
  double e, s;
  mix(Mixing::lorentz_berthelot, 1.0, 1.0, 4.0, 2.0, e, s);
  CHECK(e == Approx(2.0));
  CHECK(s == Approx(1.5));
  mix(Mixing::geometric, 1.0, 1.0, 4.0, 2.0, e, s);
  CHECK(s == Approx(std::sqrt(2.0)));
}

TEST_CASE("LJ tail corrections match quadrature of the potential beyond rc", "[md][pair][tail]") {
  // Two types; counts and volume arbitrary. E_tail = 2 pi / V sum N_a N_b int_rc^inf r^2 u(r) dr,
  // P_tail = -2 pi / (3 V^2) sum N_a N_b int_rc^inf r^3 u'(r) dr.
  PairPotential pot(tessera::exec::Space::Host, PairStyle::lj, 2);
  const double eps[2] = {1.0, 0.6}, sig[2] = {1.0, 1.3}, rc = 3.0;
  for (int a = 0; a < 2; ++a)
    for (int b = a; b < 2; ++b) {
      double e, s;
      mix(Mixing::lorentz_berthelot, eps[a], sig[a], eps[b], sig[b], e, s);
      pot.set_lj(a, b, LJParam::make(e, s, rc, ShiftMode::cut));
    }
  const std::vector<int64_t> counts = {300, 200};
  const double V = 700.0;
  double es = 0, ps = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const LJParam& p = pot.host_lj()[std::size_t(a * 2 + b)];
      // substitution r = rc / t, t in (0, 1]: int_rc^inf g(r) dr = int_0^1 g(rc/t) rc/t^2 dt (Simpson)
      const int m = 20000;
      double iu = 0, iw = 0;
      for (int k = 0; k <= m; ++k) {
        const double t = std::max(1e-6, double(k) / m), r = rc / t, w = (k == 0 || k == m) ? 1 : (k % 2 ? 4 : 2);
        const double s6 = std::pow(p.sigma / r, 6);
        const double u = 4 * p.eps * (s6 * s6 - s6), du = -(48 * p.eps * s6 * s6 - 24 * p.eps * s6) / r;
        iu += w * r * r * u * rc / (t * t);
        iw += w * r * r * r * du * rc / (t * t);
      }
      iu /= 3.0 * m, iw /= 3.0 * m;
      es += double(counts[std::size_t(a)] * counts[std::size_t(b)]) * iu;
      ps += double(counts[std::size_t(a)] * counts[std::size_t(b)]) * iw;
    }
  CHECK(pot.tail_energy(counts, V) == Approx(2 * std::numbers::pi / V * es).epsilon(1e-8));
  CHECK(pot.tail_pressure(counts, V) == Approx(-2 * std::numbers::pi / (3 * V * V) * ps).epsilon(1e-8));
  // One type, the textbook closed form (Allen & Tildesley): (8/3) pi rho [(1/3) rc^-9 - rc^-3] per atom.
  PairPotential one(tessera::exec::Space::Host, PairStyle::lj, 1);
  one.set_lj(0, 0, LJParam::make(1, 1, 2.5, ShiftMode::cut));
  const double rho = 0.8442, n = 1000;
  const double e_ref = 8.0 / 3.0 * std::numbers::pi * rho * (std::pow(2.5, -9) / 3 - std::pow(2.5, -3));
  CHECK(one.tail_energy({int64_t(n)}, n / rho) / n == Approx(e_ref).epsilon(1e-12));
}
