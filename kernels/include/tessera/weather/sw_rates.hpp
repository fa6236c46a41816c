// Shallow-water tendencies at a cell from any source of U, V, q, B (see sw_point.hpp for the equations).
//
// A source S has S.U(i, j), S.V(i, j), S.q(i, j), S.B(i, j) in the grid's C-grid positions (grid.hpp):
// SwPoint computes them from the state, the reference path reads arrays, the CUDA tile shared memory.
// Every path evaluates the same expressions below in the same order.
//
// Arakawa-Lamb (AL81 eqs. 3.34-3.41, written per cell). For cell c with corner PV
//   SW = q(i, j), SE = q(i+1, j), NW = q(i, j+1), NE = q(i+1, j+1)
// and faces W = u(i, j), E = u(i+1, j), S = v(i, j), N = v(i, j+1), the coefficients
//   a(c) = (2 NE + NW + 2 SW + SE) / 24      (AL81 alpha, gamma: pairs W-N and E-S)
//   d(c) = (NE + 2 NW + SW + 2 SE) / 24      (AL81 beta, delta: pairs E-N and W-S)
//   eps(c) = (NE + NW - SW - SE) / 24,  phi(c) = (-NE + NW + SW - SE) / 24
// couple the mass fluxes of c's faces: a face-pair term enters du/dt as +coef V and dv/dt as -coef U
// (antisymmetric: energy), and within c  du_W -= r eps U_E, du_E += r eps U_W, dv_S -= phi V_N / r,
// dv_N += phi V_S / r with r = dy/dx. AL81 use a square grid (r = 1); on a rectangular one the proof goes
// through in transports U dy, V dx and circulations du dx, dv dy, which puts r on the eps and 1/r on the
// phi terms (checked by the enstrophy oracle in tests/weather/test_sw_kernels.cpp with dx != dy).
// The weights 2:1 are what makes sum_corners hc q^2 / 2 invariant as well (AL81 section 3; rederived by
// Salmon 2004, J. Atmos. Sci. 61, 2016; restated by Toy & Nair 2017, Mon. Wea. Rev. 145). The
// oracle sw_enstrophy_tendency checks the assignment and signs. With q constant the scheme reduces to
// Sadourny's energy scheme.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tessera/core/config_macros.hpp"
#include "tessera/weather/sw_point.hpp"

