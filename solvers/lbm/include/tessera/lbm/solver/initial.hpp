// Analytic initial states of the lbm solver (lattice units, global cell indices, cell centres at i + 1/2),
// selected in the case by initial.state. The populations start at equilibrium with these moments.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "tessera/core/case.hpp"

namespace tessera::lbm {

struct Units;
using InitialState = std::function<void(int64_t, int64_t, int64_t, double& rho, double u[3])>;

// 2-D Taylor-Green vortex, one period over the n[0] x n[1] box (k_a = 2 pi / n_a):
//   u = -u0 sqrt(ky/kx) cos(kx x) sin(ky y),  v = u0 sqrt(kx/ky) sin(kx x) cos(ky y),
//   p = -rho0 u0^2 / 4 (ky/kx cos 2kx x + kx/ky cos 2ky y),  rho = 1 + 3 p (c_s^2 = 1/3).
// Kinetic energy decays as exp(-2 nu (kx^2 + ky^2) t) (Taylor & Green 1937; Kruger et al. 2017, sec. 13.1).
InitialState taylor_green_2d(const std::array<int64_t, 3>& n, double u0);

// 3-D Taylor-Green vortex (Brachet et al. 1983, J. Fluid Mech. 130; DeBonis 2013, AIAA 2013-0382), one
// period 2 pi / k_a per axis:  u = u0 sin(kx x) cos(ky y) cos(kz z),  v = -u0 cos(kx x) sin(ky y) cos(kz z),
//   w = 0,  p = rho0 u0^2 / 16 (cos 2kx x + cos 2ky y)(cos 2kz z + 2),  rho = 1 + 3 p.
// At t = 0 the enstrophy is 3 k^2 E (cube), so dE/dt = -2 nu Omega = -6 nu k^2 E: the early-time rate.
InitialState taylor_green_3d(const std::array<int64_t, 3>& n, double u0);

// The case's initial.state: rest (nullptr: rho 1, u 0) or taylor_green (2-D or 3-D by the lattice) with
// amplitude initial.velocity (m/s; 0 means physics.velocity) converted by the units.
InitialState initial_from_case(const Case& c, const Units& u);

// Schema cross-check: taylor_green needs a box periodic on every axis; "" when fine.
std::string check_initial(const Case& c);

}  // namespace tessera::lbm
