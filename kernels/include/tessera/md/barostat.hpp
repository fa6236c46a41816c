// Isotropic Martyna-Tobias-Klein barostat (MTK: Martyna, Tobias & Klein, J. Chem. Phys. 101, 4177 (1994)),
// integrated with the measure-preserving Trotter splitting of Tuckerman, Alejandre, Lopez-Rendon, Jochim
// & Martyna, J. Phys. A 39, 5629 (2006), as in Shinoda, Shiga & Mikami, Phys. Rev. B 69, 134103 (2004) and
// LAMMPS fix npt (iso). With d = 3, N_f degrees of freedom, alpha = 1 + d/N_f, the log-volume velocity
// v_eps (V = V0 exp(d eps)) and its mass W = (N_f + d) kT tau_P^2:
//
//   dr/dt = v + v_eps r,   dv/dt = F/m - alpha v_eps v - (thermostat),   dL/dt = v_eps L,
//   W dv_eps/dt = G_eps = d V (P_int - P_ext) + (d/N_f) 2 KE,   P_int = (2 KE + W_vir) / (d V) + P_tail,
//
// with a Nose-Hoover chain on the particles (nose_hoover.hpp) and another on v_eps (one degree of freedom).
// One step (Tuckerman 2006 eq. 2.26):
//   NHC_baro(dt/2) NHC_part(dt/2) kick_eps(dt/2) kick_v(dt/2) drift(dt) [forces] kick_v(dt/2)
//   kick_eps(dt/2) NHC_part(dt/2) NHC_baro(dt/2)
// where kick_v: v <- v exp(-alpha v_eps dt/2) + (dt/2)(F/m) exp(-alpha v_eps dt/4) sinhc(alpha v_eps dt/4)
// and drift:   r <- r exp(v_eps dt) + dt v exp(v_eps dt/2) sinhc(v_eps dt/2),  L <- L exp(v_eps dt),
// the exact flows of the linear parts (sinhc(x) = sinh(x)/x, series for small x).
// Conserved: H = KE + PE + P_ext V + W v_eps^2 / 2 + (chain energies).
#pragma once
#include <cmath>

#include "tessera/md/nose_hoover.hpp"

namespace tessera::md {

// sinh(x)/x, exact to rounding for all x (Taylor series where the quotient would cancel).
inline double sinhc(double x) {
  const double x2 = x * x;
  if (x2 < 1e-4) return 1 + x2 / 6 * (1 + x2 / 20 * (1 + x2 / 42));
  return std::sinh(x) / x;
}

class MtkBarostat {
 public:
  MtkBarostat() = default;
  // kT: thermostat target; p_ext in internal pressure units (energy/volume); nf: particle degrees of freedom.
  MtkBarostat(double kT, double p_ext, double tau_p, int chain, double nf)
      : kT_(kT), p_ext_(p_ext), nf_(nf), w_((nf + 3) * kT * tau_p * tau_p), chain_(chain, kT, tau_p, 1.0) {}
  bool active() const { return w_ > 0; }
  double alpha() const { return 1 + 3 / nf_; }
  double v_eps() const { return v_eps_; }
  double& v_eps_ref() { return v_eps_; }
  NoseHooverChain& chain() { return chain_; }
  double p_ext() const { return p_ext_; }
  // v_eps += (dt/2) G_eps / W, with ke2 = 2 KE, virial = sum r.F, p_tail the tail pressure (internal units).
  void half_kick(double ke2, double virial, double volume, double p_tail, double dt) {
    const double p_int = (ke2 + virial) / (3 * volume) + p_tail;
    const double g = 3 * volume * (p_int - p_ext_) + 3 / nf_ * ke2;
    v_eps_ += 0.5 * dt * g / w_;
  }
  // Thermostat on v_eps (a half step of its own chain).
  void thermostat_half_step(double dt) { v_eps_ *= chain_.half_step(w_ * v_eps_ * v_eps_, dt); }
  // Barostat contribution to the conserved quantity: P_ext V + W v_eps^2 / 2 + its chain.
  double energy(double volume) const { return p_ext_ * volume + 0.5 * w_ * v_eps_ * v_eps_ + chain_.energy(); }

 private:
  double kT_ = 1, p_ext_ = 0, nf_ = 1, w_ = 0, v_eps_ = 0;
  NoseHooverChain chain_;
};

}  // namespace tessera::md
