// Philox4x32-10 counter-based random numbers (Salmon, Moraes, Dror & Shaw, "Parallel random numbers:
// as easy as 1, 2, 3", SC'11). A counter (here: step and particle id) and a key (the seed) map to four
// independent 32-bit words, so a thermostat kick depends only on (seed, id, step): the same on any
// rank count, in any particle order, on host or device, and after a restart.
#pragma once
#include <cmath>
#include <cstdint>

#include "tessera/core/config_macros.hpp"

namespace tessera::md {

struct Philox4x32 {
  uint32_t v[4];
};

TESSERA_HD inline void philox_mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = uint64_t(a) * uint64_t(b);
  hi = uint32_t(p >> 32);
  lo = uint32_t(p);
}

// Ten rounds of the Philox4x32 bijection (constants from the paper, table 2).
TESSERA_HD inline Philox4x32 philox4x32_10(Philox4x32 c, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    uint32_t hi0, lo0, hi1, lo1;
    philox_mulhilo(0xD2511F53u, c.v[0], hi0, lo0);
    philox_mulhilo(0xCD9E8D57u, c.v[2], hi1, lo1);
    c = Philox4x32{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

// Uniform in (0, 1): 32 random bits with a half-step offset, never 0 or 1 (safe for log).
TESSERA_HD inline double philox_uniform(uint32_t w) { return (double(w) + 0.5) * (1.0 / 4294967296.0); }

// Three standard normal numbers for particle `id` at `step`, stream `stream` (Box-Muller).
TESSERA_HD inline void philox_normal3(uint64_t seed, uint64_t id, uint64_t step, uint32_t stream, double g[3]) {
  const Philox4x32 c{{uint32_t(step), uint32_t(step >> 32) ^ (stream << 16), uint32_t(id), uint32_t(id >> 32)}};
  const Philox4x32 r = philox4x32_10(c, uint32_t(seed), uint32_t(seed >> 32));
  const double two_pi = 6.283185307179586476925286766559;
  const double a = sqrt(-2.0 * std::log(philox_uniform(r.v[0])));
  const double b = sqrt(-2.0 * std::log(philox_uniform(r.v[2])));
  g[0] = a * cos(two_pi * philox_uniform(r.v[1]));
  g[1] = a * sin(two_pi * philox_uniform(r.v[1]));
  g[2] = b * cos(two_pi * philox_uniform(r.v[3]));
}

}  // namespace tessera::md
