// The kNoWallNeighbour flag bit (flags.hpp): write_flags() sets it exactly on the interior fluid cells with
// no wall among their lattice neighbours, and the streaming it enables gives the same bits as the general
// path (flags written without the bit, straight to the device/host buffer), on the host and, with the
// tuned CUDA kernel, on the GPU. Likewise kXWallLo / kXWallHi (the x-wall cells, which the tuned odd step
// streams with TESSERA_LBM_XWALL=on: test_lbm_wall_stage).
#include <set>

#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "tessera/core/buffer.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {
template <class L>
void check_bits(bool mixed_x_walls) {
  const GridLayout g = grid_for(L::kind, 13, 11, 9);
  std::vector<uint8_t> fl = random_flags(g, 3);
  if (mixed_x_walls)  // the x - 1 face: ids 2 and 3 by rows, so that some x-face cells see two ids
    for (int64_t k = 0; k < g.pz(); ++k)
      for (int64_t j = 0; j < g.py(); ++j) fl[std::size_t(g.px() * (j + g.py() * k))] = make_wall(j % 4 == 0 ? 2 : 3);
  LatticeState s(L::kind, Precision::FP32, g, exec::Space::Host);
  write_flags(s, fl);
  const std::vector<uint8_t> got = read_flags(s);
  int64_t marked = 0, xmarked = 0;
  for (int64_t c = 0; c < g.cells(); ++c) {
    REQUIRE(geometry_flag(got[std::size_t(c)]) == fl[std::size_t(c)]);  // geometry bits untouched
    if (got[std::size_t(c)] & kNoWallNeighbour) ++marked;
    // Outside the interior (ghost cells) no derived bit.
    if (flag_kind(fl[std::size_t(c)]) == kFluid && !(got[std::size_t(c)] & kNoWallNeighbour) &&
        (got[std::size_t(c)] & (kXWallLo | kXWallHi)))
      ++xmarked;
  }
  int64_t xexpected = 0;
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        const bool fluid = flag_kind(fl[std::size_t(c)]) == kFluid;
        bool free = fluid;
        // The x-wall classes, spelled out: side s (0: x - 1, 1: x + 1) has every link with c_x = +1 (-1)
        // from a wall, all of one id, and no other link comes from a wall.
        int walls_at[2] = {0, 0}, others = 0;
        std::set<int> ids[2];
        for (int q = 1; q < L::Q; ++q) {
          const uint8_t w = fl[std::size_t(c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)))];
          if (flag_kind(w) != kWall) continue;
          free = false;
          if (L::c(q, 0) == 0) {
            ++others;
          } else {
            const int sd = L::c(q, 0) > 0 ? 0 : 1;
            ++walls_at[sd];
            ids[sd].insert(flag_wall_id(w));
          }
        }
        const int per_side = L::D == 3 ? (L::Q == 19 ? 5 : 9) : 0;
        const bool lo = fluid && L::D == 3 && others == 0 && walls_at[1] == 0 && walls_at[0] == per_side && ids[0].size() == 1;
        const bool hi = fluid && L::D == 3 && others == 0 && walls_at[0] == 0 && walls_at[1] == per_side && ids[1].size() == 1;
        const uint8_t f = got[std::size_t(c)];
        REQUIRE(bool(f & kNoWallNeighbour) == free);
        if (flag_kind(f) != kFluid) continue;  // bits 2-5 are the wall id or the open face there
        REQUIRE(bool(f & kXWallLo) == lo);
        REQUIRE(bool(f & kXWallHi) == hi);
        xexpected += lo || hi;
      }
  CHECK(marked > 0);  // the random geometry has both kinds of fluid cells
  REQUIRE(xmarked == xexpected);
  REQUIRE(s.x_wall_cells() == xexpected);
  if (L::D == 3) CHECK(xexpected > 0);  // and cells on the x faces of either class
}

// Populations after `steps` steps with the flag bit (fast streaming) or without it (general path).
std::vector<double> run(LatticeKind k, Precision pr, exec::Space sp, KernelPath path, bool with_bit) {
  const GridLayout g = grid_for(k, 33, 10, 7);
  const std::vector<uint8_t> fl = random_flags(g, 8);
  LatticeState s(k, pr, g, sp);
  if (with_bit)
    write_flags(s, fl);
  else
    copy_n(s.flags(), s.memkind(), fl.data(), MemKind::Host, fl.size());
  switch (k) {
    case LatticeKind::D2Q9: write_slots(s, random_pops<D2Q9>(g, 4)); break;
    case LatticeKind::D3Q19: write_slots(s, random_pops<D3Q19>(g, 4)); break;
    case LatticeKind::D3Q27: write_slots(s, random_pops<D3Q27>(g, 4)); break;
  }
  const exec::Exec ex(sp);
  const CollisionParams p = test_params(CollisionKind::TRT);
  for (int t = 0; t < 4; ++t) stream_collide(ex, s, p, path);
  exec::fence(ex);
  return read_slots(s);
}
}  // namespace

TEST_CASE("write_flags marks the cells without a wall neighbour and the x-wall cells", "[lbm]") {
  for (bool mixed : {false, true}) {
    check_bits<D2Q9>(mixed);
    check_bits<D3Q19>(mixed);
    check_bits<D3Q27>(mixed);
  }
}

TEST_CASE("streaming without neighbour flags equals the general path bit for bit (host)", "[lbm]") {
  for (LatticeKind k : {LatticeKind::D2Q9, LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP64, Precision::FP16}) {
      INFO(to_string(k) << " " << to_string(pr));
      REQUIRE(run(k, pr, exec::Space::Host, KernelPath::Reference, true) ==
              run(k, pr, exec::Space::Host, KernelPath::Reference, false));
    }
}

TEST_CASE("tuned kernel: streaming without neighbour flags equals the general path bit for bit", "[gpu][lbm]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16}) {
      INFO(to_string(k) << " " << to_string(pr));
      REQUIRE(run(k, pr, exec::Space::Device, KernelPath::Tuned, true) ==
              run(k, pr, exec::Space::Device, KernelPath::Tuned, false));
    }
}
