// The kNoWallNeighbour flag bit (flags.hpp): write_flags() sets it exactly on the interior fluid cells with
// no wall among their lattice neighbours, and the streaming it enables gives the same bits as the general
// path (flags written without the bit, straight to the device/host buffer), on the host and, with the
// tuned CUDA kernel, on the GPU.
#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "tessera/core/buffer.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {
template <class L>
void check_bits() {
  const GridLayout g = grid_for(L::kind, 13, 11, 9);
  const std::vector<uint8_t> fl = random_flags(g, 3);
  LatticeState s(L::kind, Precision::FP32, g, exec::Space::Host);
  write_flags(s, fl);
  const std::vector<uint8_t> got = read_flags(s);
  int64_t marked = 0;
  for (int64_t c = 0; c < g.cells(); ++c) {
    REQUIRE((got[std::size_t(c)] & ~kNoWallNeighbour) == fl[std::size_t(c)]);  // geometry bits untouched
    if (got[std::size_t(c)] & kNoWallNeighbour) ++marked;
  }
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        bool free = flag_kind(fl[std::size_t(c)]) == kFluid;
        for (int q = 1; q < L::Q; ++q)
          free = free && flag_kind(fl[std::size_t(c + g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)))]) != kWall;
        REQUIRE(bool(got[std::size_t(c)] & kNoWallNeighbour) == free);
      }
  CHECK(marked > 0);  // the random geometry has both kinds of fluid cells
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

TEST_CASE("write_flags marks the cells without a wall neighbour", "[lbm]") {
  check_bits<D2Q9>();
  check_bits<D3Q19>();
  check_bits<D3Q27>();
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
