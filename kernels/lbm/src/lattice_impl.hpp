// Internal: the portable implementation of the LatticeState operations for one velocity set L,
// written once for both back ends (functors launched through exec::parallel_for).
#pragma once
#include <vector>

#include "lattice_ops.hpp"
#include "tessera/core/error.hpp"
#include "tessera/lbm/momentum_exchange.hpp"

namespace tessera::lbm::detail {

template <class L, class S>
struct InitEquilibrium {
  using A = typename Storage<S>::Real;
  S* f;
  const float* rho;
  const float* u;
  int64_t n;
  TESSERA_HD void operator()(int64_t c) const {
    const A r = A(rho[c]), ux = A(u[c]), uy = A(u[n + c]), uz = L::D == 3 ? A(u[2 * n + c]) : A(0);
    const A usq = ux * ux + uy * uy + uz * uz;
    TESSERA_LBM_UNROLL
    for (int q = 0; q < L::Q; ++q) f[q * n + c] = Storage<S>::store(feq_bar<L, A>(q, r, ux, uy, uz, usq));
  }
};

template <class L, class S>
struct Moments {
  using A = typename Storage<S>::Real;
  const S* f;
  const uint8_t* flags;
  StepArgs<A> a;
  float* rho;
  float* u;
  OpenTable open;
  TESSERA_HD void operator()(int64_t i, int64_t j, int64_t k) const {
    const int64_t c = a.grid.cell(i, j, k), n = a.grid.cells();
    if (!is_fluid(flags[c])) {
      rho[c] = 1.0f;
      u[c] = u[n + c] = u[2 * n + c] = 0.0f;
      return;
    }
    A fq[L::Q], F[3];
    if (flag_kind(flags[c]) == kOpen) {
      open_load<L, S, A>(f, flags, a, open, c, i, j, k, fq, F);
    } else {
      aa_load<L, S, A>(f, flags, a.grid, a.odd, a.walls, c, fq);
      F[0] = a.Fx, F[1] = a.Fy, F[2] = a.Fz;
      if (a.force) {
        F[0] += A(a.force[c]);
        F[1] += A(a.force[n + c]);
        F[2] += A(a.force[2 * n + c]);
      }
    }
    const CellMoments<A> m = moments<L, A>(fq, F[0], F[1], F[2]);
    rho[c] = float(m.rho);
    u[c] = float(m.ux);
    u[n + c] = float(m.uy);
    u[2 * n + c] = float(m.uz);
  }
};

template <class A>
StepArgs<A> make_step_args(const LatticeState& s, const CollisionParams& p) {
  StepArgs<A> a;
  a.grid = s.grid();
  a.relax = make_relaxation<A>(p);
  a.Fx = A(p.force[0]);
  a.Fy = A(p.force[1]);
  a.Fz = A(p.force[2]);
  a.force = s.force_field_or_null();
  a.walls = p.walls;
  a.odd = s.parity == 1;
  return a;
}

// Runs a cell body over a sub-box: local interior indices shifted by the box origin, so the body (and
// each cell's arithmetic) is exactly the whole-box one.
template <class Body>
struct OffsetCells {
  Body body;
  int64_t i0, j0, k0;
  TESSERA_HD void operator()(int64_t i, int64_t j, int64_t k) const { body(i0 + i, j0 + j, k0 + k); }
};

template <class L>
struct Impl {
  template <class S>
  static void init_t(const exec::Exec& ex, LatticeState& s, const float* rho, const float* u) {
    exec::parallel_for(ex, "lbm::init", s.grid().cells(),
                       InitEquilibrium<L, S>{static_cast<S*>(s.pops()), rho, u, s.grid().cells()});
  }
  static void init(const exec::Exec& ex, LatticeState& s, const float* rho, const float* u) {
    switch (s.precision()) {
      case Precision::FP64: init_t<double>(ex, s, rho, u); break;
      case Precision::FP32: init_t<float>(ex, s, rho, u); break;
      case Precision::FP16: init_t<half_t>(ex, s, rho, u); break;
    }
  }

