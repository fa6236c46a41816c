// Collision at one cell: BGK, TRT and regularized BGK, optional Smagorinsky LES, Guo forcing.
//
// All formulas act on shifted populations fbar_q = f_q - w_q (storage.hpp), in lattice units
// (dx = dt = 1, c_s^2 = 1/3). With drho = rho - 1 = sum fbar and j = sum c fbar:
//   u        = (j + F/2) / rho                                   (Guo, Zheng & Shi, PRE 65 046308, 2002)
//   feqbar_q = w_q [drho + rho (3 c.u + 9/2 (c.u)^2 - 3/2 u.u)]  (second-order equilibrium minus w_q)
//   BGK:  f*_q = f_q - w (f_q - feq_q) + (1 - w/2) w_q [3 (c - u).F + 9 (c.u)(c.F)]
//   TRT:  symmetric/antisymmetric parts relax with w+ = 1/tau and w-, chosen from the magic parameter
//         Lambda = (1/w+ - 1/2)(1/w- - 1/2) (Ginzburg, Verhaeghe & d'Humieres, CiCP 3 427, 2008);
//         Lambda = 3/16 puts half-way bounce-back walls exactly at mid-link for Poiseuille flow.
//         Guo source split the same way: (1 - w-/2) acts on its odd part, (1 - w+/2) on the even part.
//   Regularized (Latt & Chopard, Math. Comput. Simul. 72 165, 2006): the non-equilibrium part is
//         replaced by its projection on the second Hermite polynomial,
//         fneq_q -> w_q [3 c_q.(j - rho u) + 9/2 (c_q c_q - I/3) : Pi_neq],  Pi_neq = sum c c (f - feq),
//         where j - rho u = -F/2 with Guo's velocity,
//         which filters the non-hydrodynamic (ghost) moments that make BGK blow up at high Reynolds
//         number; it costs one extra pass over q and works unchanged on all three lattices. We chose it
//         over MRT/cumulants for that reason: one operator, no per-lattice moment matrices.
//   Smagorinsky (Hou et al., J. Comput. Phys. 118 329, 1996): tau_eff = (tau + sqrt(tau^2 +
//         18 sqrt(2) C_s^2 |Pi| / rho)) / 2, with Pi = Pi_neq + (u F + F u)/2 (the force-corrected flux).
#pragma once
#include <cmath>

#include "tessera/lbm/lattice.hpp"

#if defined(__CUDACC__)
#define TESSERA_LBM_UNROLL _Pragma("unroll")
#else
#define TESSERA_LBM_UNROLL _Pragma("GCC unroll 32")
#endif

namespace tessera::lbm {

enum class CollisionKind { BGK, TRT, Regularized };
const char* to_string(CollisionKind k);
CollisionKind parse_collision(const char* s);  // "bgk" | "trt" | "regularized"

// Relaxation constants in the arithmetic type A, computed once on the host.
template <class A>
struct Relaxation {
  A omega = 1;        // 1/tau (w+ for TRT)
  A omega_minus = 1;  // TRT only
  A magic = A(3) / A(16);
  A smag_c2 = 0;      // C_s^2; 0 switches LES off
};

template <class A>
struct CellMoments {
  A rho, ux, uy, uz;
};

// a b + c: fused on the device, written out so that every kernel shape rounds alike (left to contraction,
// nvcc fuses one or the other product of a b + c d depending on the surrounding code, and the tuned
// kernels must give each other's bits: tests/lbm/test_tuned.cpp); plain on the host (host and device
// agree to rounding).
template <class A>
TESSERA_HD inline A mad(A a, A b, A c) {
#if TESSERA_DEVICE_PASS
  return fma(a, b, c);
#else
  return a * b + c;
#endif
}

// Density and Guo-corrected velocity from shifted populations. kForce = false: no force at all (F is
// ignored, u = j / rho); the tuned kernels use it when the step has no force (same values as F = 0, up
// to the sign of an exact zero). Summed over the pairs (q, q + 1) of opposite velocities: drho from the
// pair sums, j from the pair differences (c_{q+1} = -c_q), each sum started from its first term rather
// than from 0 (0 + x is not foldable in IEEE arithmetic): D3Q19 takes 39 adds instead of 49.
template <class L, class A, bool kForce = true>
TESSERA_HD inline CellMoments<A> moments(const A (&f)[L::Q], A Fx, A Fy, A Fz) {
  if constexpr (L::D == 2) Fz = A(0);
  A drho = f[0], j[3] = {A(0), A(0), A(0)};
  bool started[3] = {false, false, false};  // folds away in the unrolled loop
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; q += 2) {
    drho += f[q] + f[q + 1];
    const A d = f[q] - f[q + 1];
    TESSERA_LBM_UNROLL
    for (int a = 0; a < 3; ++a) {
      const int c = L::c(q, a);
      if (c == 0) continue;
      j[a] = started[a] ? (c > 0 ? j[a] + d : j[a] - d) : (c > 0 ? d : -d);
      started[a] = true;
    }
  }
  const A rho = A(1) + drho;
  const A inv = A(1) / rho;
  if constexpr (!kForce) return {rho, j[0] * inv, j[1] * inv, j[2] * inv};
  return {rho, mad(A(0.5), Fx, j[0]) * inv, mad(A(0.5), Fy, j[1]) * inv, mad(A(0.5), Fz, j[2]) * inv};
}

