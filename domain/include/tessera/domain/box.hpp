// Int3 and Box3: 64-bit 3-D index arithmetic for decomposition, ghost regions and halo planning.
//
// A Box3 is the half-open set [lo, hi) of cells along each axis; x (axis 0) varies fastest in memory
// everywhere in Tessera. 2-D problems use an extent of 1 along z. Everything here is TESSERA_HD so
// kernels can use it too.
#pragma once
#include <cstdint>
#include <string>

#include "tessera/core/config_macros.hpp"

namespace tessera::domain {

struct Int3 {
  int64_t x = 0, y = 0, z = 0;

  TESSERA_HD constexpr int64_t& operator[](int a) { return a == 0 ? x : (a == 1 ? y : z); }
  TESSERA_HD constexpr const int64_t& operator[](int a) const { return a == 0 ? x : (a == 1 ? y : z); }
  TESSERA_HD constexpr int64_t product() const { return x * y * z; }
  TESSERA_HD friend constexpr Int3 operator+(Int3 a, Int3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  TESSERA_HD friend constexpr Int3 operator-(Int3 a, Int3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  TESSERA_HD friend constexpr Int3 operator*(int64_t s, Int3 a) { return {s * a.x, s * a.y, s * a.z}; }
  TESSERA_HD friend constexpr bool operator==(Int3 a, Int3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
  TESSERA_HD friend constexpr bool operator!=(Int3 a, Int3 b) { return !(a == b); }
};

TESSERA_HD constexpr Int3 min3(Int3 a, Int3 b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
TESSERA_HD constexpr Int3 max3(Int3 a, Int3 b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}

struct Box3 {
  Int3 lo{};  // first cell
  Int3 hi{};  // one past the last cell

  TESSERA_HD static constexpr Box3 from_size(Int3 lo, Int3 size) { return {lo, lo + size}; }

  TESSERA_HD constexpr Int3 size() const {
    return {hi.x > lo.x ? hi.x - lo.x : 0, hi.y > lo.y ? hi.y - lo.y : 0, hi.z > lo.z ? hi.z - lo.z : 0};
  }
  TESSERA_HD constexpr int64_t volume() const { return size().product(); }
  TESSERA_HD constexpr bool empty() const { return hi.x <= lo.x || hi.y <= lo.y || hi.z <= lo.z; }

  TESSERA_HD constexpr bool contains(Int3 p) const {
    return p.x >= lo.x && p.x < hi.x && p.y >= lo.y && p.y < hi.y && p.z >= lo.z && p.z < hi.z;
  }
  // An empty box is contained in every box.
  TESSERA_HD constexpr bool contains(const Box3& b) const {
    return b.empty() || (b.lo.x >= lo.x && b.hi.x <= hi.x && b.lo.y >= lo.y && b.hi.y <= hi.y &&
                         b.lo.z >= lo.z && b.hi.z <= hi.z);
  }
  // Intersection; empty (volume 0) when the boxes do not overlap.
  TESSERA_HD constexpr Box3 intersect(const Box3& b) const { return {max3(lo, b.lo), min3(hi, b.hi)}; }
  TESSERA_HD constexpr Box3 shift(Int3 d) const { return {lo + d, hi + d}; }
  // Grow by g cells on both sides along each axis (negative g shrinks).
  TESSERA_HD constexpr Box3 grow(Int3 g) const { return {lo - g, hi + g}; }
  TESSERA_HD constexpr Box3 grow(int64_t g) const { return grow(Int3{g, g, g}); }

  // Linear offset of p inside this box, x fastest: (p.x-lo.x) + nx*((p.y-lo.y) + ny*(p.z-lo.z)).
  TESSERA_HD constexpr int64_t linear(Int3 p) const {
    const Int3 s = size();
    return (p.x - lo.x) + s.x * ((p.y - lo.y) + s.y * (p.z - lo.z));
  }
  // Inverse of linear(): the cell at linear offset n (0 <= n < volume()).
  TESSERA_HD constexpr Int3 cell(int64_t n) const {
    const Int3 s = size();
    const int64_t i = n % s.x;
    const int64_t r = n / s.x;
    return {lo.x + i, lo.y + r % s.y, lo.z + r / s.y};
  }

  TESSERA_HD friend constexpr bool operator==(const Box3& a, const Box3& b) { return a.lo == b.lo && a.hi == b.hi; }
  TESSERA_HD friend constexpr bool operator!=(const Box3& a, const Box3& b) { return !(a == b); }
};

// Serial host loop over every cell of b, x fastest: f(Int3 p). For kernels use exec::parallel_for
// with Range3{b.size()...} and offset by b.lo.
template <class F>
void for_each_cell(const Box3& b, F&& f) {
  for (int64_t k = b.lo.z; k < b.hi.z; ++k)
    for (int64_t j = b.lo.y; j < b.hi.y; ++j)
      for (int64_t i = b.lo.x; i < b.hi.x; ++i) f(Int3{i, j, k});
}

std::string to_string(Int3 p);
std::string to_string(const Box3& b);  // "[lo.x,hi.x)x[lo.y,hi.y)x[lo.z,hi.z)"

}  // namespace tessera::domain
