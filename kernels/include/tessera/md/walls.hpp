// Flat walls at both faces of a non-periodic axis: the LJ 9-3 wall (a 12-6 LJ particle interacting with
// a half-space of LJ sites; e.g. Abraham & Singh, J. Chem. Phys. 67, 2384 (1977); LAMMPS fix wall/lj93):
//
//   U(h) = eps [ (2/15) (sigma/h)^9 - (sigma/h)^3 ] - U(rc)   for 0 < h < rc, else 0,
//   F(h) = -dU/dh = eps [ (6/5) sigma^9 / h^10 - 3 sigma^3 / h^4 ]   (along the wall normal, into the box),
//
// with h the distance from the face. The minimum is at h_m = (2/5)^(1/6) sigma; rc = h_m gives the purely
// repulsive (WCA-like) wall, the default. Particles at h <= 0 (only after a blown-up step) get an
// infinite energy, which thermo() reports. Wall forces add no virial: with walls the pressure tensor is
// anisotropic, and the thermo pressure is the bulk (pair + bond) estimate.
#pragma once
#include <cmath>

#include "tessera/core/config_macros.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

struct WallParam {
  bool on[3] = {false, false, false};  // walls at both faces of axis a
  double epsilon = 1, sigma = 1, cutoff = 0, shift = 0;

  bool any() const { return on[0] || on[1] || on[2]; }
  static double repulsive_cutoff(double sigma) { return std::pow(0.4, 1.0 / 6.0) * sigma; }
  // cutoff <= 0: the purely repulsive cut at the minimum.
  static WallParam make(const bool axes[3], double epsilon, double sigma, double cutoff) {
    WallParam w;
    for (int a = 0; a < 3; ++a) w.on[a] = axes[a];
    w.epsilon = epsilon, w.sigma = sigma;
    w.cutoff = cutoff > 0 ? cutoff : repulsive_cutoff(sigma);
    const double s = sigma / w.cutoff, s3 = s * s * s;
    w.shift = epsilon * (2.0 / 15.0 * s3 * s3 * s3 - s3);  // U(rc) before shifting
    return w;
  }
  // Force magnitude along the normal (positive: away from the wall) and energy at distance h.
  TESSERA_HD static bool eval(double h, const WallParam& w, double& f, double& u) {
    f = 0, u = 0;
    if (h >= w.cutoff) return false;
    if (!(h > 0)) {
      f = 0, u = HUGE_VAL;
      return true;
    }
    const double s = w.sigma / h, s3 = s * s * s, s9 = s3 * s3 * s3;
    u = w.epsilon * (2.0 / 15.0 * s9 - s3) - w.shift;
    f = w.epsilon * (1.2 * s9 - 3.0 * s3) / h;
    return true;
  }
};

// Adds the wall forces (and energies to pe) of every walled axis.
void add_wall_forces(const exec::Exec& ex, Particles& p, const Box& box, const WallParam& w, bool energy);

}  // namespace tessera::md
