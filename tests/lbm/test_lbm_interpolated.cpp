// Interpolated bounce-back (Bouzidi et al. 2001, kernels/include/tessera/lbm/interpolated_bounce_back.hpp):
// the AA pre-pass against a naive two-array Bouzidi step on random lattices (both parities, moving walls,
// every lattice), and the GPU against the host on the same random inputs (every lattice and precision).
//
// Tolerances: fp64 on the host is exact to 1e-14 (same formulas, different association). GPU vs host:
// the device contracts a*b+c into FMAs: fp64 1e-14, fp32 1e-6, fp16 one storage step (4e-5), as
// tests/lbm/test_lbm_gpu.cpp.
#include <cmath>
#include <random>

#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "tessera/lbm/boundary_links.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {

// A reproducible wall fraction per (cell, direction) in (0, 1], a third of them exactly 1/2 or 1.
double fraction_of(int64_t c, int q) {
  const uint64_t h = (uint64_t(c) * 2654435761u + uint64_t(q) * 40503u) % 1000u;
  if (h % 7 == 0) return 0.5;
  if (h % 11 == 0) return 1.0;
  return 0.02 + 0.97 * double(h) / 1000.0;
}

LinkFraction fraction_for(const GridLayout& g) {
  return [g](int64_t i, int64_t j, int64_t k, int q) { return fraction_of(g.cell(i, j, k), q); };
}

// One naive step: collide every fluid cell (fp64), then pull-stream; a population that comes back from a
// wall uses Bouzidi's formulas when the upstream cell is fluid and delta != 1/2, else half-way.
template <class L, CollisionKind K>
void naive_bouzidi_step(const GridLayout& g, const std::vector<uint8_t>& fl, const CollisionParams& p,
                        std::vector<double>& f) {
  const int64_t n = g.cells();
  const std::vector<double> post = naive_collide<L, K>(g, fl, p, f);
  std::vector<double> out(f);
  auto P = [&](int q, int64_t c) { return post[std::size_t(q * n + c)]; };
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        if (!is_fluid(fl[std::size_t(c)])) continue;
        for (int pi = 0; pi < L::Q; ++pi) {  // incoming direction pi; the link points along q = opp(pi)
          const int64_t src = c - g.offset(L::c(pi, 0), L::c(pi, 1), L::c(pi, 2));
          const uint8_t sf = fl[std::size_t(src)];
          if (flag_kind(sf) != kWall) {
            out[std::size_t(pi * n + c)] = P(pi, src);
            continue;
          }
          const int q = opposite(pi);
          const float* uw = p.walls.u[flag_wall_id(sf)];
          const double wt = 6.0 * L::w(q) * (L::c(q, 0) * double(uw[0]) + L::c(q, 1) * double(uw[1]) + L::c(q, 2) * double(uw[2]));
          const int64_t up = c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
          const double d = double(float(fraction_of(c, q)));  // links store delta as float
          double v = P(q, c) - wt;  // half-way
          if (is_fluid(fl[std::size_t(up)]) && d != 0.5)
            v = d < 0.5 ? 2 * d * P(q, c) + (1 - 2 * d) * P(q, up) - wt
                        : (P(q, c) - wt) / (2 * d) + (1 - 1 / (2 * d)) * P(pi, c);
          out[std::size_t(pi * n + c)] = v;
        }
      }
  f.swap(out);
}

struct Run {
  std::vector<double> f;
  std::vector<uint8_t> fl;
  std::array<double, 6> force{};
};

template <class L>
Run run_aa(Precision pr, CollisionKind ck, exec::Space sp, int steps, int64_t nx, int64_t ny, int64_t nz) {
  const GridLayout g = grid_for(L::kind, nx, ny, nz);
  Run r;
  r.fl = random_flags(g, 31);
  LatticeState s(L::kind, pr, g, sp);
  write_flags(s, r.fl);
  write_slots(s, random_pops<L>(g, 32));
  const std::vector<BoundaryLink> h = find_boundary_links(L::kind, g, read_flags(s), 0, fraction_for(g));
  REQUIRE(h.size() > 10);
  Buffer<BoundaryLink> d(h.size(), s.memkind());
  copy_n(d.data(), d.kind(), h.data(), MemKind::Host, h.size());
  const CollisionParams p = test_params(ck);
  const exec::Exec ex(sp);
  Buffer<double> fstar(h.size(), s.memkind());
  // The pass completes each step's streaming at the links (none on the initial state).
  for (int t = 0; t < steps; ++t) {
    stream_collide(ex, s, p);
    interpolated_bounce_back(ex, s, p, d.data(), int64_t(h.size()), fstar.data());
  }
  const int64_t lo[3] = {0, 0, 0};
  r.force = wall_force(ex, s, p, lo, 2);
  const auto dc = link_force_correction(ex, s, p, d.data(), fstar.data(), int64_t(h.size()), lo, 2);
  for (int a = 0; a < 6; ++a) r.force[std::size_t(a)] += dc[std::size_t(a)];
  exec::fence(ex);
  r.f = read_slots(s);
  for (std::size_t c = 0; c < r.fl.size(); ++c)
    if (!is_fluid(r.fl[c]))
      for (int q = 0; q < L::Q; ++q) r.f[std::size_t(q) * r.fl.size() + c] = 0.0;
  return r;
}

