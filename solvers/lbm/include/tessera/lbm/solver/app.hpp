// The `lbm` executable: case-file schema, SI -> lattice unit conversion, and the run driver.
#pragma once
#include <string>

#include "tessera/core/case.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/schema.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm {

// Conversion between the case's SI units and lattice units (dx = dt = 1, rho = 1):
//   dx = length / nx,  dt = u_lattice dx / U,  nu_lattice = nu dt / dx^2,  tau = 3 nu_lattice + 1/2,
//   a_lattice = a dt^2 / dx,  Mach = u_lattice / c_s = sqrt(3) u_lattice.
struct Units {
  double dx = 1, dt = 1, nu_lattice = 0, tau = 1, u_lattice = 0.1, mach = 0;
  std::string describe() const;
};

const Schema& schema();
Units units_from_case(const Case& c);
SimulationSpec spec_from_case(const Case& c, const Units& u);
MemoryEstimate memory_estimate(const Case& c, int nranks);
int run(Runtime& rt, const Case& c, const RunOptions& opt);

}  // namespace tessera::lbm
