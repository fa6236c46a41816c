// Interpolated bounce-back on curved walls: the linear scheme of Bouzidi, Firdaouss & Lallemand,
// "Momentum transfer of a Boltzmann-lattice fluid with boundaries", Phys. Fluids 13, 3452 (2001), eqs. 5-6,
// with the moving-wall term of Krueger et al., "The Lattice Boltzmann Method" (Springer 2017), sec. 11.3.3.
//
// A boundary link joins fluid cell x_f to solid cell x_f + c_q; the wall cuts it at x_f + delta c_q,
// 0 < delta <= 1 (the fraction of the link in fluid). With f* post-collision, qb = opp(q) and the Ladd
// term wt = 6 w_q c_q.u_w, the population that comes back into x_f is
//   delta <  1/2:  f_qb(x_f, t+1) = 2 delta f*_q(x_f) + (1 - 2 delta) f*_q(x_f - c_q) - wt
//   delta >= 1/2:  f_qb(x_f, t+1) = [f*_q(x_f) - wt] / (2 delta) + (1 - 1/(2 delta)) f*_qb(x_f)
// delta = 1/2 is half-way bounce-back. The weights of each form sum to one, so the scheme works on the
// stored (w_q-shifted) values unchanged. A link whose upstream cell x_f - c_q is not fluid keeps half-way
// bounce-back and is not listed (the stencil needs it, and see the slot proof below).
//
// How it joins the AA kernels (stream_collide.hpp) without touching them: the half-way bounce-back there
// reads, for the link (x_f, q), one slot: slot(qb, x_f) [slot(p, x) = f[p * n + x]]. A small pass over the
// sparse link list, launched after every step (once its halo exchange has finished), overwrites that slot
// so that the next step's half-way read yields the Bouzidi value: it completes the step's streaming.
// Moments, field output and checkpoints then see the interpolated populations. What memory holds when
// the pass runs (the state's parity after the step):
//
//   parity 0 (after an odd step, which stored the bounce f*_q(x_f) - wt in slot(qb, x_f)):
//     f*_q(x_f)       = slot(qb, x_f) + wt
//     f*_q(x_f - c_q) = slot(q,  x_f)          (streamed there by the odd step / the reverse exchange)
//     f*_qb(x_f)      = slot(qb, x_f - c_q)    (streamed there by x_f; a ghost slot at a rank face)
//     the next (even) step reads slot(qb, x_f) as f_qb(x_f): write T.
//   parity 1 (after an even step, which stored f*_p(x) in slot(opp p, x)):
//     f*_q(x_f)       = slot(qb, x_f)
//     f*_q(x_f - c_q) = slot(qb, x_f - c_q)    (a ghost slot at a rank face: filled by the forward exchange)
//     f*_qb(x_f)      = slot(q,  x_f)
//     the next (odd) step reads slot(qb, x_f) + wall_term(qb) = slot - wt: write T + wt.
//
// The pass reads nothing it writes, so links run in any order: link (x, p) writes only slot(opp p, x).
// That slot is read as slot(q, x_f) by link (x_f, q) only if x = x_f and p = qb, i.e. x_f - c_q is solid,
// excluded; as slot(qb, x_f - c_q) only if x = x_f - c_q and p = q, i.e. x_f solid, impossible; and the
// own-cell slot(qb, x_f) of another link (x_f, q') is a different slot (q' != q). Distinct links write
// distinct slots. The initial state comes from no step and gets no pass. Ghost copies of a rewritten slot
// (the forward exchange ran before the pass) are never read: their reader would be the solid cell.
//
// Forces: momentum exchange with the interpolated populations (Bouzidi et al. 2001, sec. IV; Wen et al.,
// J. Comput. Phys. 266, 161, 2014, eq. 9 at rest walls): per link dP = c_q [f*_q(x_f) + f_qb(x_f, t+1)],
// applied at the wall point x_f + delta c_q. The pass overwrites f*_q(x_f), so it keeps it per link
// (`fstar`, unshifted fp64). wall_force() (momentum_exchange.hpp) sums the half-way form at the link
// midpoint from the slot; link_force_correction() adds, per listed link, the difference to the above.
#pragma once
#include <cstdint>

#include "tessera/core/exec.hpp"
#include "tessera/lbm/stream_collide.hpp"

