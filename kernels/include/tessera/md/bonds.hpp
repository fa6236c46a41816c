// Bond evaluators (force on atom i from its partner j is fr * (r_i - r_j)).
//
// Harmonic:  U(r) = k/2 (r - r0)^2,                 F/r = -k (r - r0) / r
// FENE:      U(r) = -K R0^2 / 2 ln(1 - (r/R0)^2),   F/r = -K / (1 - (r/R0)^2)
//            Kremer & Grest, J. Chem. Phys. 92, 5057 (1990): K = 30 eps/sigma^2, R0 = 1.5 sigma, used
//            together with the WCA pair potential acting between all pairs (bonded ones included),
//            which is the same total bonded interaction as LAMMPS' bond_style fene with special_bonds 0 1 1.
// A FENE bond stretched to r >= R0 has no finite energy: eval returns false and the caller reports it.
#pragma once
#include <cmath>

#include "tessera/core/config_macros.hpp"

namespace tessera::md {

enum class BondStyle { harmonic = 0, fene = 1 };

struct BondParam {
  int style = 0;     // BondStyle
  double k = 0;      // harmonic k or FENE K
  double r0 = 1;     // harmonic rest length or FENE R0
};

struct BondEval {
  template <class T>
  TESSERA_HD static bool eval(T r2, const BondParam& p, T& fr, T& u) {
    if (p.style == int(BondStyle::harmonic)) {
      const T r = sqrt(r2);
      const T d = r - T(p.r0);
      u = T(0.5) * T(p.k) * d * d;
      fr = -T(p.k) * d / r;
      return true;
    }
    const T x = r2 / T(p.r0 * p.r0);
    if (x >= T(1)) {
      u = T(0);
      fr = T(0);
      return false;
    }
    u = -T(0.5) * T(p.k) * T(p.r0 * p.r0) * std::log(T(1) - x);
    fr = -T(p.k) / (T(1) - x);
    return true;
  }
};

}  // namespace tessera::md
