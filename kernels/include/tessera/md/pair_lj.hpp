// Lennard-Jones pair evaluator (plain cut, energy-shifted, force-shifted) and WCA.
//
//   U(r) = 4 eps [ (sigma/r)^12 - (sigma/r)^6 ]                       (Allen & Tildesley, eq. 1.6)
//   F(r)/r = -U'(r)/r = (48 eps s^12 - 24 eps s^6) / r^2,  s = sigma/r
// Variants for r < rc (zero beyond):
//   cut:          U(r)
//   shift:        U(r) - U(rc)                                        (continuous energy)
//   force_shift:  U(r) - U(rc) + (r - rc) F(rc),  F_fs = F(r) - F(rc)  (continuous force; Toxvaerd &
//                 Dyre, J. Chem. Phys. 134, 081102 (2011))
// WCA (Weeks, Chandler & Andersen 1971) is LJ cut at 2^(1/6) sigma, shifted up by eps.
//
// The evaluator works in T (double, or float for mixed precision); parameters are stored in double.
#pragma once
#include <cmath>

#include "tessera/core/config_macros.hpp"

namespace tessera::md {

enum class ShiftMode { cut = 0, shift = 1, force_shift = 2 };

struct LJParam {
  double eps = 0, sigma = 1, rc = 0;
  double rc2 = 0;
  double u_rc = 0;    // U(rc) for shift modes
  double f_rc = 0;    // F(rc) = -U'(rc) for force_shift
  int mode = 0;       // ShiftMode

  static LJParam make(double eps, double sigma, double rc, ShiftMode m) {
    LJParam p;
    p.eps = eps;
    p.sigma = sigma;
    p.rc = rc;
    p.rc2 = rc * rc;
    p.mode = int(m);
    const double s6 = std::pow(sigma / rc, 6);
    if (m != ShiftMode::cut) p.u_rc = 4 * eps * (s6 * s6 - s6);
    if (m == ShiftMode::force_shift) p.f_rc = (48 * eps * s6 * s6 - 24 * eps * s6) / rc;
    return p;
  }
  // WCA: purely repulsive, U(rc) = -eps so the shifted energy is U + eps.
  static LJParam wca(double eps, double sigma) { return make(eps, sigma, std::pow(2.0, 1.0 / 6.0) * sigma, ShiftMode::shift); }
};

struct PairLJ {
  using Param = LJParam;
  static constexpr const char* name = "lj";
  // Returns false beyond the cut-off. fr = F(r)/r, so the force on i is fr * (r_i - r_j).
  template <class T>
  TESSERA_HD static bool eval(T r2, const Param& p, T& fr, T& u) {
    if (r2 >= T(p.rc2) || p.eps == 0) return false;
    const T inv2 = T(1) / r2;
    const T s2 = T(p.sigma * p.sigma) * inv2;
    const T s6 = s2 * s2 * s2;
    const T e = T(p.eps);
    fr = (T(48) * e * s6 * s6 - T(24) * e * s6) * inv2;
    u = T(4) * e * (s6 * s6 - s6) - T(p.u_rc);
    if (p.mode == int(ShiftMode::force_shift)) {
      const T r = sqrt(r2);
      fr -= T(p.f_rc) / r;
      u += (r - T(p.rc)) * T(p.f_rc);
    }
    return true;
  }
};

}  // namespace tessera::md
