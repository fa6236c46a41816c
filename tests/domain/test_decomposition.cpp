// Decomposition: uneven splits tile the grid, neighbours are mutual and geometrically right, owner()
// agrees with the boxes, bad decompositions are refused with a useful message. Runs on 1-6 ranks.
#include <mpi.h>

#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/error.hpp"
#include "tessera/domain/decomposition.hpp"
#include "tessera/domain/reduce.hpp"

using namespace tessera::domain;

namespace {
int world_size() { return tessera::test::mpi_size(); }

// The message of the tessera::Error that f throws ("" if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}
#define CHECK_ERROR_CONTAINS(expr, text)                        \
  do {                                                          \
    const std::string msg_ = error_of([&] { (void)(expr); });   \
    INFO("error: " << msg_);                                    \
    CHECK(msg_.find(text) != std::string::npos);                \
  } while (0)

// Every rank's 27-entry neighbour table, gathered to all ranks.
std::vector<int> all_neighbours(const Decomposition& d) {
  std::vector<int> mine(kNumDirIndices), all(size_t(kNumDirIndices * d.size()));
  for (int n = 0; n < kNumDirIndices; ++n) mine[size_t(n)] = d.neighbor(n);
  MPI_Allgather(mine.data(), kNumDirIndices, MPI_INT, all.data(), kNumDirIndices, MPI_INT, d.comm());
  return all;
}

void check_decomposition(const DecompositionSpec& spec) {
  const Decomposition d(MPI_COMM_WORLD, spec);
  INFO(d.describe());
  const Int3 N = d.global();
  REQUIRE(d.dims()[0] * d.dims()[1] * d.dims()[2] == d.size());
  for (int a = 0; a < 3; ++a)
    if (N[a] == 1) CHECK(d.dims()[size_t(a)] == 1);  // axes of one cell are never split
  int topo = 0;
  MPI_Topo_test(d.comm(), &topo);
  CHECK(topo == MPI_CART);
  CHECK(d.local_box() == d.box_of(d.rank()));

  // The boxes tile the global grid: inside it, pairwise disjoint, volumes sum to the total, and each
  // axis split is uneven by at most one cell with the larger parts first.
  int64_t total = 0;
  for (int r = 0; r < d.size(); ++r) {
    const Box3 b = d.box_of(r);
    CHECK(d.global_box().contains(b));
    CHECK(b.volume() >= 1);
    total += b.volume();
    for (int s = r + 1; s < d.size(); ++s) CHECK(b.intersect(d.box_of(s)).empty());
    for (int a = 0; a < 3; ++a) {
      if (d.axis_active(a)) CHECK(b.size()[a] >= d.ghost());
      CHECK((b.size()[a] == N[a] / d.dims()[size_t(a)] || b.size()[a] == N[a] / d.dims()[size_t(a)] + 1));
    }
  }
  CHECK(total == d.global_box().volume());
  CHECK(sum_over_ranks(d, d.local_box().volume()) == total);
  CHECK(max_over_ranks(d, d.local_box().volume()) >= min_over_ranks(d, d.local_box().volume()));

  // owner() agrees with the boxes for every cell.
  int64_t bad_owner = 0;
  for (int r = 0; r < d.size(); ++r)
    for_each_cell(d.box_of(r), [&](Int3 p) { bad_owner += d.owner(p) != r; });
  CHECK(bad_owner == 0);
  CHECK_ERROR_CONTAINS(d.owner(N), "outside the global grid");

  // Neighbours: the owner of the cell just beyond a box corner/edge/face (wrapped along periodic
  // axes), MPI_PROC_NULL beyond a wall, and mutual: r's neighbour in d has r as neighbour in -d.
  const auto nb = all_neighbours(d);
  int64_t bad_geom = 0, bad_mutual = 0;
  for (int r = 0; r < d.size(); ++r) {
    const Box3 b = d.box_of(r);
    for (int n : all_directions()) {
      const Int3 o = dir_offset(n);
      Int3 p;
      bool wall = false;
      for (int a = 0; a < 3; ++a) {
        p[a] = o[a] < 0 ? b.lo[a] - 1 : (o[a] > 0 ? b.hi[a] : b.lo[a]);
        if (p[a] < 0 || p[a] >= N[a]) {
          wall |= !d.periodic(a);
          p[a] = (p[a] + N[a]) % N[a];
        }
      }
      const int got = nb[size_t(r * kNumDirIndices + n)];
      bad_geom += got != (wall ? MPI_PROC_NULL : d.owner(p));
      if (got != MPI_PROC_NULL) bad_mutual += nb[size_t(got * kNumDirIndices + dir_opposite(n))] != r;
    }
  }
  CHECK(bad_geom == 0);
  CHECK(bad_mutual == 0);
}
}  // namespace