// c_q . v for a compile-time q, from its nonzero components only (0 * v is not foldable either).
template <class L, class A>
TESSERA_HD inline A c_dot(int q, A vx, A vy, A vz) {
  const A v[3] = {vx, vy, vz};
  A s = A(0);
  bool started = false;
  TESSERA_LBM_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int c = L::c(q, a);
    if (c == 0) continue;
    s = started ? (c > 0 ? s + v[a] : s - v[a]) : (c > 0 ? v[a] : -v[a]);
    started = true;
  }
  return s;
}

template <class L, class A>
TESSERA_HD inline A feq_bar(int q, A rho, A ux, A uy, A uz, A usq) {
  const A cu = c_dot<L, A>(q, ux, uy, uz);
  return A(L::w(q)) * ((rho - A(1)) + rho * (A(3) * cu + A(4.5) * cu * cu - A(1.5) * usq));
}

// Second-order TRT relaxation rate w- from w+ and the magic parameter.
template <class A>
TESSERA_HD inline A trt_omega_minus(A omega_plus, A magic) {
  return A(1) / (magic / (A(1) / omega_plus - A(0.5)) + A(0.5));
}

// Non-equilibrium momentum flux Pi_neq = sum_q c_q c_q (f_q - feq_q) (regularized operator, LES).
template <class L, class A>
TESSERA_HD inline void neq_flux(const A (&f)[L::Q], const A (&feq)[L::Q], A& pxx, A& pyy, A& pzz, A& pxy, A& pxz,
                                A& pyz) {
  TESSERA_LBM_UNROLL
  for (int q = 0; q < L::Q; ++q) {
    const A d = f[q] - feq[q];
    const int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
    if (cx) pxx += d;
    if (cy) pyy += d;
    if (cz) pzz += d;
    if (cx != 0 && cy != 0) pxy += A(cx * cy) * d;
    if (cx != 0 && cz != 0) pxz += A(cx * cz) * d;
    if (cy != 0 && cz != 0) pyz += A(cy * cz) * d;
  }
}

// The Smagorinsky relaxation rate from Pi_neq (and the force-corrected flux with kForce).
template <class A, bool kForce>
TESSERA_HD inline A smagorinsky_omega(const CellMoments<A>& m, const Relaxation<A>& r, A Fx, A Fy, A Fz, A pxx, A pyy,
                                      A pzz, A pxy, A pxz, A pyz) {
  A sxx = pxx, syy = pyy, szz = pzz, sxy = pxy, sxz = pxz, syz = pyz;
  if constexpr (kForce) {
    sxx = pxx + m.ux * Fx, syy = pyy + m.uy * Fy, szz = pzz + m.uz * Fz;
    sxy = pxy + A(0.5) * (m.ux * Fy + m.uy * Fx), sxz = pxz + A(0.5) * (m.ux * Fz + m.uz * Fx),
    syz = pyz + A(0.5) * (m.uy * Fz + m.uz * Fy);
  }
  const A pi_norm = std::sqrt(sxx * sxx + syy * syy + szz * szz + A(2) * (sxy * sxy + sxz * sxz + syz * syz));
  const A tau0 = A(1) / r.omega;
  const A tau = A(0.5) * (tau0 + std::sqrt(tau0 * tau0 + A(18) * A(1.4142135623730951) * r.smag_c2 * pi_norm / m.rho));
  return A(1) / tau;
}

