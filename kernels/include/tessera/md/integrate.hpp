// Integrators and thermodynamic reductions, all in the particles' execution space.
//
// NVE: velocity Verlet (Swope, Andersen, Berens & Wilson, J. Chem. Phys. 76, 637 (1982)):
//   kick_drift:  v += dt/2 f/m;  x += dt v      -- forces --      kick: v += dt/2 f/m
// Langevin (BAOAB, Leimkuhler & Matthews, Appl. Math. Res. Express 2013, 34): B A O A -- forces -- B with
//   O: v = c1 v + sqrt((1 - c1^2) kT / m) xi,  c1 = exp(-gamma dt),
// xi from Philox keyed by (seed, particle id, step): independent of rank count and particle order.
// Nose-Hoover chains: see nose_hoover.hpp (velocity scaling between half steps).
#pragma once
#include <cstdint>

#include "tessera/core/exec.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

void kick_drift(const exec::Exec& ex, Particles& p, double dt);
void kick(const exec::Exec& ex, Particles& p, double dt);
// B A O A of BAOAB (the final B is kick()).
void langevin_baoa(const exec::Exec& ex, Particles& p, double dt, double gamma, double kT, uint64_t seed,
                   uint64_t step);
// The same, with the step read from memory of the execution space when the kernel runs (a CUDA-graph
// step, md/step_graph.hpp, advances it on the device).
void langevin_baoa(const exec::Exec& ex, Particles& p, double dt, double gamma, double kT, uint64_t seed,
                   const uint64_t* step);
void scale_velocities(const exec::Exec& ex, Particles& p, double s);
// MTK (barostat.hpp): v <- a v + b (dt/2) F/m, and x <- lo + e (x - lo) + c dt v (the exact linear flows).
void kick_scaled(const exec::Exec& ex, Particles& p, double dt, double a, double b);
void drift_scaled(const exec::Exec& ex, Particles& p, double dt, const double lo[3], double e, double c);

struct ThermoSums {
  double ke = 0;          // sum m v^2 / 2 (energy units)
  double pe = 0;          // sum pe_i (valid after an energy force evaluation)
  double virial = 0;      // W = sum over pairs r_ij . F_ij (= sum_i vir_i); P = (2 KE + W) / (3 V)
  double p[3] = {0, 0, 0};  // total momentum (in units of mass_eff * velocity)
};
// ke and momentum always; pe and virial only if `energies` (then the last force call must have had them).
ThermoSums thermo_sums(const exec::Exec& ex, Particles& p, bool energies);
double kinetic_energy(const exec::Exec& ex, Particles& p);

}  // namespace tessera::md
