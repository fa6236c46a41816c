// Helpers for the weather tests: random states on a grid, host/device copies.
#pragma once
#include <exception>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "catch_compat.hpp"

#include "tessera/core/buffer.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_point.hpp"

namespace tessera::weather::test {

inline std::vector<double> random_field(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// A shallow-water state (h, u, v, b) in memory of one kind.
struct SwState {
  Buffer<double> h, u, v, b;
  SwState(const Grid& gr, MemKind mk)
      : h(size_t(gr.size2()), mk), u(size_t(gr.size2()), mk), v(size_t(gr.size2()), mk), b(size_t(gr.size2()), mk) {
    h.zero();
    u.zero();
    v.zero();
    b.zero();
  }
  SwView view() { return SwView{h.data(), u.data(), v.data()}; }
  SwConstView cview() const { return SwConstView{h.data(), u.data(), v.data(), b.data()}; }
};

inline void upload(Buffer<double>& dst, const std::vector<double>& src) {
  Buffer<double> tmp(src.size(), MemKind::Host);
  std::copy(src.begin(), src.end(), tmp.begin());
  copy(dst, tmp);
}
inline std::vector<double> download(const Buffer<double>& src) {
  Buffer<double> tmp(src.size(), MemKind::Host);
  copy(tmp, src);
  return std::vector<double>(tmp.begin(), tmp.end());
}

// Random state: depth h in [8, 12] over topography b in [0, 1], velocities in [-1, 1].
inline void fill_random(SwState& s, const Grid& gr, unsigned seed) {
  const auto n = size_t(gr.size2());
  upload(s.h, random_field(n, 8.0, 12.0, seed));
  upload(s.u, random_field(n, -1.0, 1.0, seed + 1));
  upload(s.v, random_field(n, -1.0, 1.0, seed + 2));
  upload(s.b, random_field(n, 0.0, 1.0, seed + 3));
}

// Maximum of |a - b| over the interior of a 2-D field.
inline double max_diff_interior(const Grid& gr, const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) {
      const auto n = size_t(gr.idx(i, j));
      m = std::max(m, std::abs(a[n] - b[n]));
    }
  return m;
}

using tessera::test::check_knob_refused;

}  // namespace tessera::weather::test
