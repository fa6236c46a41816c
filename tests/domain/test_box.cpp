// Box3 / Int3 arithmetic and the direction table.
#include "catch_compat.hpp"
#include "tessera/domain/box.hpp"
#include "tessera/domain/direction.hpp"

using namespace tessera::domain;

TEST_CASE("box volume, intersect, shift, contains", "[box]") {
  const Box3 a{{0, 0, 0}, {4, 5, 6}};
  CHECK(a.volume() == 120);
  CHECK((a.size() == Int3{4, 5, 6}));
  const Box3 b{{2, -1, 3}, {7, 3, 4}};
  const Box3 c = a.intersect(b);
  CHECK((c == Box3{{2, 0, 3}, {4, 3, 4}}));
  CHECK(c.volume() == 2 * 3 * 1);
  CHECK(a.contains(c));
  CHECK(b.contains(c));
  CHECK_FALSE(a.contains(b));
  // disjoint boxes intersect to an empty box, which every box contains
  const Box3 far = a.shift({10, 0, 0});
  CHECK(a.intersect(far).empty());
  CHECK(a.intersect(far).volume() == 0);
  CHECK(far.contains(a.intersect(far)));
  CHECK((far.lo == Int3{10, 0, 0}));
  CHECK((a.grow(1) == Box3{{-1, -1, -1}, {5, 6, 7}}));
  CHECK((a.grow(Int3{1, 0, 2}).volume() == 6 * 5 * 10));
  CHECK((a.contains(Int3{3, 4, 5})));
  CHECK_FALSE((a.contains(Int3{4, 0, 0})));
  CHECK_FALSE((a.contains(Int3{0, -1, 0})));
  CHECK(to_string(c) == "[2,4)x[0,3)x[3,4)");
}

TEST_CASE("box linear index and cell are inverse, x fastest", "[box]") {
  const Box3 b{{-2, 3, 1}, {5, 7, 4}};
  int64_t n = 0, bad = 0;
  for_each_cell(b, [&](Int3 p) {
    bad += b.linear(p) != n;
    bad += b.cell(n) != p;
    ++n;
  });
  CHECK(n == b.volume());
  CHECK(bad == 0);
  CHECK((b.linear(Int3{-1, 3, 1}) == 1));   // x fastest
  CHECK((b.linear(Int3{-2, 4, 1}) == 7));   // then y
  CHECK((b.linear(Int3{-2, 3, 2}) == 28));  // then z
}

TEST_CASE("26 directions: index, offset, opposite, order", "[box]") {
  int faces = 0, edges = 0, corners = 0;
  for (int n : all_directions()) {
    const Int3 d = dir_offset(n);
    CHECK(dir_index(d) == n);
    CHECK((dir_offset(dir_opposite(n)) == Int3{-d.x, -d.y, -d.z}));
    faces += dir_order(n) == 1;
    edges += dir_order(n) == 2;
    corners += dir_order(n) == 3;
  }
  CHECK(faces == 6);
  CHECK(edges == 12);
  CHECK(corners == 8);
  for (int n : face_directions()) CHECK(dir_order(n) == 1);
  CHECK((dir_offset(kCentre) == Int3{0, 0, 0}));
}
