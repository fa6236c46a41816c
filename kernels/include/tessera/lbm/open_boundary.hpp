// Open boundaries: velocity inlet and pressure (density) outlet as regularized boundary cells.
//
// Method: the regularized boundary condition of Latt, Chopard, Malaspinas, Deville & Michler, "Straight
// velocity boundaries in the lattice Boltzmann method", Phys. Rev. E 77, 056703 (2008), applied at the
// first fluid cell next to an open face (a wet node; the face's ghost cells are inactive). Before the
// collision, the populations that stream in from outside (c_q . n > 0, n the inward normal) are unknown:
//   1. density / velocity from the known ones (Zou & He, Phys. Fluids 9, 1591, 1997), with Guo's
//      j = rho u - F/2:   rho (1 - u_n) = S_0 + 2 S_- - F_n / 2,
//      S_0 = sum_{c.n = 0} f,  S_- = sum_{c.n < 0} f.   Inlet: u given, rho from this.
//      Outlet: rho given, u = u_n n with u_n from this (tangential velocity zero).
//   2. unknown f_q = feq_q + (f_opp(q) - feq_opp(q))   (bounce-back of the non-equilibrium part),
//   3. every population is regularized:  f_q = feq_q + w_q [9/2 Q_q : Pi_neq - 3/2 c_q . F],
//      Pi_neq = sum c c (f - feq), Q_q = c_q c_q - I/3; the last term keeps j = rho u - F/2.
// Why this one: it needs nothing but the cell itself (no neighbour reads, so it is rank-local and the
// results stay bit-identical for any decomposition), works unchanged on D2Q9/D3Q19/D3Q27, and step 3
// removes the non-hydrodynamic noise that makes plain Zou-He and equilibrium outlets drift or blow up on
// long runs at tau close to 1/2 (Latt et al. 2008, section V). Pressure waves reaching the outlet are
// partly reflected (it fixes rho); at the Reynolds numbers of the validation cases that is harmless.
//
// Start-up: the inlet velocity may be ramped up as (1 - cos(pi t / T)) / 2 over T steps (OpenTable::ramp,
// set per step by the solver): an impulsive start excites acoustic waves that the two reflecting open
// ends trap in the channel (they decay only through viscosity, over ~10^5 steps at tau = 0.6).
//
// Inflow profiles (velocity inlet): uniform, or parabolic: u = u_max prod_a 4 s_a (1 - s_a) over the
// tangential axes a bounded by walls, s_a = (x_a + 1/2) / N_a the cell centre across the box; exact for the
// plane channel with half-way bounce-back walls on the box faces; for a duct a product of parabolas.
#pragma once
#include <cstdint>

#include "tessera/lbm/collision.hpp"

namespace tessera::lbm {

struct OpenFace {
  int8_t type = 0;            // 0 none, 1 velocity inlet, 2 pressure outlet
  int8_t normal[3] = {0, 0, 0};  // inward unit normal (one axis)
  int8_t parabolic[3] = {0, 0, 0};  // 1: the inlet profile varies along this axis
  float u[3] = {0, 0, 0};     // inlet velocity (uniform value or profile maximum), lattice units
  float rho = 1;              // outlet density, lattice units (rho_0 = 1)
};

struct OpenTable {
  OpenFace face[6];               // by face index (x-, x+, y-, y+, z-, z+), as in the cell flags
  int64_t lo[3] = {0, 0, 0};      // this rank's first owned cell in global indices
  int64_t global[3] = {1, 1, 1};  // global cells per axis
  float ramp = 1;                 // inlet velocity factor of this step (a smooth start, set by the solver)
  bool active = false;            // any open face
};

// Inlet velocity at local interior cell (i, j, k) (global index = lo + local).
template <class A>
TESSERA_HD inline void open_inlet_velocity(const OpenTable& t, const OpenFace& f, int64_t i, int64_t j, int64_t k,
                                           A& ux, A& uy, A& uz) {
  const int64_t x[3] = {t.lo[0] + i, t.lo[1] + j, t.lo[2] + k};
  A s = A(1);
  for (int a = 0; a < 3; ++a) {
    if (!f.parabolic[a]) continue;
    const A y = (A(x[a]) + A(0.5)) / A(t.global[a]);
    s *= A(4) * y * (A(1) - y);
  }
  s *= A(t.ramp);
  ux = A(f.u[0]) * s;
  uy = A(f.u[1]) * s;
  uz = A(f.u[2]) * s;
}

// Completes and regularizes the populations of an open cell (shifted, as loaded), steps 1-3 above.
// (ux, uy, uz): the inlet velocity (ignored at an outlet).
template <class L, class A>
TESSERA_HD inline void open_reconstruct(A (&f)[L::Q], const OpenFace& b, A ux, A uy, A uz, A Fx, A Fy, A Fz) {
  constexpr int Q = L::Q;
  if constexpr (L::D == 2) Fz = A(0);
  const int nx = b.normal[0], ny = b.normal[1], nz = b.normal[2];
  A s0 = 0, sm = 0;  // unshifted sums: f = fbar + w
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) {
    const int cn = L::c(q, 0) * nx + L::c(q, 1) * ny + L::c(q, 2) * nz;
    const A fu = f[q] + A(L::w(q));
    if (cn == 0) s0 += fu;
    else if (cn < 0) sm += fu;
  }
  const A Fn = Fx * A(nx) + Fy * A(ny) + Fz * A(nz);
  const A known = s0 + A(2) * sm - A(0.5) * Fn;
  A rho;
  if (b.type == 1) {
    rho = known / (A(1) - (ux * A(nx) + uy * A(ny) + uz * A(nz)));
  } else {
    rho = A(b.rho);
    const A un = A(1) - known / rho;
    ux = un * A(nx);
    uy = un * A(ny);
    uz = un * A(nz);
  }
  if constexpr (L::D == 2) uz = A(0);
  const A usq = ux * ux + uy * uy + uz * uz;
  A feq[Q];
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) feq[q] = feq_bar<L, A>(q, rho, ux, uy, uz, usq);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < Q; ++q) {
    const int cn = L::c(q, 0) * nx + L::c(q, 1) * ny + L::c(q, 2) * nz;
    if (cn > 0) f[q] = feq[q] + (f[opposite(q)] - feq[opposite(q)]);
  }
  A pxx = 0, pyy = 0, pzz = 0, pxy = 0, pxz = 0, pyz = 0;
  neq_flux<L, A>(f, feq, pxx, pyy, pzz, pxy, pxz, pyz);
  const A tr = (pxx + pyy + pzz) / A(3);
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) {
    const int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
    const A qpi = A(cx * cx) * pxx + A(cy * cy) * pyy + A(cz * cz) * pzz +
                  A(2) * (A(cx * cy) * pxy + A(cx * cz) * pxz + A(cy * cz) * pyz);
    const A cF = A(cx) * Fx + A(cy) * Fy + A(cz) * Fz;
    f[q] = feq[q] + A(L::w(q)) * (A(4.5) * (qpi - tr) - A(1.5) * cF);
  }
}

}  // namespace tessera::lbm
