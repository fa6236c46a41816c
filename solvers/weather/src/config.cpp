// Schema of the weather case file and its translation into a Config.
#include "tessera/weather_solver/config.hpp"

#include <cmath>

#include <fmt/format.h>

namespace tessera::weather {

namespace {
Schema build_schema() {
  Schema s("weather", "Rotating shallow water on an Arakawa C-grid with COSMO stencils");
  s.section("grid", "Cartesian grid and boundaries");
  s.add_int_array("grid.cells", 2).required().min(1).describe("Cells [nx, ny]");
  s.add_float_array("grid.length", 2).required().greater_than(0).unit("m").describe("Domain size [Lx, Ly]");
  s.add_enum("grid.boundary_x", {"periodic", "wall"}).default_value("periodic").describe("x boundaries");
  s.add_enum("grid.boundary_y", {"periodic", "wall"}).default_value("periodic").describe("y boundaries");
  s.add_int_array("grid.ranks", 2).default_array({0, 0}).min(0).describe("Ranks per axis [px, py]; 0 = automatic");
  s.section("physics", "Gravity and rotation (f = f0 + beta (y - Ly/2))");
  s.add_float("physics.gravity").default_value(9.81).greater_than(0).unit("m/s^2").describe("Gravitational acceleration");
  s.add_float("physics.f0").default_value(0.0).unit("1/s").describe("Coriolis parameter at the domain centre");
  s.add_float("physics.beta").default_value(0.0).unit("1/(m s)").describe("df/dy (needs grid.boundary_y: wall)");
  s.section("dynamics", "Spatial discretisation of the shallow-water equations (docs/weather.md)");
  s.add_enum("dynamics.scheme", {"arakawa_lamb", "sadourny_energy"}).default_value("arakawa_lamb")
      .describe("arakawa_lamb: conserves mass, energy and potential enstrophy (Arakawa & Lamb 1981); "
                "sadourny_energy: conserves mass and energy only (Sadourny 1975)");
  s.section("initial", "Initial state (h is the fluid depth, eta = h + b the surface)");
  s.add_enum("initial.type", {"lake_at_rest", "dam_break", "gaussian", "wave", "jet"}).default_value("lake_at_rest")
      .describe("lake_at_rest: eta = depth; dam_break: depth_left | depth_right at dam_position; gaussian: bump of "
                "amplitude and width at center; wave: eta = depth + amplitude cos(k.x), k = 2 pi (kx/Lx, ky/Ly); "
                "jet: zonal jet of jet_speed and jet_width in geostrophic balance plus a perturbation");
  s.add_float("initial.depth").default_value(10.0).greater_than(0).unit("m").describe("Mean surface height eta");
  s.add_float("initial.amplitude").default_value(1.0).unit("m").describe("Bump or wave amplitude");
  s.add_float("initial.width").default_value(1.0).greater_than(0).unit("m").describe("Gaussian e-folding radius");
  s.add_float_array("initial.center", 2).default_array({0.5, 0.5}).min(0).max(1)
      .describe("Bump centre as fractions of [Lx, Ly]");
  s.add_float("initial.depth_left").default_value(10.0).greater_than(0).unit("m").describe("Dam break: depth x < dam");
  s.add_float("initial.depth_right").default_value(1.0).greater_than(0).unit("m")
      .describe("Dam break: depth x > dam (dry beds are not supported)");
  s.add_float("initial.dam_position").default_value(0.5).greater_than(0).less_than(1).describe("Dam at this fraction of Lx");
  s.add_int_array("initial.wave_number", 2).default_array({1, 0}).describe("Wave: [kx, ky] periods per domain");
  s.add_float("initial.jet_speed").default_value(20.0).unit("m/s").describe("Jet: peak zonal velocity");
  s.add_float("initial.jet_width").default_value(1.0e5).greater_than(0).unit("m").describe("Jet: e-folding half width");
  s.add_float("initial.perturbation").default_value(0.0).unit("m").describe("Jet: height perturbation amplitude");
  s.section("topography", "Bottom height b");
  s.add_enum("topography.type", {"flat", "gaussian", "ridge", "random"}).default_value("flat")
      .describe("gaussian: mound at the centre; ridge: x-ridge; random: uniform in [0, height]");
  s.add_float("topography.height").default_value(0.0).min(0).unit("m").describe("Topography height");
  s.add_float("topography.width").default_value(1.0).greater_than(0).unit("m").describe("Topography e-folding radius");
  s.add_int("topography.seed").default_value(1).min(0).describe("Random topography seed");
  s.section("time", "Time stepping");
  s.add_float("time.end").required().greater_than(0).unit("s").describe("Simulated time");
  s.add_float("time.cfl").default_value(0.4).greater_than(0).max(1.0).describe("Courant number (sqrt(g h) + |u|) dt / dx");
  s.add_float("time.dt").default_value(0.0).min(0).unit("s").describe("Fixed time step; 0 = from time.cfl");
  s.add_int("time.max_steps").default_value(0).min(0).describe("Stop after this many steps; 0 = no limit");
  s.add_enum("time.scheme", {"ssprk3", "ssprk2"}).default_value("ssprk3").describe("SSP Runge-Kutta scheme");
  s.section("damping", "COSMO fourth-order horizontal diffusion with flux limiter on u, v");
  s.add_float("damping.coefficient").default_value(0.0).min(0).max(1.0 / 64.0)
      .describe("Per-step coefficient (K dt / dx^4); 0 = off");
  s.section("tracers", "Passive tracers on vertical levels");
  s.add_int("tracers.levels").default_value(0).min(0).describe("Vertical levels; 0 = no tracers");
  s.add_float("tracers.column_depth").default_value(1000.0).greater_than(0).unit("m").describe("Column height");
  s.add_float("tracers.w_amplitude").default_value(0.0).unit("m/s")
      .describe("Prescribed w = A sin(pi z/H) cos(2 pi x/Lx)");
  s.add_float("tracers.implicitness").default_value(0.6).min(0.5).max(1.0).describe("Vertical advection weight beta");
  s.section("output", "Output");
  s.add_float("output.interval").default_value(0.0).min(0).unit("s").describe("Field output interval; 0 = first and last");
  s.add_int("output.diagnostics_every").default_value(10).min(1).describe("Steps between CSV diagnostics lines");
  s.add_bool("output.spectrum").default_value(true).describe("Kinetic-energy spectrum with each field output");
  s.add_bool("output.fields").default_value(true).describe("Write HDF5/XDMF fields");
  s.add_enum("output.precision", {"float32", "float64"}).default_value("float32").describe("Field file precision");
  s.add_int("output.checkpoint_every").default_value(0).min(0).describe("Steps between checkpoints; 0 = final only");
  s.add_check("beta_needs_walls", {"physics.beta", "grid.boundary_y"}, [](const Case& c) -> std::string {
    if (c.get<double>("physics.beta") != 0.0 && c.get<std::string>("grid.boundary_y") == "periodic")
      return "a beta plane needs grid.boundary_y: wall (f(y) is not periodic)";
    return "";
  });
  domain::add_parallel_keys(s);  // parallel.transport, parallel.memory (multi-GPU, docs/domain.md)
  add_batch_keys(s);             // batch.max_walltime
  return s;
}
}  // namespace

const Schema& schema() {
  static const Schema s = build_schema();
  return s;
}

Case case_from_string(const std::string& yaml, const std::vector<std::string>& overrides) {
  return Case::from_string(yaml, schema(), "<case>", overrides);
}

Config read_config(const Case& c) {
  Config k;
  const auto cells = c.get<std::array<int64_t, 2>>("grid.cells");
  const auto len = c.get<std::array<double, 2>>("grid.length");
  k.nx = cells[0];
  k.ny = cells[1];
  k.lx = len[0];
  k.ly = len[1];
  k.dx = k.lx / double(k.nx);
  k.dy = k.ly / double(k.ny);
  k.phys.wall_x = c.get<std::string>("grid.boundary_x") == "wall";
  k.phys.wall_y = c.get<std::string>("grid.boundary_y") == "wall";
  const auto r = c.get<std::array<int64_t, 2>>("grid.ranks");
  k.ranks = {int(r[0]), int(r[1])};
  k.parallel = domain::parallel_from_case(c);
  k.phys.gravity = c.get<double>("physics.gravity");
  k.phys.f0 = c.get<double>("physics.f0");
  k.phys.beta = c.get<double>("physics.beta");
  k.phys.y_ref = 0.5 * k.ly;
  k.phys.scheme = c.get<std::string>("dynamics.scheme") == "sadourny_energy" ? SwScheme::SadournyEnergy
                                                                              : SwScheme::ArakawaLamb;
  k.initial = c.get<std::string>("initial.type");
  k.depth = c.get<double>("initial.depth");
  k.amplitude = c.get<double>("initial.amplitude");
  k.width = c.get<double>("initial.width");
  const auto ctr = c.get<std::array<double, 2>>("initial.center");
  k.center_x = ctr[0];
  k.center_y = ctr[1];
  k.depth_left = c.get<double>("initial.depth_left");
  k.depth_right = c.get<double>("initial.depth_right");
  k.dam_position = c.get<double>("initial.dam_position");
  const auto wn = c.get<std::array<int64_t, 2>>("initial.wave_number");
  k.wave_kx = wn[0];
  k.wave_ky = wn[1];
  k.jet_speed = c.get<double>("initial.jet_speed");
  k.jet_width = c.get<double>("initial.jet_width");
  k.perturbation = c.get<double>("initial.perturbation");
  k.topography = c.get<std::string>("topography.type");
  k.topo_height = c.get<double>("topography.height");
  k.topo_width = c.get<double>("topography.width");
  k.topo_seed = uint64_t(c.get<int64_t>("topography.seed"));
  k.t_end = c.get<double>("time.end");
  k.cfl = c.get<double>("time.cfl");
  k.dt_fixed = c.get<double>("time.dt");
  k.max_steps = c.get<int64_t>("time.max_steps");
  k.scheme = c.get<std::string>("time.scheme") == "ssprk2" ? TimeScheme::SspRk2 : TimeScheme::SspRk3;
  k.damping = c.get<double>("damping.coefficient");
  k.levels = c.get<int64_t>("tracers.levels");
  k.column_depth = c.get<double>("tracers.column_depth");
  k.w_amplitude = c.get<double>("tracers.w_amplitude");
  k.vadv_beta = c.get<double>("tracers.implicitness");
  k.output_interval = c.get<double>("output.interval");
  k.diagnostics_every = c.get<int64_t>("output.diagnostics_every");
  k.spectrum = c.get<bool>("output.spectrum");
  k.write_fields = c.get<bool>("output.fields");
  k.precision = c.get<std::string>("output.precision");
  k.checkpoint_every = c.get<int64_t>("output.checkpoint_every");
  if (k.initial == "dam_break" && k.topography != "flat")
    c.fail("topography.type", "the dam break compares with Stoker's flat-bed solution: use topography.type: flat");
  if (k.topography != "flat" && k.topo_height >= k.depth)
    c.fail("topography.height", fmt::format("topography height {} reaches the surface at depth {}: dry cells are not "
                                            "supported (wetting and drying is not implemented); lower it",
                                            k.topo_height, k.depth));
  return k;
}

MemoryEstimate memory_estimate(const Case& c, int nranks) {
  const Config k = read_config(c);
  const double cells = double(k.nx) * double(k.ny) / double(nranks > 0 ? nranks : 1);
  const double per_field = cells * 8.0 * 1.1;  // ghost layers add ~10% on moderate patches
  const double n2 = 3 * 3 + 1 + 4 + (k.damping > 0 ? 1 : 0);  // h,u,v x 3 states, b, output temporaries
  const double n3 = double(k.levels) * 5;                       // tracer x 3 states, w, vadv scratch
  MemoryEstimate m;
  m.bytes_per_rank = std::size_t(per_field * (n2 + n3));
  m.notes.push_back(fmt::format("2-D fields: {} x {:.0f} cells x 8 B", n2, cells));
  if (k.levels > 0) m.notes.push_back(fmt::format("tracers: {} levels x 5 arrays", k.levels));
  return m;
}

}  // namespace tessera::weather
