// Force and moment on walls by momentum exchange at half-way bounce-back links (Ladd, J. Fluid Mech. 271,
// 285, 1994; Mei, Yu, Shyy & Luo, Phys. Rev. E 65, 041203, 2002, eq. 11).
//
// A link joins fluid cell x and wall cell x + c_q. In one step the population f*_q(x) (post-collision)
// enters the wall and f_opp(q)(x, t+1) = f*_q(x) - 6 w_q c_q.u_w comes back (Ladd's moving wall,
// rho_w = 1), so the momentum given to the wall is
//   dP = c_q [f*_q(x) + f_opp(q)(x, t+1)] = c_q [2 f*_q(x) - 6 w_q c_q.u_w],
// summed over all links of one wall id; the moment about the global origin sums x_link x dP with the
// link's midpoint x_link = x + c_q / 2 (the wall position). Units: lattice (dx = dt = rho_0 = 1), cell
// (i, j, k) centred at (i + 1/2, j + 1/2, k + 1/2) in global indices.
//
// With the AA pattern the array holds what this needs after either kind of step, in slot opp(q) at x:
//   after an even step (parity 1): f*_q(x) itself;
//   after an odd step  (parity 0): f*_q(x) - 6 w_q c_q.u_w (the bounced value written by the store).
// The sums run in fp64 on unshifted populations (the rest-state part 2 w_q c_q cancels over a closed
// body but is the pressure force on an open wall such as a box face).
#pragma once
#include <cstdint>

#include "tessera/core/exec.hpp"
#include "tessera/lbm/flags.hpp"
#include "tessera/lbm/stream_collide.hpp"

namespace tessera::lbm {

template <class L, class S>
struct WallMomentumExchange {
  const S* f;
  const uint8_t* flags;
  GridLayout g;
  WallTable walls;
  bool after_odd = false;  // state parity 0 (natural order)
  int wall_id = 0;
  int64_t lo[3] = {0, 0, 0};  // rank's first owned cell, global indices

  // (Fx, Fy, Fz, Mx, My, Mz) from the links of fluid cell (i, j, k) into walls of id wall_id.
  TESSERA_HD exec::Vec<double, 6> operator()(int64_t i, int64_t j, int64_t k) const {
    exec::Vec<double, 6> r = exec::Vec<double, 6>::zero();
    const int64_t c = g.cell(i, j, k), n = g.cells();
    if (!is_fluid(flags[c])) return r;
    const double x = double(lo[0] + i) + 0.5, y = double(lo[1] + j) + 0.5, z = double(lo[2] + k) + 0.5;
    for (int q = 1; q < L::Q; ++q) {
      const int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
      const uint8_t fl = flags[c + g.offset(cx, cy, cz)];
      if (flag_kind(fl) != kWall || flag_wall_id(fl) != wall_id) continue;
      const double s = double(Storage<S>::load(f[opposite(q) * n + c])) + L::w(q);
      const double wt = double(wall_term<L, double>(q, walls, fl));
      const double fstar = after_odd ? s + wt : s;
      const double m = 2.0 * fstar - wt;
      const double px = cx * m, py = cy * m, pz = cz * m;
      const double lx = x + 0.5 * cx, ly = y + 0.5 * cy, lz = z + 0.5 * cz;
      r[0] += px;
      r[1] += py;
      r[2] += pz;
      r[3] += ly * pz - lz * py;
      r[4] += lz * px - lx * pz;
      r[5] += lx * py - ly * px;
    }
    return r;
  }
};

}  // namespace tessera::lbm
