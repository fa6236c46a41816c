// Unit systems. Kernels see only "effective inverse masses" ftm2v / m, so that dv = f * inv_mass * dt
// holds in every system, and KE = v^2 / (2 inv_mass) comes out in energy units (mvv2e = 1/ftm2v).
//   lj:   sigma, epsilon, m, tau = sigma sqrt(m/epsilon); k_B = 1.
//   real: Angstrom, fs, kcal/mol, g/mol, K; k_B = 0.0019872067 kcal/(mol K);
//         ftm2v = 1/48.88821291^2 converts (kcal/mol/A)/(g/mol) to A/fs^2 (LAMMPS "real" units);
//         pressure: nktv2p = 68568.415 turns kcal/mol/A^3 into atm.
#pragma once
#include <string>

namespace tessera::md {

struct Units {
  std::string name = "lj";
  double kB = 1.0;       // energy per temperature unit
  double ftm2v = 1.0;    // force/mass -> acceleration
  double nktv2p = 1.0;   // energy/volume -> pressure unit
  const char* energy = "epsilon";
  const char* time = "tau";
  const char* length = "sigma";
  const char* pressure = "epsilon/sigma^3";
  const char* temperature = "epsilon/k_B";
};

inline Units units_lj() { return Units{}; }
inline Units units_real() {
  return Units{"real", 0.0019872067, 1.0 / (48.88821291 * 48.88821291), 68568.415, "kcal/mol", "fs", "Angstrom",
               "atm", "K"};
}
Units parse_units(const std::string& s);

}  // namespace tessera::md
