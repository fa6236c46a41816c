// The 26 neighbour directions of a cell block: faces (6), edges (12) and corners (8).
//
// A direction is an offset d in {-1,0,1}^3 \ {0}. Its index is (dx+1) + 3(dy+1) + 9(dz+1), so the
// opposite direction of index n is 26 - n and index 13 is the block itself (not a direction).
#pragma once
#include <array>

#include "tessera/domain/box.hpp"

namespace tessera::domain {

inline constexpr int kNumDirIndices = 27;  // including the centre, index 13
inline constexpr int kCentre = 13;

TESSERA_HD constexpr int dir_index(Int3 d) { return int((d.x + 1) + 3 * (d.y + 1) + 9 * (d.z + 1)); }
TESSERA_HD constexpr Int3 dir_offset(int n) { return {n % 3 - 1, (n / 3) % 3 - 1, n / 9 - 1}; }
TESSERA_HD constexpr int dir_opposite(int n) { return 26 - n; }
// Number of non-zero components: 1 = face, 2 = edge, 3 = corner.
TESSERA_HD constexpr int dir_order(int n) {
  const Int3 d = dir_offset(n);
  return (d.x != 0) + (d.y != 0) + (d.z != 0);
}

// The 26 direction indices (faces_only: the 6 faces), in increasing index order.
inline std::array<int, 26> all_directions() {
  std::array<int, 26> r{};
  int m = 0;
  for (int n = 0; n < kNumDirIndices; ++n)
    if (n != kCentre) r[size_t(m++)] = n;
  return r;
}
inline std::array<int, 6> face_directions() { return {4, 10, 12, 14, 16, 22}; }

}  // namespace tessera::domain
