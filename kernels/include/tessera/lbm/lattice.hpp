// Velocity sets D2Q9, D3Q19 and D3Q27 (Qian, d'Humieres & Lallemand 1992; Krueger et al., "The Lattice
// Boltzmann Method", Springer 2017, table 3.3).
//
// Every lattice orders its velocities as the rest velocity followed by pairs (q, q+1) of opposite
// velocities, so opp(q) = q+1 for odd q and q-1 for even q > 0. The tables are function-local constexpr
// arrays so that the same code reads them on host and device; in unrolled loops over q they fold to
// constants. Speed of sound c_s^2 = 1/3 for all three.
#pragma once
#include "tessera/core/config_macros.hpp"

namespace tessera::lbm {

enum class LatticeKind { D2Q9, D3Q19, D3Q27 };

TESSERA_HD constexpr int opposite(int q) { return q == 0 ? 0 : ((q & 1) ? q + 1 : q - 1); }

struct D2Q9 {
  static constexpr int D = 2, Q = 9;
  static constexpr LatticeKind kind = LatticeKind::D2Q9;
  static constexpr const char* name = "D2Q9";
  TESSERA_HD static constexpr int c(int q, int a) {
    constexpr int t[9][3] = {{0, 0, 0},  {1, 0, 0}, {-1, 0, 0}, {0, 1, 0},  {0, -1, 0},
                             {1, 1, 0},  {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}};
    return t[q][a];
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
    constexpr int t[19][3] = {{0, 0, 0},   {1, 0, 0},   {-1, 0, 0}, {0, 1, 0},   {0, -1, 0},
                              {0, 0, 1},   {0, 0, -1},  {1, 1, 0},  {-1, -1, 0}, {1, 0, 1},
                              {-1, 0, -1}, {0, 1, 1},   {0, -1, -1}, {1, -1, 0}, {-1, 1, 0},
                              {1, 0, -1},  {-1, 0, 1},  {0, 1, -1}, {0, -1, 1}};
    return t[q][a];
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
    constexpr int t[27][3] = {{0, 0, 0},   {1, 0, 0},   {-1, 0, 0},  {0, 1, 0},   {0, -1, 0},   {0, 0, 1},
                              {0, 0, -1},  {1, 1, 0},   {-1, -1, 0}, {1, 0, 1},   {-1, 0, -1},  {0, 1, 1},
                              {0, -1, -1}, {1, -1, 0},  {-1, 1, 0},  {1, 0, -1},  {-1, 0, 1},   {0, 1, -1},
                              {0, -1, 1},  {1, 1, 1},   {-1, -1, -1}, {1, 1, -1}, {-1, -1, 1},  {1, -1, 1},
                              {-1, 1, -1}, {-1, 1, 1},  {1, -1, -1}};
    return t[q][a];
  }
  TESSERA_HD static constexpr double w(int q) {
    return q == 0 ? 8.0 / 27.0 : (q < 7 ? 2.0 / 27.0 : (q < 19 ? 1.0 / 54.0 : 1.0 / 216.0));
  }
};

inline constexpr int lattice_q(LatticeKind k) { return k == LatticeKind::D2Q9 ? 9 : (k == LatticeKind::D3Q19 ? 19 : 27); }
inline constexpr int lattice_dim(LatticeKind k) { return k == LatticeKind::D2Q9 ? 2 : 3; }
const char* to_string(LatticeKind k);
LatticeKind parse_lattice(const char* s);  // "D2Q9" | "D3Q19" | "D3Q27" (case-insensitive)

}  // namespace tessera::lbm
