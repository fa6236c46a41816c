// Kinetic-energy time series of the lbm solver: <dir>/energy.csv with step, time and the mean kinetic
// energy per unit mass E = <|u|^2 / 2> over the fluid cells (m^2/s^2), every output.energy_every steps.
// -dE/dt is the dissipation rate that decaying-turbulence benchmarks (3-D Taylor-Green) compare.
// On --restart rows past the checkpoint's step are dropped, as for the probes.
#pragma once
#include <cstdint>
#include <string>

#include "tessera/core/case.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm {

struct Units;

class EnergySeries {
 public:
  // Collective. restart_step < 0: a fresh run.
  EnergySeries(const Simulation& sim, const Units& units, const Case& c, const std::string& dir, int64_t restart_step);
  int64_t every() const { return every_; }  // 0: off
  // Collective: the mean kinetic energy now (m^2/s^2, every rank); rank 0 appends a row when on.
  double sample(Simulation& sim, double time);

 private:
  std::string path_;
  double u_scale_ = 1;
  int64_t every_ = 0, fluid_cells_ = 0;
};

}  // namespace tessera::lbm
