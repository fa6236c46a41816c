// The kNoWallNeighbour flag bit (flags.hpp): write_flags() sets it exactly on the interior fluid cells with
// no wall among their lattice neighbours, and the streaming it enables gives the same bits as the general
// path (flags written without the bit, straight to the device/host buffer), on the host and, with the
// tuned CUDA kernel, on the GPU. Likewise the face of a face cell (flag_face: the tuned odd step streams
// such cells with TESSERA_LBM_FACE_CELLS=on: test_lbm_wall_stage).
#include <set>

#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "tessera/core/buffer.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {
// random_flags (10 % interior walls), or with mixed_x_walls (3-D) a sparser geometry (scattered_flags, 1
// in 40) whose x - 1 face has walls of ids 2 and 3 by rows, so that some x-face cells see two ids.
template <class L>
void check_bits(bool mixed_x_walls) {
  const GridLayout g = grid_for(L::kind, 13, 11, 9);
  std::vector<uint8_t> fl = mixed_x_walls ? scattered_flags(g, true, 3, 40, 1, 0) : random_flags(g, 3);
  if (mixed_x_walls)
    for (int64_t k = 0; k < g.pz(); ++k)
      for (int64_t j = 0; j < g.py(); ++j) fl[std::size_t(g.px() * (j + g.py() * k))] = make_wall(j % 4 == 0 ? 2 : 3);
  LatticeState s(L::kind, Precision::FP32, g, exec::Space::Host);
  write_flags(s, fl);
  const std::vector<uint8_t> got = read_flags(s);
  int64_t marked = 0, fmarked = 0;
  for (int64_t c = 0; c < g.cells(); ++c) {
    REQUIRE(geometry_flag(got[std::size_t(c)]) == fl[std::size_t(c)]);  // geometry bits untouched
    if (got[std::size_t(c)] & kNoWallNeighbour) ++marked;
    if (flag_face(got[std::size_t(c)]) != 0) ++fmarked;  // ghost cells included: none there
  }
  int64_t fexpected = 0;
  std::set<int> seen;
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        const bool fluid = flag_kind(fl[std::size_t(c)]) == kFluid;
        bool free = fluid;
        // The faces, spelled out: face 1 + 2a + s when the walls among the cell's neighbours are the
        // neighbours at x_a - 1 (s = 0) or x_a + 1 (s = 1), all of them, of one wall id.
        std::set<int64_t> wall_cells;
        std::set<int> ids;
        for (int q = 1; q < L::Q; ++q) {
          const int64_t nb = c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
          if (flag_kind(fl[std::size_t(nb)]) != kWall) continue;
          free = false;
          wall_cells.insert(nb);
          ids.insert(flag_wall_id(fl[std::size_t(nb)]));
        }
        int face = 0;
        for (int a = 0; a < L::D && L::D == 3 && fluid && ids.size() == 1; ++a)
          for (int sd = 0; sd < 2; ++sd) {
            std::set<int64_t> across;  // the lattice neighbours at x_a - 1 (sd = 0) or x_a + 1
            for (int q = 1; q < L::Q; ++q)
              if (L::c(q, a) == (sd == 0 ? -1 : 1))
                across.insert(c + g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
            if (across == wall_cells) face = 1 + 2 * a + sd;
          }
        const uint8_t f = got[std::size_t(c)];
        REQUIRE(bool(f & kNoWallNeighbour) == free);
        REQUIRE(flag_face(f) == face);
        if (face) {
          ++fexpected;
          seen.insert(face);
        }
      }
  CHECK(marked > 0);  // the random geometry has both kinds of fluid cells
  REQUIRE(fmarked == fexpected);
  REQUIRE(s.face_cells() == fexpected);
  if (L::D == 3) REQUIRE(seen.size() == 6);  // and cells on every face
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

TEST_CASE("write_flags marks the cells without a wall neighbour and the face cells", "[lbm]") {
  check_bits<D2Q9>(false);
  for (bool mixed : {false, true}) {
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