namespace tessera::weather {

namespace al81 {
// From the corner PVs of cell (i, j); a source may hold them precomputed (al_a .. al_phi, the CUDA tile).
template <class S>
TESSERA_HD inline auto a_from_q(const S& s, int64_t i, int64_t j) {
  return (2.0 * s.q(i + 1, j + 1) + s.q(i, j + 1) + 2.0 * s.q(i, j) + s.q(i + 1, j)) * (1.0 / 24.0);
}
template <class S>
TESSERA_HD inline auto d_from_q(const S& s, int64_t i, int64_t j) {
  return (s.q(i + 1, j + 1) + 2.0 * s.q(i, j + 1) + s.q(i, j) + 2.0 * s.q(i + 1, j)) * (1.0 / 24.0);
}
template <class S>
TESSERA_HD inline auto eps_from_q(const S& s, int64_t i, int64_t j) {
  return ((s.q(i + 1, j + 1) + s.q(i, j + 1)) - (s.q(i, j) + s.q(i + 1, j))) * (1.0 / 24.0);
}
template <class S>
TESSERA_HD inline auto phi_from_q(const S& s, int64_t i, int64_t j) {
  return ((s.q(i, j + 1) + s.q(i, j)) - (s.q(i + 1, j + 1) + s.q(i + 1, j))) * (1.0 / 24.0);
}
template <class S>
TESSERA_HD inline auto a(const S& s, int64_t i, int64_t j) {
  if constexpr (requires { s.al_a(i, j); }) return s.al_a(i, j);
  else return a_from_q(s, i, j);
}
template <class S>
TESSERA_HD inline auto d(const S& s, int64_t i, int64_t j) {
  if constexpr (requires { s.al_d(i, j); }) return s.al_d(i, j);
  else return d_from_q(s, i, j);
}
template <class S>
TESSERA_HD inline auto eps(const S& s, int64_t i, int64_t j) {
  if constexpr (requires { s.al_eps(i, j); }) return s.al_eps(i, j);
  else return eps_from_q(s, i, j);
}
template <class S>
TESSERA_HD inline auto phi(const S& s, int64_t i, int64_t j) {
  if constexpr (requires { s.al_phi(i, j); }) return s.al_phi(i, j);
  else return phi_from_q(s, i, j);
}
}  // namespace al81

template <class S>
TESSERA_HD inline auto sw_rate_h(const S& s, const SwMetric& m, int64_t i, int64_t j) {
  return -((s.U(i + 1, j) - s.U(i, j)) * m.rdx + (s.V(i, j + 1) - s.V(i, j)) * m.rdy);
}

// Vorticity term of du/dt on face u(i, j), between cells L = (i-1, j) and R = (i, j).
// (The two schemes' expressions may have different types for an expression-template number type, the
// CUDA strip kernel's fused form: both are returned as the source's number type.)
template <class S>
TESSERA_HD inline auto sw_coriolis_u(const S& s, SwScheme sc, const SwMetric& m, int64_t i, int64_t j)
    -> std::decay_t<decltype(s.U(i, j))> {
  if (sc == SwScheme::SadournyEnergy) {
    const auto vx_s = 0.5 * (s.V(i - 1, j) + s.V(i, j));          // avg_x V at corner (i-1/2, j-1/2)
    const auto vx_n = 0.5 * (s.V(i - 1, j + 1) + s.V(i, j + 1));  // ... at corner (i-1/2, j+1/2)
    return 0.5 * (s.q(i, j) * vx_s + s.q(i, j + 1) * vx_n);
  }
  // R: u(i,j) is its W face (pairs W-N: a, W-S: d); L: its E face (pairs E-N: d, E-S: a)
  const auto pairs = (al81::a(s, i, j) * s.V(i, j + 1) + al81::d(s, i, j) * s.V(i, j)) +
                       (al81::d(s, i - 1, j) * s.V(i - 1, j + 1) + al81::a(s, i - 1, j) * s.V(i - 1, j));
  return pairs + (al81::eps(s, i - 1, j) * s.U(i - 1, j) - al81::eps(s, i, j) * s.U(i + 1, j)) * m.ryx;
}

// Vorticity term of dv/dt on face v(i, j), between cells D = (i, j-1) and T = (i, j) (enters with a minus).
template <class S>
TESSERA_HD inline auto sw_coriolis_v(const S& s, SwScheme sc, const SwMetric& m, int64_t i, int64_t j)
    -> std::decay_t<decltype(s.U(i, j))> {
  if (sc == SwScheme::SadournyEnergy) {
    const auto uy_w = 0.5 * (s.U(i, j - 1) + s.U(i, j));          // avg_y U at corner (i-1/2, j-1/2)
    const auto uy_e = 0.5 * (s.U(i + 1, j - 1) + s.U(i + 1, j));  // ... at corner (i+1/2, j-1/2)
    return 0.5 * (s.q(i, j) * uy_w + s.q(i + 1, j) * uy_e);
  }
  // T: v(i,j) is its S face (pairs W-S: d, E-S: a); D: its N face (pairs W-N: a, E-N: d)
  const auto pairs = (al81::d(s, i, j) * s.U(i, j) + al81::a(s, i, j) * s.U(i + 1, j)) +
                       (al81::a(s, i, j - 1) * s.U(i, j - 1) + al81::d(s, i, j - 1) * s.U(i + 1, j - 1));
  return pairs + (al81::phi(s, i, j) * s.V(i, j + 1) - al81::phi(s, i, j - 1) * s.V(i, j - 1)) * m.rxy;
}

template <class S>
TESSERA_HD inline auto sw_rate_u(const S& s, SwScheme sc, const SwMetric& m, int64_t i, int64_t j) {
  return sw_coriolis_u(s, sc, m, i, j) - (s.B(i, j) - s.B(i - 1, j)) * m.rdx;
}
template <class S>
TESSERA_HD inline auto sw_rate_v(const S& s, SwScheme sc, const SwMetric& m, int64_t i, int64_t j) {
  return -sw_coriolis_v(s, sc, m, i, j) - (s.B(i, j) - s.B(i, j - 1)) * m.rdy;
}

}  // namespace tessera::weather