namespace tessera::lbm {

// One interpolated link: fluid cell (padded index) and direction q towards the solid; delta in (0, 1].
struct BoundaryLink {
  int64_t cell = 0;
  int32_t q = 0;
  float delta = 0.5f;
};

// The three populations one link needs, unshifted where noted, and the Ladd term, at a given parity.
template <class L, class S, class A>
struct LinkInputs {
  A fs, fu, fo, wt;  // f*_q(x_f), f*_q(x_f - c_q), f*_qb(x_f) (stored, shifted); wall term
  TESSERA_HD LinkInputs(const S* __restrict__ f, const uint8_t* __restrict__ flags, const GridLayout& g,
                        const WallTable& walls, bool odd_next, const BoundaryLink& l) {
    const int64_t n = g.cells(), c = l.cell;
    const int q = l.q, qb = opposite(q);
    const int64_t off = g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
    wt = wall_term<L, A>(q, walls, flags[c + off]);
    if (!odd_next) {
      fs = A(Storage<S>::load(f[qb * n + c])) + wt;
      fu = A(Storage<S>::load(f[q * n + c]));
      fo = A(Storage<S>::load(f[qb * n + c - off]));
    } else {
      fs = A(Storage<S>::load(f[qb * n + c]));
      fu = A(Storage<S>::load(f[qb * n + c - off]));
      fo = A(Storage<S>::load(f[q * n + c]));
    }
  }
  // Bouzidi et al. 2001 eqs. 5-6 (linear), see the file comment.
  TESSERA_HD A incoming(A delta) const {
    if (delta < A(0.5)) return A(2) * delta * fs + (A(1) - A(2) * delta) * fu - wt;
    const A h = A(1) / (A(2) * delta);
    return h * (fs - wt) + (A(1) - h) * fo;
  }
};

// The pass: one thread per link, after a step (state parity as after that step).
template <class L, class S>
struct InterpolatedBounceBack {
  using A = typename Storage<S>::Real;
  S* f;
  const uint8_t* flags;
  const BoundaryLink* links;
  double* fstar;  // per link f*_q(x_f) unshifted, for the forces (may be null)
  GridLayout g;
  WallTable walls;
  bool odd_next = false;  // state parity 1
  TESSERA_HD void operator()(int64_t i) const {
    const BoundaryLink l = links[i];
    const LinkInputs<L, S, A> in(f, flags, g, walls, odd_next, l);
    const A t = in.incoming(A(l.delta));
    if (fstar) fstar[i] = double(in.fs) + L::w(l.q);
    f[opposite(l.q) * g.cells() + l.cell] = Storage<S>::store(odd_next ? t + in.wt : t);
  }
};

// Per link of wall id `wall_id`, after the pass: interpolated momentum exchange minus the half-way one that
// WallMomentumExchange counts for the same link from the rewritten slot (Fx, Fy, Fz, Mx, My, Mz about the
// global origin).
template <class L, class S>
struct LinkForceCorrection {
  const S* f;
  const uint8_t* flags;
  const BoundaryLink* links;
  const double* fstar;
  GridLayout g;
  WallTable walls;
  bool after_odd = false;  // state parity 0
  int wall_id = 0;
  int64_t lo[3] = {0, 0, 0};  // rank's first owned cell, global indices
  TESSERA_HD exec::Vec<double, 6> operator()(int64_t i) const {
    exec::Vec<double, 6> r = exec::Vec<double, 6>::zero();
    const BoundaryLink l = links[i];
    const int q = l.q;
    const int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
    const uint8_t fw = flags[l.cell + g.offset(cx, cy, cz)];
    if (flag_wall_id(fw) != wall_id) return r;
    // The same arithmetic as WallMomentumExchange on this slot, and what the slot really holds.
    const double s = double(Storage<S>::load(f[opposite(q) * g.cells() + l.cell])) + L::w(q);
    const double wt = double(wall_term<L, double>(q, walls, fw));
    const double m_hw = 2.0 * (after_odd ? s + wt : s) - wt;
    const double t_in = after_odd ? s : s - wt;  // f_qb(x_f, t+1), unshifted
    const double m_ib = fstar[i] + t_in;
    // Cell (padded index) -> global centre: padded (i+1, j+1, k+gz) is interior (i, j, k).
    const int64_t px = g.px(), py = g.py();
    const int64_t ii = l.cell % px - 1, jj = (l.cell / px) % py - 1, kk = l.cell / (px * py) - g.gz;
    const double x = double(lo[0] + ii) + 0.5, y = double(lo[1] + jj) + 0.5, z = double(lo[2] + kk) + 0.5;
    const double d = double(l.delta);
    // Force difference, and moment (arm at the wall point) minus the half-way moment (arm at the midpoint).
    const double a_ib[3] = {x + d * cx, y + d * cy, z + d * cz}, a_hw[3] = {x + 0.5 * cx, y + 0.5 * cy, z + 0.5 * cz};
    const double p_ib[3] = {cx * m_ib, cy * m_ib, cz * m_ib}, p_hw[3] = {cx * m_hw, cy * m_hw, cz * m_hw};
    for (int a = 0; a < 3; ++a) r[a] = p_ib[a] - p_hw[a];
    r[3] = (a_ib[1] * p_ib[2] - a_ib[2] * p_ib[1]) - (a_hw[1] * p_hw[2] - a_hw[2] * p_hw[1]);
    r[4] = (a_ib[2] * p_ib[0] - a_ib[0] * p_ib[2]) - (a_hw[2] * p_hw[0] - a_hw[0] * p_hw[2]);
    r[5] = (a_ib[0] * p_ib[1] - a_ib[1] * p_ib[0]) - (a_hw[0] * p_hw[1] - a_hw[1] * p_hw[0]);
    return r;
  }
};

}  // namespace tessera::lbm