// The LES relaxation rate of a cell (BGK with the Smagorinsky model): the equilibria, Pi_neq, omega.
template <class L, class A, bool kForce>
TESSERA_HD inline A les_omega(const A (&f)[L::Q], const CellMoments<A>& m, A usq, const Relaxation<A>& r, A Fx, A Fy,
                              A Fz) {
  A feq[L::Q];
  TESSERA_LBM_UNROLL
  for (int q = 0; q < L::Q; ++q) feq[q] = feq_bar<L, A>(q, m.rho, m.ux, m.uy, m.uz, usq);
  A pxx = 0, pyy = 0, pzz = 0, pxy = 0, pxz = 0, pyz = 0;
  neq_flux<L, A>(f, feq, pxx, pyy, pzz, pxy, pxz, pyz);
  return smagorinsky_omega<A, kForce>(m, r, Fx, Fy, Fz, pxx, pyy, pzz, pxy, pxz, pyz);
}

// Collide in place. Returns the cell's moments (rho, u) as used by the collision. kForce = false drops
// every force term (Guo's velocity shift and source): for steps without a force, ~150 fewer instructions
// per D3Q19 cell in the tuned kernels. kLes = false (the default with kForce = false: the tuned kernels take
// the force-free form only for steps without force and without the Smagorinsky model, tuned_force_terms)
// leaves the Smagorinsky model out at compile time; with r.smag_c2 = 0 that is the same arithmetic, and the
// equilibria, then used by the relaxation only, need not be held all at once (registers).
template <class L, CollisionKind K, class A, bool kForce = true, bool kLes = kForce>
TESSERA_HD inline CellMoments<A> collide(A (&f)[L::Q], const Relaxation<A>& r, A Fx, A Fy, A Fz) {
  constexpr int Q = L::Q;
  if constexpr (L::D == 2) Fz = A(0);  // a 2-D lattice has no z momentum
  const CellMoments<A> m = moments<L, A, kForce>(f, Fx, Fy, Fz);
  if constexpr (K == CollisionKind::BGK) {
    const A usq = mad(m.uz, m.uz, mad(m.uy, m.uy, m.ux * m.ux));
    const A uF = kForce ? mad(m.uz, Fz, mad(m.uy, Fy, m.ux * Fx)) : A(0);
    // BGK by pairs (q, p = q + 1 = opposite(q)): with cu = c_q.u the equilibrium splits into an even part
    // E = w [(rho - 1) - 3/2 rho u.u + 9/2 rho cu^2] and an odd part O = 3 w rho cu, feq_q = E + O,
    // feq_p = E - O, and f*_q = (1 - omega) f_q + omega feq_q, with omega folded into the constants per
    // weight; Guo's source splits the same way (even w s (9 cu cF - 3 u.F), odd 3 w s cF). About 8
    // instructions per pair instead of ~10 per population (docs/performance.md, LBM item 29); at zero force
    // the source terms are exact zeros, so the force-free form (kForce = false) gives the same values.
    const A omega = (kLes && r.smag_c2 > A(0)) ? les_omega<L, A, kForce>(f, m, usq, r, Fx, Fy, Fz) : r.omega;
    [[maybe_unused]] const A s = A(1) - A(0.5) * omega;
    const A omc = A(1) - omega;
    const A B = mad(A(-1.5) * m.rho, usq, m.rho - A(1)), rho45 = A(4.5) * m.rho, rho3 = A(3) * m.rho;
    f[0] = mad(omc, f[0], omega * A(L::w(0)) * B);
    if constexpr (kForce) f[0] = mad(A(L::w(0)) * s, A(-3) * uF, f[0]);
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; q += 2) {
      const int p = q + 1;
      const A ow = omega * A(L::w(q));  // the same for every pair of a weight: one product per weight
      const A cu = c_dot<L, A>(q, m.ux, m.uy, m.uz);
      A e = mad(ow * rho45, cu * cu, ow * B), o = ow * rho3 * cu;
      if constexpr (kForce) {
        const A cF = c_dot<L, A>(q, Fx, Fy, Fz), ws = A(L::w(q)) * s;
        e = mad(ws, mad(A(9) * cu, cF, A(-3) * uF), e);
        o = mad(ws, A(3) * cF, o);
      }
      f[q] = mad(omc, f[q], e + o);
      f[p] = mad(omc, f[p], e - o);
    }
  } else {
    const A usq = m.ux * m.ux + m.uy * m.uy + m.uz * m.uz;
    const A uF = kForce ? m.ux * Fx + m.uy * Fy + m.uz * Fz : A(0);
    A feq[Q];
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) feq[q] = feq_bar<L, A>(q, m.rho, m.ux, m.uy, m.uz, usq);

    // Non-equilibrium momentum flux (needed by the regularized operator and by LES).
    A pxx = 0, pyy = 0, pzz = 0, pxy = 0, pxz = 0, pyz = 0;
    const bool need_pi = (K == CollisionKind::Regularized) || (kLes && r.smag_c2 > A(0));
    if (need_pi) neq_flux<L, A>(f, feq, pxx, pyy, pzz, pxy, pxz, pyz);
    A omega = r.omega;
    if (kLes && r.smag_c2 > A(0)) omega = smagorinsky_omega<A, kForce>(m, r, Fx, Fy, Fz, pxx, pyy, pzz, pxy, pxz, pyz);

    if constexpr (K == CollisionKind::TRT) {
      const A om = (kLes && r.smag_c2 > A(0)) ? trt_omega_minus(omega, r.magic) : r.omega_minus;
      const A sp = A(1) - A(0.5) * omega, sm = A(1) - A(0.5) * om;
      A out[Q];
      out[0] = f[0] - omega * (f[0] - feq[0]);
      if constexpr (kForce) out[0] = out[0] + A(L::w(0)) * sp * (A(-3) * uF);
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; q += 2) {
        const int p = q + 1;  // opposite of q
        const A fp = A(0.5) * (f[q] + f[p]), fm = A(0.5) * (f[q] - f[p]);
        const A ep = A(0.5) * (feq[q] + feq[p]), em = A(0.5) * (feq[q] - feq[p]);
        const A cu = c_dot<L, A>(q, m.ux, m.uy, m.uz);
        const A cF = c_dot<L, A>(q, Fx, Fy, Fz);
        const A w = A(L::w(q));
        const A src_even = w * sp * (A(9) * cu * cF - A(3) * uF);
        const A src_odd = w * sm * (A(3) * cF);
        const A even = kForce ? fp - omega * (fp - ep) + src_even : fp - omega * (fp - ep);
        const A odd = kForce ? fm - om * (fm - em) + src_odd : fm - om * (fm - em);
        out[q] = even + odd;
        out[p] = even - odd;
      }
      TESSERA_LBM_UNROLL
      for (int q = 0; q < Q; ++q) f[q] = out[q];
    } else {
      const A s = A(1) - A(0.5) * omega;
      const A tr = (pxx + pyy + pzz) / A(3);
      TESSERA_LBM_UNROLL
      for (int q = 0; q < Q; ++q) {
        const int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
        const A cu = c_dot<L, A>(q, m.ux, m.uy, m.uz);
        const A cF = c_dot<L, A>(q, Fx, Fy, Fz);
        const A w = A(L::w(q));
        const A src = w * s * (A(3) * (cF - uF) + A(9) * cu * cF);
        {  // regularized (BGK is the branch above)
          const A qpi = A(cx * cx) * pxx + A(cy * cy) * pyy + A(cz * cz) * pzz +
                        A(2) * (A(cx * cy) * pxy + A(cx * cz) * pxz + A(cy * cz) * pyz);
          // Q_q : Pi = sum_ab c_a c_b Pi_ab - (1/3) tr(Pi) (the identity part of Q contracts to the trace)
          // The first-order part of fneq, j - rho u = -F/2, is kept (relaxed like BGK's odd moments) so
          // that the Guo force enters the momentum exactly once.
          const A fneq = kForce ? w * (A(4.5) * (qpi - tr) - A(1.5) * cF) : w * (A(4.5) * (qpi - tr));
          f[q] = kForce ? feq[q] + (A(1) - omega) * fneq + src : feq[q] + (A(1) - omega) * fneq;
        }
      }
    }
  }
  return m;
}

}  // namespace tessera::lbm
