// The GPU speed paths against their references: the tuned pair kernel (forces_cuda.cpp) against the
// portable one on random configurations, for every lane count, style and precision; its cell fallback
// for overflowing counts against the O(N^2) reference; the device-resident list build and the in-place
// particle reordering against the host ones; the CUDA-graph step (device-side rebuild decision) against
// the host-driven step and the host engine; NVE energy conservation through the graph.
#include <algorithm>
#include <set>

#include "catch_compat.hpp"
#include "md_energy_drift.hpp"
#include "md_test_util.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"

using namespace mdtest;

namespace {
// Morse with per-pair parameters over 3 types (a second evaluator besides LJ).
PairPotential morse3(exec::Space s) {
  PairPotential pot(s, PairStyle::morse, 3);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) pot.set_morse(a, b, MorseParam::make(1.0 + 0.1 * (a + b), 2.0, 1.1, 2.2, true));
  pot.upload();
  return pot;
}

double worst_relative(const ById& a, const ById& b) {
  double w = 0;
  for (std::size_t i = 0; i < a.fx.size(); ++i)
    for (auto [x, y] : {std::pair{a.fx[i], b.fx[i]}, {a.fy[i], b.fy[i]}, {a.fz[i], b.fz[i]}})
      w = std::max(w, std::abs(x - y) / (1 + std::abs(x)));
  return w;
}

// Unwrapped x by particle id.
std::vector<double> unwrapped_x(Simulation& s) {
  HostParticles h;
  s.particles().download(h);
  std::vector<double> x(h.x.size());
  for (std::size_t i = 0; i < h.x.size(); ++i) x[std::size_t(h.id[i])] = h.x[i] + h.ix[i] * s.box().L[0];
  return x;
}

Simulation liquid(exec::Space s, Integrator integ, Precision prec, bool graph, double T0 = 1.0, int reach = 1) {
  Box box;
  HostParticles h = make_lattice(LatticeKind::fcc, {5, 5, 5}, 0.8442, box);  // 500 atoms
  h.mass = {1.0};
  random_velocities(h, T0, 77, {1.0});
  SimConfig c;
  c.dt = 0.005;
  c.skin = 0.3;
  c.integrator = integ;
  c.temperature = 1.0;
  c.seed = 2024;
  c.precision = prec;
  c.cuda_graph = graph;  // the opt-in GPU path selected explicitly: graph step + tuned pair kernel
  c.pair_kernel = graph ? PairKernel::tuned : PairKernel::portable;
  c.cell_reach = reach;
  c.sort_every = 1000;  // the host engine then builds once per rebuild (no second build after a sort); the
                        // graph still reorders at every build
  return Simulation(s, c, box, h, lj_mixture(s, 1, 2.5, ShiftMode::force_shift));
}
}  // namespace

