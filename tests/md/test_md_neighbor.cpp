// Neighbour lists against the O(N^2) list; forces against the O(N^2) reference; overflow and regrowth;
// the skin criterion; spatial re-sorting; GPU against host.
#include <algorithm>

#include "catch_compat.hpp"
#include "md_test_util.hpp"

using namespace mdtest;

namespace {
std::vector<std::vector<int>> list_ids(const NeighborList& nl, Particles& p) {
  HostParticles h;
  p.download(h);
  const NeighborView v = nl.view();
  const auto n = std::size_t(p.size());
  std::vector<int> cnt(n), nb(n * std::size_t(v.capacity));
  copy_n(cnt.data(), MemKind::Host, v.count, default_memkind(p.space()), n);
  copy_n(nb.data(), MemKind::Host, v.neigh, default_memkind(p.space()), nb.size());
  std::vector<std::vector<int>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(cnt[i] <= v.capacity);
    auto& o = out[std::size_t(h.id[i])];
    for (int k = 0; k < cnt[i]; ++k) o.push_back(int(h.id[std::size_t(nb[std::size_t(k) * n + i])]));
    std::sort(o.begin(), o.end());
  }
  return out;
}
}  // namespace

TEST_CASE("Cell + Verlet list equals the O(N^2) list, with overflow regrowth", "[md][neighbor]") {
  for (int cells : {2, 4, 5}) {  // 2: fewer than 3 cells per axis; 4, 5: the 27-cell stencil
    Box box;
    HostParticles h = jittered_fcc(cells, 0.8442, 0.3, 2, 11u + unsigned(cells), box);
    Particles p(exec::Space::Host, h.size(), h.mass);
    p.upload(h);
    NeighborList nl(exec::Space::Host, 1.2, 0.3, 2);  // capacity 2: must overflow and regrow
    nl.build(exec::Space::Host, p, box);
    CHECK(nl.stats().regrows == 1);
    CHECK(nl.view().capacity >= nl.stats().max_count);
    const auto ref = brute_force_neighbors(h, box, 1.5);
    const auto got = list_ids(nl, p);
    INFO("cells = " << cells << ", cell grid " << nl.ncell(0));
    CHECK(got == ref);
  }
}

TEST_CASE("Pair forces, energy and virial equal the O(N^2) reference for every style", "[md][forces]") {
  Box box;
  HostParticles h = jittered_fcc(4, 0.8442, 0.15, 3, 5u, box);
  std::vector<PairPotential> pots;
  for (auto m : {ShiftMode::cut, ShiftMode::shift, ShiftMode::force_shift})
    pots.push_back(lj_mixture(exec::Space::Host, 3, 2.5, m));
  PairPotential morse(exec::Space::Host, PairStyle::morse, 3);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) morse.set_morse(a, b, MorseParam::make(1.0 + 0.1 * (a + b), 2.0, 1.1, 2.2, true));
  morse.upload();
  pots.push_back(std::move(morse));
  PairPotential table(exec::Space::Host, PairStyle::table, 3);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      std::vector<double> u(200), f(200);
      for (int k = 0; k < 200; ++k) {  // a soft Gaussian core per pair: U = A exp(-r^2)
        const double r = 0.5 + 0.01 * k, A = 1.0 + a + b;
        u[std::size_t(k)] = A * std::exp(-r * r), f[std::size_t(k)] = 2 * A * r * std::exp(-r * r);
      }
      table.set_table(a, b, 0.5, 0.01, u, f);
    }
  table.upload();
  pots.push_back(std::move(table));

  for (const auto& pot : pots) {
    Particles p(exec::Space::Host, h.size(), h.mass);
    p.upload(h);
    NeighborList nl(exec::Space::Host, pot.rc_max(), 0.3);
    nl.build(exec::Space::Host, p, box);
    compute_pair_forces(exec::Space::Host, p, box, nl, pot, Precision::dbl, true);
    const ById got = by_id(p);
    HostParticles hw;
    p.download(hw);  // wrapped positions: same forces
    const ReferenceForces ref = reference_pair_forces(h, box, pot);
    INFO("style " << int(pot.style()));
    for (std::size_t i = 0; i < ref.fx.size(); ++i) {
      CHECK(std::abs(got.fx[i] - ref.fx[i]) < 1e-10 * (1 + std::abs(ref.fx[i])));
      CHECK(std::abs(got.fy[i] - ref.fy[i]) < 1e-10 * (1 + std::abs(ref.fy[i])));
      CHECK(std::abs(got.fz[i] - ref.fz[i]) < 1e-10 * (1 + std::abs(ref.fz[i])));
    }
    CHECK(got.pe == Approx(ref.pe).epsilon(1e-11));
    CHECK(got.vir == Approx(ref.virial).epsilon(1e-11).margin(1e-9));
  }
}