TEST_CASE("split_axis: uneven splits sum to the extent, first parts larger; part_of inverts it", "[decomp]") {
  for (int64_t n : {1, 2, 7, 19, 23, 37, 100, 101}) {
    for (int p = 1; p <= 8 && p <= n; ++p) {
      int64_t sum = 0, expect_off = 0, bad = 0;
      for (int q = 0; q < p; ++q) {
        const Span s = split_axis(n, p, q);
        bad += s.offset != expect_off;
        bad += (q < n % p) ? s.size != n / p + 1 : s.size != n / p;
        for (int64_t i = s.offset; i < s.offset + s.size; ++i) bad += part_of(n, p, i) != q;
        expect_off += s.size;
        sum += s.size;
      }
      INFO("n=" << n << " p=" << p);
      CHECK(sum == n);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("choose_rank_grid: extent-1 axes stay 1, largest factors on the longest axes", "[decomp]") {
  const auto a = choose_rank_grid(12, Int3{100, 50, 25});
  CHECK((a == std::array<int, 3>{3, 2, 2}));
  const auto b = choose_rank_grid(6, Int3{10, 100, 20});
  CHECK((b == std::array<int, 3>{1, 3, 2}));
  const auto c = choose_rank_grid(6, Int3{37, 23, 1});
  CHECK((c == std::array<int, 3>{3, 2, 1}));
  const auto e = choose_rank_grid(8, Int3{1, 64, 64}, {0, 0, 2});
  CHECK((e == std::array<int, 3>{1, 4, 2}));
}

TEST_CASE("decompositions tile the grid with mutual neighbours", "[decomp][mpi]") {
  const int P = world_size();
  SECTION("37x23x19 periodic everywhere, ghost 1") { check_decomposition({{37, 23, 19}, {true, true, true}, 1}); }
  SECTION("37x23x19 walled, ghost 2") { check_decomposition({{37, 23, 19}, {false, false, false}, 2}); }
  SECTION("37x23x19 mixed periodicity") { check_decomposition({{37, 23, 19}, {true, false, true}, 2}); }
  SECTION("2-D 37x23x1") { check_decomposition({{37, 23, 1}, {false, true, false}, 1}); }
  SECTION("given rank grid along z") { check_decomposition({{13, 11, 19}, {true, false, true}, 2, {1, 1, P}}); }
  SECTION("partly given rank grid") { check_decomposition({{13, 24, 19}, {false, true, false}, 1, {1, 0, 0}}); }
}

TEST_CASE("bad decompositions are refused with a message saying what to change", "[decomp][mpi]") {
  const int P = world_size();
  // A periodic axis of one cell cannot carry a ghost layer of width 2, on any rank count.
  CHECK_ERROR_CONTAINS(Decomposition(MPI_COMM_WORLD, {{1, 8, 8}, {true, false, false}, 2}), "fewer than the ghost width 2");
  if (P >= 2) {
    // (2P-1)/P = 1 cell on some ranks < ghost 2
    CHECK_ERROR_CONTAINS(Decomposition(MPI_COMM_WORLD, {{2 * P - 1, 4, 4}, {false, false, false}, 2, {P, 1, 1}}), "Use fewer ranks along x");
    // more ranks than cells
    CHECK_ERROR_CONTAINS(Decomposition(MPI_COMM_WORLD, {{P - 1, 4, 4}, {false, false, false}, 0, {P, 1, 1}}), "cannot be split");
  }
  CHECK_ERROR_CONTAINS(Decomposition(MPI_COMM_WORLD, {{8, 8, 8}, {false, false, false}, 1, {P + 1, 1, 1}}), "whose product is");
  CHECK_ERROR_CONTAINS(Decomposition(MPI_COMM_WORLD, {{8, 0, 8}, {false, false, false}, 1}), "at least 1");
}