TEST_CASE("In-place reordering equals permute() and keeps every particle", "[md][neighbor]") {
  Box box;
  HostParticles h = jittered_fcc(4, 0.8442, 0.2, 2, 41u, box);
  Particles a(exec::Space::Host, h.size(), h.mass), b(exec::Space::Host, h.size(), h.mass);
  a.upload(h);
  b.upload(h);
  std::vector<int> order(std::size_t(h.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = int((i * 37 + 11) % order.size());  // a permutation (gcd 1)
  a.permute(exec::Space::Host, order.data());
  b.permute_in_place(exec::Space::Host, order.data());
  HostParticles ha, hb;
  a.download(ha);
  b.download(hb);
  CHECK(ha.x == hb.x);
  CHECK(ha.vz == hb.vz);
  CHECK(ha.type == hb.type);
  CHECK(ha.id == hb.id);
  CHECK(ha.iy == hb.iy);
  CHECK(std::set<int64_t>(hb.id.begin(), hb.id.end()).size() == hb.id.size());
}

TEST_CASE("Half-width cells (reach 2) list exactly the O(N^2) pairs", "[md][neighbor]") {
  for (int cells : {2, 3, 5}) {  // 2: fewer than 5 half-width cells per axis; 3, 5: the 125-cell stencil
    Box box;
    HostParticles h = jittered_fcc(cells, 0.8442, 0.3, 2, 31u + unsigned(cells), box);
    Particles p(exec::Space::Host, h.size(), h.mass);
    p.upload(h);
    NeighborList nl(exec::Space::Host, 1.2, 0.3, 2);
    nl.set_cell_reach(2);
    nl.build(exec::Space::Host, p, box);
    INFO("cells " << cells << ", cell grid " << nl.ncell(0));
    CHECK(nl.ncell(0) == std::max(1, int(std::floor(box.L[0] * 2 / 1.5))));
    HostParticles hw;
    p.download(hw);
    const auto ref = brute_force_neighbors(hw, box, 1.5);
    const NeighborView v = nl.view();
    for (int64_t i = 0; i < hw.size(); ++i) {
      std::vector<int> got;
      for (int k = 0; k < v.count[i]; ++k) got.push_back(v.neigh[int64_t(k) * v.stride + i]);
      std::sort(got.begin(), got.end());
      CHECK(got == ref[std::size_t(i)]);
    }
  }
}

TEST_CASE("The cell stencil holds every neighbour of the list", "[md][neighbor]") {
  for (auto [cells, reach] : {std::pair{2, 1}, {5, 1}, {3, 2}, {5, 2}}) {  // short axes and full stencils
    Box box;
    HostParticles h = jittered_fcc(cells, 0.8442, 0.3, 1, 5u + unsigned(cells), box);
    Particles p(exec::Space::Host, h.size(), h.mass);
    p.upload(h);
    NeighborList nl(exec::Space::Host, 1.2, 0.3);
    nl.set_cell_reach(reach);
    nl.build(exec::Space::Host, p, box);
    HostParticles hw;
    p.download(hw);  // wrapped positions, memory order
    const auto ref = brute_force_neighbors(hw, box, 1.5);
    const CellView c = nl.cells();
    // Every cell, empty ones too, holds [start, end) of the sorted particles and the cells tile them in
    // order, so a run of consecutive cells is one range (the device fill walks stencil rows that way).
    const int64_t ncells = int64_t(c.nc0) * c.nc1 * c.nc2;
    CHECK(c.start[0] == 0);
    CHECK(c.end[ncells - 1] == hw.size());
    for (int64_t cell = 0; cell < ncells; ++cell) {
      CHECK(c.start[cell] <= c.end[cell]);
      if (cell + 1 < ncells) CHECK(c.end[cell] == c.start[cell + 1]);
      for (int s = c.start[cell]; s < c.end[cell]; ++s) CHECK(c.key[c.sorted[s]] == cell);
    }
    for (int64_t i = 0; i < hw.size(); ++i) {
      std::vector<int> got;
      for (int lane = 0; lane < 3; ++lane)  // three lanes split each cell's entries between them
        for_each_cell_candidate(c, i, lane, 3, [&](int j) { got.push_back(j); });
      std::sort(got.begin(), got.end());
      CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());  // no candidate twice
      for (int j : ref[std::size_t(i)]) CHECK(std::binary_search(got.begin(), got.end(), j));
    }
  }
}

TEST_CASE("Tuned pair kernel equals the portable one on random configurations", "[md][forces][gpu]") {
  TESSERA_GPU_TEST();
  const exec::Space d = exec::Space::Device;
  // Seeds 3, 4: three types; seed 5: one type (the kernel's single-type form, which loads no neighbour type).
  for (unsigned seed : {3u, 4u, 5u}) {
    const int ntypes = seed == 5u ? 1 : 3;
    Box box;
    const HostParticles h = jittered_fcc(10, 0.8442, 0.25, ntypes, seed, box);  // 4000 atoms
    std::vector<PairPotential> pots;
    pots.push_back(lj_mixture(d, ntypes, 2.5, ShiftMode::cut));
    pots.push_back(lj_mixture(d, ntypes, 2.5, ShiftMode::force_shift));
    if (ntypes == 3) pots.push_back(morse3(d));
    for (const PairPotential& pot : pots) {
      Particles p(d, h.size(), h.mass);
      p.upload(h);
      NeighborList nl(d, pot.rc_max(), 0.3, 8);
      nl.build(d, p, box);
      for (Precision prec : {Precision::dbl, Precision::mixed}) {
        compute_pair_forces(d, p, box, nl, pot, prec, true, PairKernel::portable);
        const ById ref = by_id(p);
        for (int tpp : {1, 2, 4, 8}) {
          compute_pair_forces_tuned(d, p, box, nl, pot, prec, true, tpp);
          const ById got = by_id(p);
          // double: the same sums split into tpp partial sums -> 1e-10; mixed: float sums in another order
          // (the bound of the GPU-vs-host mixed test).
          const double tol = prec == Precision::dbl ? 1e-10 : 2e-4;
          const double w = worst_relative(ref, got);
          INFO("style " << int(pot.style()) << " precision " << int(prec) << " tpp " << tpp << " worst " << w);
          CHECK(w < tol);
          CHECK(got.pe == Approx(ref.pe).epsilon(prec == Precision::dbl ? 1e-12 : 1e-6));
          CHECK(got.vir == Approx(ref.vir).epsilon(prec == Precision::dbl ? 1e-12 : 1e-5));
        }
      }
    }
  }
}

TEST_CASE("Mixed precision's fixed-point gather: periodic images, a non-periodic axis, a large box", "[md][forces][gpu]") {
  TESSERA_GPU_TEST();
  const exec::Space d = exec::Space::Device;
  // 24^3 fcc cells: 55,296 atoms in a 40-sigma box (a coarser fixed-point step than the 4,000-atom test).
  Box box;
  HostParticles h = jittered_fcc(24, 0.8442, 0.25, 2, 11u, box);
  box.periodic[2] = false;  // a walled axis: separations along z are not folded
  for (double& z : h.z) z = std::clamp(z, box.lo[2] + 1e-9, box.lo[2] + box.L[2] - 1e-9);
  const PairPotential pot = lj_mixture(d, 2, 2.5, ShiftMode::force_shift);
  Particles p(d, h.size(), h.mass);
  p.upload(h);
  NeighborList nl(d, pot.rc_max(), 0.3, 8);
  nl.build(d, p, box);
  compute_pair_forces(d, p, box, nl, pot, Precision::mixed, true, PairKernel::portable);
  const ById ref = by_id(p);
  compute_pair_forces_tuned(d, p, box, nl, pot, Precision::mixed, true, 2);
  const ById got = by_id(p);
  INFO("worst relative difference tuned - portable " << worst_relative(ref, got));
  CHECK(worst_relative(ref, got) < 2e-4);
  CHECK(got.pe == Approx(ref.pe).epsilon(1e-6));
  // Particles moved by whole box lengths on the periodic axes (as ghost images and unwrapped coordinates
  // are) give the same forces: the wrapped 32-bit difference is the minimum image.
  HostParticles hw;
  p.download(hw);
  for (std::size_t i = 0; i < hw.x.size(); i += 2) {
    hw.x[i] += (i % 4 == 0 ? 1.0 : -2.0) * box.L[0];
    hw.y[i] += (i % 3 == 0 ? 3.0 : -1.0) * box.L[1];
  }
  p.upload(hw);
  compute_pair_forces_tuned(d, p, box, nl, pot, Precision::mixed, true, 2);
  const ById shifted = by_id(p);
  INFO("worst relative difference after the shifts " << worst_relative(got, shifted));
  CHECK(worst_relative(got, shifted) < 1e-6);
  CHECK(shifted.pe == Approx(got.pe).epsilon(1e-9));
}

TEST_CASE("Overflowing device-resident builds: the tuned kernel takes the cells and stays exact", "[md][forces][gpu]") {
  TESSERA_GPU_TEST();
  const exec::Space d = exec::Space::Device;
  // A dilute configuration sizes the list; the same particles, dense, overflow it in a device-resident build.
  Box dilute, dense;
  const HostParticles hd = jittered_fcc(8, 0.3, 0.2, 2, 8u, dilute);
  const HostParticles h = jittered_fcc(8, 0.8442, 0.25, 2, 9u, dense);
  const PairPotential pot = lj_mixture(d, 2, 2.5, ShiftMode::shift);
  Particles p(d, h.size(), h.mass);
  p.upload(hd);
  NeighborList nl(d, 2.5, 0.3, 4);
  nl.build(d, p, dilute);
  const int cap = nl.view().capacity;
  p.upload(h);
  nl.build_async(d, p, dense, false);
  exec::fence(d);
  INFO("capacity " << cap << ", largest count " << nl.max_count_seen());
  REQUIRE(nl.max_count_seen() > cap);  // the case under test: most particles overflow
  CHECK(nl.view().capacity == cap);     // nothing was regrown inside
  const ReferenceForces ref = reference_pair_forces(h, dense, pot);
  for (int tpp : {1, 4}) {
    compute_pair_forces_tuned(d, p, dense, nl, pot, Precision::dbl, true, tpp);
    const ById got = by_id(p);
    double w = 0;
    for (std::size_t i = 0; i < ref.fx.size(); ++i) w = std::max(w, std::abs(got.fx[i] - ref.fx[i]) / (1 + std::abs(ref.fx[i])));
    INFO("tpp " << tpp);
    CHECK(w < 1e-10);
    CHECK(got.pe == Approx(ref.pe).epsilon(1e-11));
  }
}

TEST_CASE("Device-resident build with reordering: sorted particles, every pair within reach, exact forces", "[md][neighbor][gpu]") {
  TESSERA_GPU_TEST();
  for (int reach : {1, 2}) {
  INFO("cell reach " << reach);
  Box box;
  const HostParticles h = jittered_fcc(6, 0.8442, 0.3, 2, 12u, box);
  const PairPotential pot = lj_mixture(exec::Space::Device, 2, 2.5, ShiftMode::cut);
  Particles p(exec::Space::Device, h.size(), h.mass);
  p.upload(h);
  NeighborList nl(exec::Space::Device, 2.5, 0.3);
  nl.set_cell_reach(reach);
  nl.build(exec::Space::Device, p, box);
  nl.build_async(exec::Space::Device, p, box, true);
  exec::fence(exec::Space::Device);
  HostParticles hp;
  p.download(hp);
  std::vector<int> keys(std::size_t(h.size()));
  copy_n(keys.data(), MemKind::Host, nl.cells().key, MemKind::Device, keys.size());
  CHECK(std::is_sorted(keys.begin(), keys.end()));  // particles now in cell order
  CHECK(std::set<int64_t>(hp.id.begin(), hp.id.end()).size() == hp.id.size());
  // The float fill lists every pair within rc + skin (the exact list) and nothing beyond its small margin.
  const auto n = std::size_t(hp.size());
  const NeighborView v = nl.view();
  std::vector<int> cnt(n), nb(n * std::size_t(v.capacity));
  copy_n(cnt.data(), MemKind::Host, v.count, MemKind::Device, n);
  copy_n(nb.data(), MemKind::Host, v.neigh, MemKind::Device, nb.size());
  const auto exact = brute_force_neighbors(hp, box, 2.8);
  std::size_t extra = 0;
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(cnt[i] <= v.capacity);
    std::vector<int> got;
    for (int k = 0; k < cnt[i]; ++k) got.push_back(nb[std::size_t(k) * n + i]);
    std::sort(got.begin(), got.end());
    CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
    for (int j : exact[i]) CHECK(std::binary_search(got.begin(), got.end(), j));
    for (int j : got) {
      const double dx = box.image(hp.x[i] - hp.x[std::size_t(j)], 0), dy = box.image(hp.y[i] - hp.y[std::size_t(j)], 1),
                   dz = box.image(hp.z[i] - hp.z[std::size_t(j)], 2);
      CHECK(std::sqrt(dx * dx + dy * dy + dz * dz) < 2.8 * (1 + 1e-6) + 1e-6 * (box.L[0] + 0.3) + 1e-9);
    }
    extra += got.size() - exact[i].size();
  }
  INFO("pairs listed beyond rc + skin (inside the float margin): " << extra);
  CHECK(extra <= n / 100);
  compute_pair_forces(exec::Space::Device, p, box, nl, pot, Precision::dbl, true, PairKernel::portable);
  const ById got = by_id(p);
  const ReferenceForces ref = reference_pair_forces(h, box, pot);
  double w = 0;
  for (std::size_t i = 0; i < ref.fx.size(); ++i) w = std::max(w, std::abs(got.fy[i] - ref.fy[i]) / (1 + std::abs(ref.fy[i])));
  CHECK(w < 1e-10);
  }
}

