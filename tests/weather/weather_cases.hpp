// Small weather cases and a gathered snapshot shared by the decomposition tests (ranks, transports,
// overlap, restart). Odd cell counts make every split uneven.
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include <mpi.h>

#include "tessera/domain/gather.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"

namespace tessera::weather::fixtures {

// Every stencil: walls in y with a beta plane, random topography, a jet, damping, tracers with vertical
// advection.
inline const char* kChannel = R"(
grid: {cells: [23, 17], length: [2.3e6, 1.7e6], boundary_x: periodic, boundary_y: wall}
physics: {f0: 1.0e-4, beta: 1.6e-11}
initial: {type: jet, depth: 1000.0, jet_speed: 20.0, jet_width: 2.0e5, perturbation: 5.0}
topography: {type: random, height: 50.0}
time: {end: 1.0e9, cfl: 0.5, max_steps: 12}
damping: {coefficient: 0.005}
tracers: {levels: 3, column_depth: 1000.0, w_amplitude: 0.05}
output: {fields: false, spectrum: false}
)";

// Walls in x (the west wall fill writes u of cell 0), periodic y, Gaussian topography, no tracers, SSP-RK2.
inline const char* kBox = R"(
grid: {cells: [19, 22], length: [1.9e6, 2.2e6], boundary_x: wall, boundary_y: periodic}
physics: {f0: 1.0e-4}
initial: {type: gaussian, depth: 500.0, amplitude: 20.0, width: 3.0e5, center: [0.3, 0.6]}
topography: {type: gaussian, height: 100.0, width: 4.0e5}
time: {end: 1.0e9, cfl: 0.6, max_steps: 12, scheme: ssprk2}
output: {fields: false, spectrum: false}
)";

// Periodic on both axes, f-plane, no tracers, SSP-RK3: on one GPU rank the first two stages run fused
// (sw_stages12), on several ranks they do not.
inline const char* kPlane = R"(
grid: {cells: [70, 45], length: [7.0e6, 4.5e6], boundary_x: periodic, boundary_y: periodic}
physics: {f0: 1.0e-4}
initial: {type: gaussian, depth: 800.0, amplitude: 30.0, width: 5.0e5, center: [0.4, 0.55]}
topography: {type: gaussian, height: 80.0, width: 6.0e5}
time: {end: 1.0e9, cfl: 0.5, max_steps: 12}
output: {fields: false, spectrum: false}
)";

// The fields of a run, gathered on rank 0 of its communicator (c empty without tracers).
struct Snapshot {
  std::vector<double> h, u, v, c;
  double time = 0;
};

inline Snapshot snapshot(Model& m) {
  Snapshot r;
  r.h = domain::gather_to_root(m.decomposition(), m.state().h);
  r.u = domain::gather_to_root(m.decomposition(), m.state().u);
  r.v = domain::gather_to_root(m.decomposition(), m.state().v);
  if (m.state().c.data()) r.c = domain::gather_to_root(m.decomposition(), m.state().c);
  r.time = m.time;
  return r;
}

// `steps` steps at the stable time step of the case with overrides `ov`.
inline Snapshot run_model(MPI_Comm comm, const std::string& yaml, const std::vector<std::string>& ov, int64_t steps,
                          exec::Space space = exec::Space::Host) {
  const Config k = read_config(case_from_string(yaml, ov));
  Model m(comm, k, exec::Exec(space));
  m.initialise();
  for (int64_t s = 0; s < steps; ++s) m.step(m.stable_dt());
  return snapshot(m);
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Every field bit for bit (and not all empty).
inline bool same_bits(const Snapshot& a, const Snapshot& b) {
  return !a.h.empty() && a.time == b.time && same_bits(a.h, b.h) && same_bits(a.u, b.u) && same_bits(a.v, b.v) &&
         same_bits(a.c, b.c);
}

}  // namespace tessera::weather::fixtures
