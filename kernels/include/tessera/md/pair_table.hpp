// Tabulated pair evaluator: energies U_k and forces F_k = -U'(r_k) on a uniform grid
// r_k = rmin + k dr, k = 0..n-1, interpolated with cubic Hermite polynomials in r.
//
// Because the interpolant of U uses -F_k as its derivative at the knots, the returned force is exactly
// -dU/dr of the returned energy (the two stay consistent, so NVE conserves the interpolated energy).
// Below rmin the force of the first knot is used and U is extended linearly; beyond r_{n-1} it is zero.
// The table is owned by the caller (a Buffer in the memory of the execution space); `data` holds
// pairs (U_k, F_k) for every pair type, at offset `offset`.
#pragma once
#include <cmath>

#include "tessera/core/config_macros.hpp"

namespace tessera::md {

struct TableParam {
  const double* data = nullptr;  // [2*k] = U_k, [2*k+1] = F_k
  double rmin = 0, dr = 1, rc2 = 0;
  int n = 0;
};

struct PairTable {
  using Param = TableParam;
  static constexpr const char* name = "table";
  template <class T>
  TESSERA_HD static bool eval(T r2, const Param& p, T& fr, T& u) {
    if (r2 >= T(p.rc2) || p.n < 2) return false;
    const T r = sqrt(r2);
    const T s = (r - T(p.rmin)) / T(p.dr);
    if (s <= T(0)) {
      u = T(p.data[0]) + T(p.data[1]) * (T(p.rmin) - r);
      fr = T(p.data[1]) / r;
      return true;
    }
    int k = int(s);
    if (k >= p.n - 1) k = p.n - 2;
    const T t = s - T(k);
    const T h = T(p.dr);
    const T u0 = T(p.data[2 * k]), f0 = T(p.data[2 * k + 1]);
    const T u1 = T(p.data[2 * k + 2]), f1 = T(p.data[2 * k + 3]);
    // Hermite basis on t in [0,1]; slopes in t are -F*h.
    const T t2 = t * t, t3 = t2 * t;
    const T h00 = T(2) * t3 - T(3) * t2 + T(1), h10 = t3 - T(2) * t2 + t;
    const T h01 = -T(2) * t3 + T(3) * t2, h11 = t3 - t2;
    u = h00 * u0 - h10 * h * f0 + h01 * u1 - h11 * h * f1;
    const T d00 = T(6) * t2 - T(6) * t, d10 = T(3) * t2 - T(4) * t + T(1);
    const T d01 = -d00, d11 = T(3) * t2 - T(2) * t;
    const T dudr = (d00 * u0 + d01 * u1) / h - d10 * f0 - d11 * f1;
    fr = -dudr / r;
    return true;
  }
};

}  // namespace tessera::md