TEST_CASE("The CUDA-graph step follows the host-driven step and the host engine", "[md][integrator][gpu]") {
  TESSERA_GPU_TEST();
  for (auto [integ, reach] : {std::pair{Integrator::nve, 1}, {Integrator::langevin, 1}, {Integrator::nve, 2}}) {
    INFO("cell reach " << reach);
    Simulation host = liquid(exec::Space::Host, integ, Precision::dbl, false, 1.0, reach);
    Simulation plain = liquid(exec::Space::Device, integ, Precision::dbl, false, 1.0, reach);
    Simulation graph = liquid(exec::Space::Device, integ, Precision::dbl, true, 1.0, reach);
    REQUIRE(graph.graph_step());
    REQUIRE_FALSE(plain.graph_step());
    host.setup(), plain.setup(), graph.setup();
    for (int s = 1; s <= 200; ++s) {
      const bool th = s % 50 == 0;
      host.step(th), plain.step(th), graph.step(th);
      if (th) CHECK(graph.thermo().pe == Approx(host.thermo().pe).epsilon(1e-8));
    }
    // The device decided to rebuild on the same steps as the host (same test, same arithmetic).
    CHECK(graph.list_builds() == host.list_builds());
    CHECK(graph.list_builds() > 3);
    const auto xh = unwrapped_x(host), xp = unwrapped_x(plain), xg = unwrapped_x(graph);
    double wh = 0, wp = 0;
    for (std::size_t i = 0; i < xh.size(); ++i) {
      wh = std::max(wh, std::abs(xg[i] - xh[i]));
      wp = std::max(wp, std::abs(xg[i] - xp[i]));
    }
    INFO(to_string(integ) << ": worst position difference graph-host " << wh << ", graph-plain " << wp);
    // Chaotic dynamics amplify rounding differences (summation order, FMA); after 200 steps far below 1e-6.
    CHECK(wh < 1e-6);
    CHECK(wp < 1e-6);
  }
}

