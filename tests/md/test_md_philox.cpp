// Philox4x32-10: known-answer vectors of the Random123 distribution (kat_vectors) and the moments of
// the Gaussian numbers built on it.
#include <cmath>

#include "catch_compat.hpp"
#include "tessera/md/philox.hpp"

using namespace tessera::md;

TEST_CASE("Philox4x32-10 known-answer vectors", "[md][rng]") {
  auto r = philox4x32_10(Philox4x32{{0, 0, 0, 0}}, 0, 0);
  CHECK(r.v[0] == 0x6627e8d5u);
  CHECK(r.v[1] == 0xe169c58du);
  CHECK(r.v[2] == 0xbc57ac4cu);
  CHECK(r.v[3] == 0x9b00dbd8u);
  r = philox4x32_10(Philox4x32{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu);
  CHECK(r.v[0] == 0x408f276du);
  CHECK(r.v[1] == 0x41c83b0eu);
  CHECK(r.v[2] == 0xa20bc7c6u);
  CHECK(r.v[3] == 0x6d5451fdu);
  r = philox4x32_10(Philox4x32{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u);
  CHECK(r.v[0] == 0xd16cfe09u);
  CHECK(r.v[1] == 0x94fdccebu);
  CHECK(r.v[2] == 0x5001e420u);
  CHECK(r.v[3] == 0x24126ea1u);
}

TEST_CASE("Gaussian numbers keyed by (id, step) have mean 0, variance 1, no correlation", "[md][rng]") {
  // Statistical test: with n = 3e5 samples, 5 sigma bounds on mean (1/sqrt(n)) and variance (sqrt(2/n)).
  const int n_id = 1000, n_step = 100;
  double s1 = 0, s2 = 0, s4 = 0, c01 = 0;
  for (int id = 0; id < n_id; ++id)
    for (int st = 0; st < n_step; ++st) {
      double g[3];
      philox_normal3(12345, uint64_t(id), uint64_t(st), 0, g);
      for (double x : g) s1 += x, s2 += x * x, s4 += x * x * x * x;
      c01 += g[0] * g[1];
    }
  const double n = 3.0 * n_id * n_step;
  CHECK(std::abs(s1 / n) < 5 / std::sqrt(n));
  CHECK(std::abs(s2 / n - 1) < 5 * std::sqrt(2 / n));
  CHECK(std::abs(s4 / n - 3) < 5 * std::sqrt(96 / n));  // fourth moment of N(0,1) is 3, variance 96
  CHECK(std::abs(c01 / (n / 3)) < 5 / std::sqrt(n / 3));
  // Determinism: the same key gives the same numbers; another step gives others.
  double a[3], b[3], c[3];
  philox_normal3(7, 42, 1000, 0, a);
  philox_normal3(7, 42, 1000, 0, b);
  philox_normal3(7, 42, 1001, 0, c);
  CHECK(a[0] == b[0]);
  CHECK(a[0] != c[0]);
}
