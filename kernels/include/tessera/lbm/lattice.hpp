// Velocity sets D2Q9, D3Q19 and D3Q27 (Qian, d'Humieres & Lallemand 1992; Krueger et al., "The Lattice
// Boltzmann Method", Springer 2017, table 3.3).
//
// Every lattice orders its velocities as the rest velocity followed by pairs (q, q+1) of opposite
// velocities, so opp(q) = q+1 for odd q and q-1 for even q > 0. Device code reads function-local
// constexpr tables, which fold to constants in the unrolled loops over q; host code reads one table in
// read-only data (g++ would rebuild a local table on the stack at every call, 20x slower).
// Speed of sound c_s^2 = 1/3 for all three.
#pragma once
#include "tessera/core/config_macros.hpp"

#define TESSERA_LBM_D2Q9_C {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {1, 1, 0}, {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}}
#define TESSERA_LBM_D3Q19_C {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 0}, {-1, -1, 0}, {1, 0, 1}, {-1, 0, -1}, {0, 1, 1}, {0, -1, -1}, {1, -1, 0}, {-1, 1, 0}, {1, 0, -1}, {-1, 0, 1}, {0, 1, -1}, {0, -1, 1}}
#define TESSERA_LBM_D3Q27_C {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 0}, {-1, -1, 0}, {1, 0, 1}, {-1, 0, -1}, {0, 1, 1}, {0, -1, -1}, {1, -1, 0}, {-1, 1, 0}, {1, 0, -1}, {-1, 0, 1}, {0, 1, -1}, {0, -1, 1}, {1, 1, 1}, {-1, -1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {-1, 1, -1}, {-1, 1, 1}, {1, -1, -1}}

namespace tessera::lbm {

namespace detail {
inline constexpr int kD2Q9_c[9][3] = TESSERA_LBM_D2Q9_C;
inline constexpr int kD3Q19_c[19][3] = TESSERA_LBM_D3Q19_C;
inline constexpr int kD3Q27_c[27][3] = TESSERA_LBM_D3Q27_C;
}  // namespace detail

enum class LatticeKind { D2Q9, D3Q19, D3Q27 };

TESSERA_HD constexpr int opposite(int q) { return q == 0 ? 0 : ((q & 1) ? q + 1 : q - 1); }

// c(q, a) in device code: q must be known at compile time (an unrolled loop). With a run-time q the local
// table is rebuilt in local memory on every call (a 228-byte stack frame for D3Q19), which once made a
// kernel 150 times slower (docs/performance.md, LBM item 23); take such values from a table filled with
// compile-time q instead.
struct D2Q9 {
  static constexpr int D = 2, Q = 9;
  static constexpr LatticeKind kind = LatticeKind::D2Q9;
  static constexpr const char* name = "D2Q9";
  TESSERA_HD static constexpr int c(int q, int a) {
#if TESSERA_DEVICE_PASS
    constexpr int t[9][3] = TESSERA_LBM_D2Q9_C;  // folds to constants in the unrolled device loops
    return t[q][a];
#else
    return detail::kD2Q9_c[q][a];  // one table in .rodata (a local array would be rebuilt per call)
#endif
  }
  TESSERA_HD static constexpr double w(int q) {
    return q == 0 ? 4.0 / 9.0 : (q < 5 ? 1.0 / 9.0 : 1.0 / 36.0);
  }
};

struct D3Q19 {
  static constexpr int D = 3, Q = 19;
  static constexpr LatticeKind kind = LatticeKind::D3Q19;
  static constexpr const char* name = "D3Q19";
  TESSERA_HD static constexpr int c(int q, int a) {
#if TESSERA_DEVICE_PASS
    constexpr int t[19][3] = TESSERA_LBM_D3Q19_C;  // folds to constants in the unrolled device loops
    return t[q][a];
#else
    return detail::kD3Q19_c[q][a];  // one table in .rodata (a local array would be rebuilt per call)
#endif
  }
  TESSERA_HD static constexpr double w(int q) {
    return q == 0 ? 1.0 / 3.0 : (q < 7 ? 1.0 / 18.0 : 1.0 / 36.0);
  }
};

struct D3Q27 {
  static constexpr int D = 3, Q = 27;
  static constexpr LatticeKind kind = LatticeKind::D3Q27;
  static constexpr const char* name = "D3Q27";
  TESSERA_HD static constexpr int c(int q, int a) {
#if TESSERA_DEVICE_PASS
    constexpr int t[27][3] = TESSERA_LBM_D3Q27_C;  // folds to constants in the unrolled device loops
    return t[q][a];
#else
    return detail::kD3Q27_c[q][a];  // one table in .rodata (a local array would be rebuilt per call)
#endif
  }
  TESSERA_HD static constexpr double w(int q) {
    return q == 0 ? 8.0 / 27.0 : (q < 7 ? 2.0 / 27.0 : (q < 19 ? 1.0 / 54.0 : 1.0 / 216.0));
  }
};

inline constexpr int lattice_q(LatticeKind k) { return k == LatticeKind::D2Q9 ? 9 : (k == LatticeKind::D3Q19 ? 19 : 27); }
inline constexpr int lattice_dim(LatticeKind k) { return k == LatticeKind::D2Q9 ? 2 : 3; }
// Component a of lattice velocity q of a lattice chosen at run time (host code: set-up, halo tables).
inline constexpr int lattice_c(LatticeKind k, int q, int a) {
  return k == LatticeKind::D2Q9 ? D2Q9::c(q, a) : (k == LatticeKind::D3Q19 ? D3Q19::c(q, a) : D3Q27::c(q, a));
}
const char* to_string(LatticeKind k);
LatticeKind parse_lattice(const char* s);  // "D2Q9" | "D3Q19" | "D3Q27" (case-insensitive)

}  // namespace tessera::lbm