TEST_CASE("The CUDA-graph step with bonds (Kremer-Grest melt, Langevin) follows the host engine", "[md][integrator][gpu]") {
  TESSERA_GPU_TEST();
  InitialSystem s = polymer_melt({6, 6, 6}, 0.85, 12);
  s.particles.mass = {1.0};
  random_velocities(s.particles, 1.0, 3, {1.0});
  auto make = [&](exec::Space sp, bool graph) {
    SimConfig c;
    c.dt = 0.005;
    c.skin = 0.4;
    c.integrator = Integrator::langevin;
    c.gamma = 0.5;
    c.cuda_graph = graph;
    c.pair_kernel = graph ? PairKernel::tuned : PairKernel::portable;
    c.sort_every = 1000;
    PairPotential pot(sp, PairStyle::lj, 1);
    pot.set_lj(0, 0, LJParam::wca(1, 1));
    pot.upload();
    return Simulation(sp, c, s.box, s.particles, std::move(pot), s.bonds, {BondParam{int(BondStyle::fene), 30, 1.5}});
  };
  Simulation host = make(exec::Space::Host, false), graph = make(exec::Space::Device, true);
  REQUIRE(graph.graph_step());
  host.setup(), graph.setup();
  for (int st = 1; st <= 200; ++st) host.step(st == 200), graph.step(st == 200);
  CHECK(graph.thermo().pe == Approx(host.thermo().pe).epsilon(1e-8));
  CHECK(graph.list_builds() == host.list_builds());
  const auto xh = unwrapped_x(host), xg = unwrapped_x(graph);
  double w = 0;
  for (std::size_t i = 0; i < xh.size(); ++i) w = std::max(w, std::abs(xg[i] - xh[i]));
  INFO("worst position difference " << w);
  CHECK(w < 1e-6);
}

TEST_CASE("NVE through the CUDA graph conserves energy as the host engine does", "[md][integrator][nve][gpu]") {
  TESSERA_GPU_TEST();
  // double: the host test's bounds (test_md_dynamics: fluctuation < 4e-4 per atom, no drift of the mean);
  // mixed: the bound of the mixed-precision GPU test there (|E - E0| < 1e-3 per atom).
  for (Precision prec : {Precision::dbl, Precision::mixed}) {
    Simulation sim = liquid(exec::Space::Device, Integrator::nve, prec, true, 1.44);
    REQUIRE(sim.graph_step());
    sim.setup();
    const auto [emax, first, second] = mdtest::nve_energy_drift(sim);
    INFO("precision " << int(prec) << ": max |E - E0| per atom " << emax << ", drift of the mean " << second - first
                      << ", builds " << sim.list_builds());
    WARN("graph NVE, precision " << int(prec) << ": max |E - E0| per atom " << emax << ", drift of the mean "
                                  << second - first);
    if (prec == Precision::dbl) {
      CHECK(emax < 4e-4);
      CHECK(std::abs(second - first) < 5e-5);
    } else {
      CHECK(emax < 1e-3);
    }
    CHECK(sim.list_builds() > 5);
  }
}