template <class L, CollisionKind K>
void check_against_naive() {
  INFO(L::name);
  const GridLayout g = grid_for(L::kind, 12, 9, 7);
  for (int steps : {2, 4}) {  // even step counts: natural order at the end, both parities passed
    const Run aa = run_aa<L>(Precision::FP64, K, exec::Space::Host, steps, 12, 9, 7);
    std::vector<double> ref = random_pops<L>(g, 32);
    const CollisionParams p = test_params(K);
    for (int t = 0; t < steps; ++t) naive_bouzidi_step<L, K>(g, aa.fl, p, ref);
    REQUIRE(max_fluid_diff<L>(g, aa.fl, aa.f, ref) < 1e-14);
  }
}

}  // namespace

TEST_CASE("AA pre-pass reproduces a naive two-array Bouzidi step", "[lbm][unit]") {
  check_against_naive<D2Q9, CollisionKind::TRT>();
  check_against_naive<D3Q19, CollisionKind::BGK>();
  check_against_naive<D3Q27, CollisionKind::TRT>();
}

TEST_CASE("link list: upstream-solid and half-way links are left out", "[lbm][unit]") {
  const GridLayout g = grid_for(LatticeKind::D2Q9, 12, 9, 1);
  const std::vector<uint8_t> fl = random_flags(g, 31);
  const auto links = find_boundary_links(LatticeKind::D2Q9, g, fl, 0, fraction_for(g));
  REQUIRE(!links.empty());
  for (const BoundaryLink& l : links) {
    const int64_t off = g.offset(D2Q9::c(l.q, 0), D2Q9::c(l.q, 1), 0);
    REQUIRE(is_fluid(fl[std::size_t(l.cell)]));
    REQUIRE(flag_kind(fl[std::size_t(l.cell + off)]) == kWall);
    REQUIRE(is_fluid(fl[std::size_t(l.cell - off)]));
    REQUIRE(l.delta != 0.5f);
  }
}

TEST_CASE("interpolated bounce-back: GPU matches the host", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (Precision pr : {Precision::FP64, Precision::FP32, Precision::FP16}) {
    INFO(to_string(pr));
    const double tol = pr == Precision::FP64 ? 1e-14 : (pr == Precision::FP32 ? 1e-6 : 4e-5);
    const auto h2 = run_aa<D2Q9>(pr, CollisionKind::TRT, exec::Space::Host, 5, 37, 13, 1);
    const auto d2 = run_aa<D2Q9>(pr, CollisionKind::TRT, exec::Space::Device, 5, 37, 13, 1);
    REQUIRE(max_diff(h2.f, d2.f) < tol);
    const auto h19 = run_aa<D3Q19>(pr, CollisionKind::BGK, exec::Space::Host, 5, 21, 13, 9);
    const auto d19 = run_aa<D3Q19>(pr, CollisionKind::BGK, exec::Space::Device, 5, 21, 13, 9);
    REQUIRE(max_diff(h19.f, d19.f) < tol);
    const auto h27 = run_aa<D3Q27>(pr, CollisionKind::Regularized, exec::Space::Host, 5, 21, 13, 9);
    const auto d27 = run_aa<D3Q27>(pr, CollisionKind::Regularized, exec::Space::Device, 5, 21, 13, 9);
    REQUIRE(max_diff(h27.f, d27.f) < tol);
    for (int a = 0; a < 6; ++a) {  // force sums: same terms, another summation order
      REQUIRE(h19.force[std::size_t(a)] == Approx(d19.force[std::size_t(a)]).margin(1e3 * tol));
      REQUIRE(h27.force[std::size_t(a)] == Approx(d27.force[std::size_t(a)]).margin(1e3 * tol));
    }
  }
}
