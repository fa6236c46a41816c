// stream_collide_box: a step split into disjoint sub-boxes, launched in a shuffled order and closed with
// end_step(), equals one whole-box stream_collide() bit for bit (every slot of every padded cell, ghosts
// included), for even and odd steps. Host: the portable kernel for every lattice, precision and collision
// model. [gpu]: the portable kernel on the device and the tuned CUDA kernel, whose sub-box launch has
// its own index mapping (flat for thin x slabs, 3-D grid otherwise).
#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "catch_compat.hpp"
#include "lbm_test_util.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {

// Ghosts along x are fluid (the slots a halo exchange would fill: odd steps read and write them), the
// other ghosts walls; ~10% random interior walls.
std::vector<uint8_t> flags_with_open_x(const GridLayout& g, unsigned seed) {
  std::vector<uint8_t> fl = lbm::test::random_flags(g, seed);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 1; j < g.py() - 1; ++j)
      for (int64_t i : {int64_t(0), g.px() - 1}) {
        const bool zghost = g.gz && (k == 0 || k == g.pz() - 1);
        if (!zghost) fl[std::size_t(i + g.px() * (j + g.py() * k))] = kFluid;
      }
  return fl;
}

// Cuts [0, n) at 1, n - 1 and one random point: thin slabs next to each side (the overlap's shell) and
// thick blocks; the product over the three axes, shuffled.
std::vector<CellBox> random_partition(const GridLayout& g, std::mt19937& rng) {
  std::vector<int64_t> cuts[3];
  const int64_t n[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a) {
    cuts[a] = {0, n[a]};
    if (n[a] > 2) cuts[a].insert(cuts[a].end(), {int64_t(1), n[a] - 1, 1 + int64_t(rng() % uint64_t(n[a] - 2))});
    std::sort(cuts[a].begin(), cuts[a].end());
    cuts[a].erase(std::unique(cuts[a].begin(), cuts[a].end()), cuts[a].end());
  }
  std::vector<CellBox> boxes;
  for (std::size_t z = 0; z + 1 < cuts[2].size(); ++z)
    for (std::size_t y = 0; y + 1 < cuts[1].size(); ++y)
      for (std::size_t x = 0; x + 1 < cuts[0].size(); ++x)
        boxes.push_back(CellBox{{cuts[0][x], cuts[1][y], cuts[2][z]}, {cuts[0][x + 1], cuts[1][y + 1], cuts[2][z + 1]}});
  std::shuffle(boxes.begin(), boxes.end(), rng);
  return boxes;
}

template <class L>
std::vector<double> pops_for(const GridLayout& g, unsigned seed) {
  return lbm::test::random_pops<L>(g, seed);
}

std::vector<double> random_state(LatticeKind k, const GridLayout& g, unsigned seed) {
  switch (k) {
    case LatticeKind::D2Q9: return pops_for<D2Q9>(g, seed);
    case LatticeKind::D3Q19: return pops_for<D3Q19>(g, seed);
    default: return pops_for<D3Q27>(g, seed);
  }
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Three steps (even, odd, even), whole vs split, compared after each.
void check_split(LatticeKind k, Precision pr, CollisionKind ck, exec::Space space, KernelPath path) {
  const GridLayout g = lbm::test::grid_for(k, 131, 9, 7);  // x > one 128-thread block: two blocks per row
  const std::vector<uint8_t> fl = flags_with_open_x(g, 11);
  const std::vector<double> f0 = random_state(k, g, 5);
  const CollisionParams p = lbm::test::test_params(ck, 0.1);
  LatticeState whole(k, pr, g, space), split(k, pr, g, space);
  for (LatticeState* s : {&whole, &split}) {
    write_flags(*s, fl);
    write_slots(*s, f0);
  }
  std::mt19937 rng(7);
  const exec::Exec ex(space);
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    stream_collide(ex, whole, p, path);
    for (const CellBox& b : random_partition(g, rng)) stream_collide_box(ex, split, p, b, path);
    end_step(split);
    exec::fence(ex);
    REQUIRE(whole.parity == split.parity);
    REQUIRE(whole.step == split.step);
    const std::vector<double> a = read_slots(whole), b = read_slots(split);
    REQUIRE(same_bits(a, b));
    REQUIRE(!same_bits(a, f0));  // the step changed something
  }
}

const LatticeKind kLattices[] = {LatticeKind::D2Q9, LatticeKind::D3Q19, LatticeKind::D3Q27};
const Precision kPrecisions[] = {Precision::FP64, Precision::FP32, Precision::FP16};
const CollisionKind kCollisions[] = {CollisionKind::BGK, CollisionKind::TRT, CollisionKind::Regularized};

}  // namespace

TEST_CASE("lbm: a step split into sub-boxes equals the whole-box step bit for bit (host)", "[lbm][overlap]") {
  for (LatticeKind k : kLattices)
    for (Precision pr : kPrecisions)
      for (CollisionKind ck : kCollisions) {
        INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck));
        check_split(k, pr, ck, exec::Space::Host, KernelPath::Reference);
      }
}

TEST_CASE("lbm: sub-box arguments are checked", "[lbm][overlap]") {
  const GridLayout g = lbm::test::grid_for(LatticeKind::D3Q19, 6, 5, 4);
  LatticeState s(LatticeKind::D3Q19, Precision::FP32, g, exec::Space::Host);
  const CollisionParams p = lbm::test::test_params(CollisionKind::BGK);
  const exec::Exec ex(exec::Space::Host);
  std::string msg;
  try {
    stream_collide_box(ex, s, p, CellBox{{0, 0, 0}, {7, 5, 4}});
  } catch (const std::exception& e) {
    msg = e.what();
  }
  REQUIRE(msg.find("inside the rank's interior cells") != std::string::npos);
  stream_collide_box(ex, s, p, CellBox{{2, 2, 2}, {2, 5, 4}});  // empty: nothing happens
  REQUIRE(s.parity == 0);
  REQUIRE(s.step == 0);
}

TEST_CASE("lbm: sub-box steps on the GPU equal the whole-box step bit for bit", "[lbm][overlap][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : kLattices)
    for (Precision pr : kPrecisions)
      for (CollisionKind ck : kCollisions) {
        INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck) << " reference, device");
        check_split(k, pr, ck, exec::Space::Device, KernelPath::Reference);
      }
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (CollisionKind ck : kCollisions) {
        INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck) << " tuned");
        REQUIRE(tuned_available(k, pr));
        check_split(k, pr, ck, exec::Space::Device, KernelPath::Tuned);
      }
}
