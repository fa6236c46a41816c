// The NVE energy-drift measurement shared by the md tests that need an engine (tessera::md::Simulation,
// so not in md_test_util.hpp, which kernel-only tests include).
#pragma once
#include <algorithm>
#include <cmath>

#include "tessera/md/simulation.hpp"

namespace mdtest {
using namespace tessera::md;

// NVE energy conservation over `steps` steps, thermo every `every`: the largest |E - E0| per atom and the
// means of E over the first and the second half (their difference is the drift of the mean).
struct EnergyDrift {
  double emax = 0, first = 0, second = 0;
  double mean_drift() const { return second - first; }
};
inline EnergyDrift nve_energy_drift(Simulation& sim, int steps = 2000, int every = 20) {
  const double e0 = sim.thermo().conserved;
  const double w = double(every) / (steps / 2);  // each half holds steps / (2 every) samples
  EnergyDrift d;
  for (int s = 1; s <= steps; ++s) {
    sim.step(s % every == 0);
    if (s % every != 0) continue;
    const double e = sim.thermo().conserved;
    d.emax = std::max(d.emax, std::abs(e - e0));
    (s <= steps / 2 ? d.first : d.second) += e * w;
  }
  return d;
}

}  // namespace mdtest