TEST_CASE("Moves below half the skin keep the list valid; larger ones trigger a rebuild", "[md][neighbor]") {
  Box box;
  HostParticles h = jittered_fcc(4, 0.8442, 0.2, 1, 3u, box);
  const PairPotential pot = lj_mixture(exec::Space::Host, 1, 2.5, ShiftMode::shift);
  Particles p(exec::Space::Host, h.size(), h.mass);
  p.upload(h);
  const double skin = 0.4;
  NeighborList nl(exec::Space::Host, 2.5, skin);
  nl.build(exec::Space::Host, p, box);
  HostParticles hm;
  p.download(hm);
  std::mt19937_64 g(9);
  std::uniform_real_distribution<double> d(-1, 1);
  for (int64_t i = 0; i < hm.size(); ++i) {  // every particle moves by 0.49 skin/2 in a random direction
    double v[3] = {d(g), d(g), d(g)};
    const double s = 0.49 * 0.5 * skin / std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    hm.x[std::size_t(i)] += s * v[0], hm.y[std::size_t(i)] += s * v[1], hm.z[std::size_t(i)] += s * v[2];
  }
  p.upload(hm);
  CHECK_FALSE(nl.needs_rebuild(exec::Space::Host, p, box));
  compute_pair_forces(exec::Space::Host, p, box, nl, pot, Precision::dbl, true);
  const ById got = by_id(p);
  const ReferenceForces ref = reference_pair_forces(hm, box, pot);
  for (std::size_t i = 0; i < ref.fx.size(); ++i) CHECK(std::abs(got.fx[i] - ref.fx[i]) < 1e-10 * (1 + std::abs(ref.fx[i])));
  CHECK(got.pe == Approx(ref.pe).epsilon(1e-11));
  hm.x[7] += 0.51 * skin;
  p.upload(hm);
  CHECK(nl.needs_rebuild(exec::Space::Host, p, box));
}

TEST_CASE("Spatial re-sorting permutes particles without changing forces", "[md][neighbor]") {
  Box box;
  HostParticles h = jittered_fcc(5, 0.8442, 0.2, 2, 21u, box);
  const PairPotential pot = lj_mixture(exec::Space::Host, 2, 2.5, ShiftMode::cut);
  Particles p(exec::Space::Host, h.size(), h.mass);
  p.upload(h);
  NeighborList nl(exec::Space::Host, 2.5, 0.3);
  nl.build(exec::Space::Host, p, box);
  Buffer<int> order(std::size_t(p.size()), MemKind::Host);
  std::copy(nl.cell_order(), nl.cell_order() + p.size(), order.begin());
  p.permute(exec::Space::Host, order.data());
  nl.build(exec::Space::Host, p, box);
  compute_pair_forces(exec::Space::Host, p, box, nl, pot, Precision::dbl, true);
  const ById got = by_id(p);
  const ReferenceForces ref = reference_pair_forces(h, box, pot);
  for (std::size_t i = 0; i < ref.fx.size(); ++i) CHECK(std::abs(got.fz[i] - ref.fz[i]) < 1e-10 * (1 + std::abs(ref.fz[i])));
  // After sorting, consecutive particles sit in non-decreasing cells: the sort order is the identity.
  nl.build(exec::Space::Host, p, box);
  std::vector<int> o2(nl.cell_order(), nl.cell_order() + p.size());
  for (std::size_t i = 0; i < o2.size(); ++i) CHECK(o2[i] == int(i));
}

namespace {
ById forces_in(exec::Space s, const HostParticles& h, const Box& box, int ntypes, Precision prec, int* max_count) {
  const PairPotential pot = lj_mixture(s, ntypes, 2.5, ShiftMode::force_shift);
  Particles p(s, h.size(), h.mass);
  p.upload(h);
  NeighborList nl(s, 2.5, 0.3, 8);
  nl.build(s, p, box);
  compute_pair_forces(s, p, box, nl, pot, prec, true);
  exec::fence(s);
  *max_count = nl.stats().max_count;
  return by_id(p);
}
}  // namespace

TEST_CASE("GPU forces equal host forces on random configurations", "[md][forces][gpu]") {
  TESSERA_GPU_TEST();
  for (unsigned seed : {1u, 2u}) {
    Box box;
    const HostParticles h = jittered_fcc(12, 0.8442, 0.25, 2, seed, box);  // 6912 atoms
    for (Precision prec : {Precision::dbl, Precision::mixed}) {
      int mh = 0, md = 0;
      const ById a = forces_in(exec::Space::Host, h, box, 2, Precision::dbl, &mh);
      const ById b = forces_in(exec::Space::Device, h, box, 2, prec, &md);
      CHECK(mh == md);
      // double: same operations in the same order, FMA contraction only -> 1e-10; mixed: float rounding.
      const double tol = prec == Precision::dbl ? 1e-10 : 2e-4;
      double worst = 0;
      for (std::size_t i = 0; i < a.fx.size(); ++i)
        for (auto [x, y] : {std::pair{a.fx[i], b.fx[i]}, {a.fy[i], b.fy[i]}, {a.fz[i], b.fz[i]}})
          worst = std::max(worst, std::abs(x - y) / (1 + std::abs(x)));
      INFO("precision " << int(prec) << " worst relative force difference " << worst);
      CHECK(worst < tol);
      CHECK(b.pe == Approx(a.pe).epsilon(prec == Precision::dbl ? 1e-12 : 1e-6));
      CHECK(b.vir == Approx(a.vir).epsilon(prec == Precision::dbl ? 1e-12 : 1e-5));
    }
  }
}
