// Nose-Hoover chain thermostat (Martyna, Klein & Tuckerman, J. Chem. Phys. 97, 2635 (1992)), integrated
// with the Trotter splitting of Martyna, Tuckerman, Tobias & Klein, Mol. Phys. 87, 1117 (1996):
//   NHC(dt/2)  velocity Verlet(dt)  NHC(dt/2),
// where NHC(dt/2) updates the chain (thermostat velocities v_k, positions xi_k) with quarter steps
// (Frenkel & Smit, 2nd ed., Algorithm 30/31, generalised to M links) and returns the factor that
// scales every particle velocity. Masses Q_1 = Nf kT tau^2, Q_k = kT tau^2.
// Conserved: H = KE + PE + sum_k Q_k v_k^2 / 2 + Nf kT xi_1 + kT sum_{k>=2} xi_k.
#pragma once
#include <vector>

namespace tessera::md {

class NoseHooverChain {
 public:
  NoseHooverChain() = default;
  NoseHooverChain(int length, double kT, double tau, double nf);
  // One half step for a system with twice-kinetic-energy ke2; returns the velocity scale factor.
  double half_step(double ke2, double dt);
  double energy() const;  // thermostat contribution to the conserved quantity
  int length() const { return int(v_.size()); }
  // State for checkpoints.
  std::vector<double>& xi() { return xi_; }
  std::vector<double>& v() { return v_; }

 private:
  double kT_ = 1, nf_ = 0;
  std::vector<double> xi_, v_, q_;
};

}  // namespace tessera::md
