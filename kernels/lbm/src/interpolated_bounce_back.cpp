// Interpolated bounce-back: link search (host) and the pre-pass / force-correction launches for every
// lattice and storage precision (boundary_links.hpp, interpolated_bounce_back.hpp).
#include <algorithm>

#include "tessera/core/error.hpp"

#include "tessera/lbm/boundary_links.hpp"

namespace tessera::lbm {

namespace {

template <class L>
std::vector<BoundaryLink> find_t(const GridLayout& g, const std::vector<uint8_t>& flags, int min_wall_id,
                                 const LinkFraction& fraction) {
  std::vector<BoundaryLink> out;
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        if (!is_fluid(flags[std::size_t(c)]) || (flags[std::size_t(c)] & kNoWallNeighbour)) continue;
        for (int q = 1; q < L::Q; ++q) {
          const int64_t off = g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
          const uint8_t fw = flags[std::size_t(c + off)];
          if (flag_kind(fw) != kWall || flag_wall_id(fw) < min_wall_id) continue;
          if (!is_fluid(flags[std::size_t(c - off)])) continue;  // no upstream cell: stays half-way
          const double d = fraction(i, j, k, q);
          if (!(d > 0.0 && d <= 1.0) || d == 0.5) continue;
          out.push_back(BoundaryLink{c, int32_t(q), float(d)});
        }
      }
  return out;
}

template <class L, class S>
void prepass_t(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const BoundaryLink* d,
               double* fstar, int64_t n) {
  InterpolatedBounceBack<L, S> body{static_cast<S*>(s.pops()), s.flags(), d, fstar, s.grid(), p.walls, s.parity == 1};
  if (!ex.on_device() && n < (int64_t(1) << 16)) {
    for (int64_t i = 0; i < n; ++i) body(i);  // a few links on the host: cheaper than waking an OpenMP team
    return;
  }
  exec::parallel_for(ex, "lbm::interpolated_bounce_back", n, body);
}

template <class L, class S>
std::array<double, 6> force_t(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                              const BoundaryLink* d, const double* fstar, int64_t n, const int64_t lo[3], int id) {
  LinkForceCorrection<L, S> body{static_cast<const S*>(s.pops()), s.flags(), d, fstar, s.grid(), p.walls, s.parity == 0,
                                 id, {lo[0], lo[1], lo[2]}};
  return exec::reduce_sums<double, 6>(ex, "lbm::link_force_correction", n, body);
}

struct Prepass {
  const exec::Exec& ex;
  LatticeState& s;
  const CollisionParams& p;
  const BoundaryLink* d;
  double* fstar;
  int64_t n;
  template <class L, class S>
  int run() const {
    prepass_t<L, S>(ex, s, p, d, fstar, n);
    return 0;
  }
};
struct ForceCorr {
  const exec::Exec& ex;
  const LatticeState& s;
  const CollisionParams& p;
  const BoundaryLink* d;
  const double* fstar;
  int64_t n;
  const int64_t* lo;
  int id;
  template <class L, class S>
  std::array<double, 6> run() const {
    return force_t<L, S>(ex, s, p, d, fstar, n, lo, id);
  }
};

// Calls fn.template run<L, S>() for the state's lattice and precision.
template <class L, class Fn>
auto dispatch_prec(Precision prec, const Fn& fn) {
  switch (prec) {
    case Precision::FP64: return fn.template run<L, double>();
    case Precision::FP32: return fn.template run<L, float>();
    default: return fn.template run<L, half_t>();
  }
}
template <class Fn>
auto dispatch(LatticeKind lat, Precision prec, const Fn& fn) {
  switch (lat) {
    case LatticeKind::D2Q9: return dispatch_prec<D2Q9>(prec, fn);
    case LatticeKind::D3Q19: return dispatch_prec<D3Q19>(prec, fn);
    default: return dispatch_prec<D3Q27>(prec, fn);
  }
}

}  // namespace

std::vector<BoundaryLink> find_boundary_links(LatticeKind lattice, const GridLayout& g, const std::vector<uint8_t>& flags,
                                              int min_wall_id, const LinkFraction& fraction) {
  TESSERA_REQUIRE(flags.size() == std::size_t(g.cells()), "find_boundary_links: flags must cover the padded cells");
  switch (lattice) {
    case LatticeKind::D2Q9: return find_t<D2Q9>(g, flags, min_wall_id, fraction);
    case LatticeKind::D3Q19: return find_t<D3Q19>(g, flags, min_wall_id, fraction);
    default: return find_t<D3Q27>(g, flags, min_wall_id, fraction);
  }
}

void interpolated_bounce_back(const exec::Exec& ex, LatticeState& s, const CollisionParams& p,
                              const BoundaryLink* d_links, int64_t count, double* d_fstar) {
  if (count <= 0) return;
  dispatch(s.lattice(), s.precision(), Prepass{ex, s, p, d_links, d_fstar, count});
}

std::array<double, 6> link_force_correction(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                                            const BoundaryLink* d_links, const double* d_fstar, int64_t count,
                                            const int64_t lo[3], int wall_id) {
  if (count <= 0) return {};
  return dispatch(s.lattice(), s.precision(), ForceCorr{ex, s, p, d_links, d_fstar, count, lo, wall_id});
}

}  // namespace tessera::lbm
