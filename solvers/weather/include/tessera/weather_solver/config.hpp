// The weather solver's case file: schema (every key, with defaults, ranges and units) and the resolved
// configuration the model runs from. `weather --print-schema md` prints the reference (docs/weather.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "tessera/core/case.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/schema.hpp"
#include "tessera/domain/parallel_options.hpp"
#include "tessera/weather/sw_point.hpp"
#include "tessera/weather/sw_step.hpp"

namespace tessera::weather {

const Schema& schema();

struct Config {
  // grid and boundaries
  int64_t nx = 0, ny = 0;
  double lx = 0, ly = 0, dx = 0, dy = 0;
  SwParams phys;  // gravity, f0, beta, y_ref (domain centre), walls
  std::array<int, 2> ranks{0, 0};
  domain::ParallelOptions parallel;  // halo transport and field memory (parallel.*)
  // initial state
  std::string initial;  // lake_at_rest | dam_break | gaussian | wave | jet
  double depth = 10, amplitude = 1, width = 1, center_x = 0.5, center_y = 0.5;
  double depth_left = 10, depth_right = 1, dam_position = 0.5;
  int64_t wave_kx = 1, wave_ky = 0;
  double jet_speed = 0, jet_width = 0, perturbation = 0;
  // topography
  std::string topography;  // flat | gaussian | ridge | random
  double topo_height = 0, topo_width = 1;
  uint64_t topo_seed = 1;
  // time
  double t_end = 0, cfl = 0.4, dt_fixed = 0;
  int64_t max_steps = 0;
  TimeScheme scheme = TimeScheme::SspRk3;
  // damping (COSMO horizontal diffusion on u, v)
  double damping = 0;
  // tracers on vertical levels
  int64_t levels = 0;
  double column_depth = 1000, w_amplitude = 0, vadv_beta = 0.6;
  // output
  double output_interval = 0;  // 0: initial and final state only
  int64_t diagnostics_every = 10;
  bool spectrum = true, write_fields = true;
  std::string precision = "float32";
  int64_t checkpoint_every = 0;
};

Config read_config(const Case& c);
MemoryEstimate memory_estimate(const Case& c, int nranks);
// Load a case from YAML text (tests and tools).
Case case_from_string(const std::string& yaml, const std::vector<std::string>& overrides = {});

}  // namespace tessera::weather
