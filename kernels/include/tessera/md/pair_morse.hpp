// Morse pair evaluator:
//   U(r) = D0 [ exp(-2 a (r - r0)) - 2 exp(-a (r - r0)) ]      (Morse, Phys. Rev. 34, 57 (1929))
//   F(r) = -U'(r) = 2 a D0 [ exp(-2 a (r - r0)) - exp(-a (r - r0)) ]
// cut at rc; optionally energy-shifted so that U(rc) = 0.
#pragma once
#include <cmath>

#include "tessera/core/config_macros.hpp"

namespace tessera::md {

struct MorseParam {
  double d0 = 0, alpha = 1, r0 = 1, rc = 0, rc2 = 0, u_rc = 0;
  static MorseParam make(double d0, double alpha, double r0, double rc, bool shift) {
    MorseParam p{d0, alpha, r0, rc, rc * rc, 0};
    if (shift) {
      const double e = std::exp(-alpha * (rc - r0));
      p.u_rc = d0 * (e * e - 2 * e);
    }
    return p;
  }
};

struct PairMorse {
  using Param = MorseParam;
  static constexpr const char* name = "morse";
  template <class T>
  TESSERA_HD static bool eval(T r2, const Param& p, T& fr, T& u) {
    if (r2 >= T(p.rc2) || p.d0 == 0) return false;
    const T r = sqrt(r2);
    const T e = exp(-T(p.alpha) * (r - T(p.r0)));
    u = T(p.d0) * (e * e - T(2) * e) - T(p.u_rc);
    fr = T(2) * T(p.alpha) * T(p.d0) * (e * e - e) / r;
    return true;
  }
};

}  // namespace tessera::md
