// Helpers shared by the LBM tests: random lattices with walls, and a naive two-array reference
// (pull streaming with half-way bounce-back) that the AA-pattern kernels must reproduce.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tessera/lbm/lattice_state.hpp"

namespace tessera::lbm::test {

inline GridLayout grid_for(LatticeKind k, int64_t nx, int64_t ny, int64_t nz) {
  GridLayout g;
  g.nx = nx;
  g.ny = ny;
  g.nz = lattice_dim(k) == 2 ? 1 : nz;
  g.gz = lattice_dim(k) == 2 ? 0 : 1;
  return g;
}

// Flags: ghosts walls (id 1 on the y-max face, which moves in test_params, id 0 elsewhere) or fluid; an
// interior cell is a wall (ids 0-2, 1 and 2 move) with probability walls / period and inactive with
// inactive / period.
inline std::vector<uint8_t> scattered_flags(const GridLayout& g, bool ghost_walls, unsigned seed, unsigned period,
                                            unsigned walls, unsigned inactive) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> fl(static_cast<std::size_t>(g.cells()), kFluid);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 0; j < g.py(); ++j)
      for (int64_t i = 0; i < g.px(); ++i) {
        const std::size_t c = std::size_t(i + g.px() * (j + g.py() * k));
        const bool ghost = i == 0 || i == g.px() - 1 || j == 0 || j == g.py() - 1 || k == 0 || k == g.pz() - 1;
        const unsigned r = rng() % period;
        if (ghost)
          fl[c] = ghost_walls ? make_wall(j == g.py() - 1 ? 1 : 0) : kFluid;
        else if (r < walls)
          fl[c] = make_wall(int(rng() % 3));
        else if (r < walls + inactive)
          fl[c] = kInactive;
      }
  return fl;
}

// Flags: ghosts are walls (id 1 on the y-max face moves, id 0 elsewhere), ~10% random interior walls.
inline std::vector<uint8_t> random_flags(const GridLayout& g, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> fl(static_cast<std::size_t>(g.cells()), kFluid);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 0; j < g.py(); ++j)
      for (int64_t i = 0; i < g.px(); ++i) {
        const int64_t c = i + g.px() * (j + g.py() * k);
        const bool ghost = i == 0 || i == g.px() - 1 || j == 0 || j == g.py() - 1 ||
                           (g.gz && (k == 0 || k == g.pz() - 1));
        if (ghost)
          fl[std::size_t(c)] = make_wall(j == g.py() - 1 ? 1 : 0);
        else if (rng() % 10 == 0)
          fl[std::size_t(c)] = make_wall(rng() % 3);
      }
  return fl;
}

// f_q = w_q (1 + a r), r uniform in [-1, 1).
template <class L>
std::vector<double> random_pops(const GridLayout& g, unsigned seed, double a = 0.05) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  const int64_t n = g.cells();
  std::vector<double> f(static_cast<std::size_t>(n * L::Q));
  for (int q = 0; q < L::Q; ++q)
    for (int64_t c = 0; c < n; ++c) f[std::size_t(q * n + c)] = L::w(q) * (1.0 + a * d(rng));
  return f;
}

// Largest |a_i - b_i|; infinite where the sizes differ (so that any tolerance fails).
inline double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

inline CollisionParams test_params(CollisionKind k, double smag = 0.0) {
  CollisionParams p;
  p.kind = k;
  p.omega = 1.6;
  p.magic = 3.0 / 16.0;
  p.smagorinsky = smag;
  p.force[0] = 1e-4;
  p.force[1] = -2e-4;
  p.force[2] = 0.5e-4;
  p.walls.u[1][0] = 0.05f;  // the moving lid
  p.walls.u[1][2] = -0.02f;
  p.walls.u[2][1] = 0.03f;
  return p;
}

// The naive collision: every fluid cell of f (natural order, unshifted) collided in fp64; other cells
// keep their values.
template <class L, CollisionKind K>
std::vector<double> naive_collide(const GridLayout& g, const std::vector<uint8_t>& fl, const CollisionParams& p,
                                  const std::vector<double>& f) {
  const int64_t n = g.cells();
  std::vector<double> post(f);
  const Relaxation<double> r = make_relaxation<double>(p);
  for (int64_t c = 0; c < n; ++c) {
    if (!is_fluid(fl[std::size_t(c)])) continue;
    double fq[L::Q];
    for (int q = 0; q < L::Q; ++q) fq[q] = f[std::size_t(q * n + c)] - L::w(q);
    collide<L, K, double>(fq, r, p.force[0], p.force[1], L::D == 3 ? p.force[2] : 0.0);
    for (int q = 0; q < L::Q; ++q) post[std::size_t(q * n + c)] = fq[q] + L::w(q);
  }
  return post;
}

// One step of the naive scheme: collide every fluid cell (fp64), then pull-stream with bounce-back.
// f is natural order (f[q*n + c] = f_q(c) before collision), unshifted.
template <class L, CollisionKind K>
void naive_step(const GridLayout& g, const std::vector<uint8_t>& fl, const CollisionParams& p, std::vector<double>& f) {
  const int64_t n = g.cells();
  const std::vector<double> post = naive_collide<L, K>(g, fl, p, f);
  std::vector<double> out(f);
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        if (!is_fluid(fl[std::size_t(c)])) continue;
        for (int q = 0; q < L::Q; ++q) {
          const int64_t src = c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
          const uint8_t sf = fl[std::size_t(src)];
          if (flag_kind(sf) == kWall) {
            const float* uw = p.walls.u[flag_wall_id(sf)];
            const double cu = L::c(q, 0) * double(uw[0]) + L::c(q, 1) * double(uw[1]) + L::c(q, 2) * double(uw[2]);
            out[std::size_t(q * n + c)] = post[std::size_t(opposite(q) * n + c)] + 6.0 * L::w(q) * cu;
          } else {
            out[std::size_t(q * n + c)] = post[std::size_t(q * n + src)];
          }
        }
      }
  f.swap(out);
}

template <class L>
double max_fluid_diff(const GridLayout& g, const std::vector<uint8_t>& fl, const std::vector<double>& a,
                      const std::vector<double>& b) {
  double m = 0;
  const int64_t n = g.cells();
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        if (!is_fluid(fl[std::size_t(c)])) continue;
        for (int q = 0; q < L::Q; ++q)
          m = std::max(m, std::abs(a[std::size_t(q * n + c)] - b[std::size_t(q * n + c)]));
      }
  return m;
}

}  // namespace tessera::lbm::test