  template <class S, CollisionKind K>
  static void step_k(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
    using A = typename Storage<S>::Real;
    const GridLayout& g = s.grid();
    StreamCollideAA<L, S, K> body{static_cast<S*>(s.pops()), s.flags(), make_step_args<A>(s, p), p.open};
    exec::parallel_for(ex, "lbm::stream_collide", exec::Range3{g.nx, g.ny, g.nz}, body);
  }
  template <class S, CollisionKind K>
  static void box_k(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& b) {
    using A = typename Storage<S>::Real;
    StreamCollideAA<L, S, K> body{static_cast<S*>(s.pops()), s.flags(), make_step_args<A>(s, p), p.open};
    exec::parallel_for(ex, "lbm::stream_collide_box", exec::Range3{b.extent(0), b.extent(1), b.extent(2)},
                       OffsetCells<StreamCollideAA<L, S, K>>{body, b.lo[0], b.lo[1], b.lo[2]});
  }
  // box == nullptr: the whole box through the plain launch (unchanged by the sub-box path).
  template <class S>
  static void step_s(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox* b) {
    switch (p.kind) {
      case CollisionKind::BGK:
        b ? box_k<S, CollisionKind::BGK>(ex, s, p, *b) : step_k<S, CollisionKind::BGK>(ex, s, p);
        break;
      case CollisionKind::TRT:
        b ? box_k<S, CollisionKind::TRT>(ex, s, p, *b) : step_k<S, CollisionKind::TRT>(ex, s, p);
        break;
      case CollisionKind::Regularized:
        b ? box_k<S, CollisionKind::Regularized>(ex, s, p, *b) : step_k<S, CollisionKind::Regularized>(ex, s, p);
        break;
    }
  }
  static void step_any(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox* b) {
    switch (s.precision()) {
      case Precision::FP64: step_s<double>(ex, s, p, b); break;
      case Precision::FP32: step_s<float>(ex, s, p, b); break;
      case Precision::FP16: step_s<half_t>(ex, s, p, b); break;
    }
  }
  static void step(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) { step_any(ex, s, p, nullptr); }
  static void step_box(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& b) {
    step_any(ex, s, p, &b);
  }

  template <class S>
  static void moments_t(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p, float* rho,
                        float* u) {
    using A = typename Storage<S>::Real;
    const GridLayout& g = s.grid();
    Moments<L, S> body{static_cast<const S*>(s.pops()), s.flags(), make_step_args<A>(s, p), rho, u, p.open};
    exec::parallel_for(ex, "lbm::moments", exec::Range3{g.nx, g.ny, g.nz}, body);
  }
  static void moments(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p, float* rho, float* u) {
    switch (s.precision()) {
      case Precision::FP64: moments_t<double>(ex, s, p, rho, u); break;
      case Precision::FP32: moments_t<float>(ex, s, p, rho, u); break;
      case Precision::FP16: moments_t<half_t>(ex, s, p, rho, u); break;
    }
  }

  template <class S>
  static void read_t(const LatticeState& s, std::vector<double>& out) {
    const int64_t n = s.grid().cells();
    Buffer<S> h(std::size_t(n * L::Q), MemKind::Host, "lbm::read_slots");
    copy_n(h.data(), MemKind::Host, static_cast<const S*>(s.pops()), s.memkind(), h.size());
    out.resize(h.size());
    for (int q = 0; q < L::Q; ++q)
      for (int64_t c = 0; c < n; ++c)
        out[std::size_t(q * n + c)] = double(Storage<S>::load(h[std::size_t(q * n + c)])) + L::w(q);
  }
  static void read(const LatticeState& s, std::vector<double>& out) {
    switch (s.precision()) {
      case Precision::FP64: read_t<double>(s, out); break;
      case Precision::FP32: read_t<float>(s, out); break;
      case Precision::FP16: read_t<half_t>(s, out); break;
    }
  }
  template <class S>
  static void write_t(LatticeState& s, const std::vector<double>& in) {
    using A = typename Storage<S>::Real;
    const int64_t n = s.grid().cells();
    TESSERA_REQUIRE(in.size() == std::size_t(n * L::Q), "write_slots: expected Q * padded cells values");
    Buffer<S> h(in.size(), MemKind::Host, "lbm::write_slots");
    for (int q = 0; q < L::Q; ++q)
      for (int64_t c = 0; c < n; ++c)
        h[std::size_t(q * n + c)] = Storage<S>::store(A(in[std::size_t(q * n + c)] - L::w(q)));
    copy_n(static_cast<S*>(s.pops()), s.memkind(), h.data(), MemKind::Host, h.size());
  }
  static void write(LatticeState& s, const std::vector<double>& in) {
    switch (s.precision()) {
      case Precision::FP64: write_t<double>(s, in); break;
      case Precision::FP32: write_t<float>(s, in); break;
      case Precision::FP16: write_t<half_t>(s, in); break;
    }
  }

  template <class S>
  static std::array<double, 6> force_t(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                                       const int64_t* lo, int id) {
    const GridLayout& g = s.grid();
    WallMomentumExchange<L, S> body{static_cast<const S*>(s.pops()), s.flags(), g, p.walls, s.parity == 0, id,
                                    {lo[0], lo[1], lo[2]}};
    return exec::reduce_sums<double, 6>(ex, "lbm::momentum_exchange", exec::Range3{g.nx, g.ny, g.nz}, body);
  }
  static std::array<double, 6> force(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                                     const int64_t* lo, int id) {
    switch (s.precision()) {
      case Precision::FP64: return force_t<double>(ex, s, p, lo, id);
      case Precision::FP32: return force_t<float>(ex, s, p, lo, id);
      case Precision::FP16: return force_t<half_t>(ex, s, p, lo, id);
    }
    return {};
  }

  static const LatticeOps& table() {
    static const LatticeOps o{&init, &step, &step_box, &moments, &read, &write, &force};
    return o;
  }
};

}  // namespace tessera::lbm::detail
