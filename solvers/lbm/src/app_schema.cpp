// Case-file schema of `lbm` and the conversion from SI to lattice units.
#include <cmath>

#include <fmt/format.h>

#include "tessera/core/device.hpp"
#include "tessera/domain/parallel_options.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/initial.hpp"
#include "tessera/lbm/solver/probes.hpp"
#include "tessera/lbm/solver/forces.hpp"
#include "tessera/lbm/solver/geometry.hpp"

namespace tessera::lbm {

namespace {
const char* kFaces[6] = {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};

Schema make_schema() {
  Schema s("lbm", "Lattice-Boltzmann fluid solver (D2Q9, D3Q19, D3Q27; AA-pattern, fp64/fp32/fp16 storage)");
  s.section("domain", "Simulation box");
  s.add_int_array("domain.cells", 3).required().min(1).describe("Lattice cells per axis [nx, ny, nz] (nz = 1 for D2Q9)");
  s.add_float("domain.length").required().greater_than(0).unit("m").describe("Box length along x (dx = length / nx)");
  s.add_enum("domain.lattice", {"D2Q9", "D3Q19", "D3Q27"}).default_value("D2Q9").describe("Velocity set");
  s.section("physics", "Fluid properties and driving");
  s.add_float("physics.viscosity").required().greater_than(0).unit("m^2/s").describe("Kinematic viscosity");
  s.add_float("physics.velocity").required().greater_than(0).unit("m/s")
      .describe("Characteristic velocity: sets the time step through numerics.lattice_velocity");
  s.add_float_array("physics.acceleration", 3).default_array({0, 0, 0}).unit("m/s^2")
      .describe("Uniform body acceleration (Guo forcing)");
  s.add_float("physics.density").default_value(1.0).greater_than(0).unit("kg/m^3")
      .describe("Reference density rho_0: scales forces (forces.csv) and pressures only");
  s.section("boundary", "Faces of the box: periodic (both faces of an axis), wall, moving_wall, velocity_inlet, pressure_outlet");
  for (const char* f : kFaces) {
    s.add_enum(std::string("boundary.") + f + ".type", {"periodic", "wall", "moving_wall", "velocity_inlet", "pressure_outlet"})
        .default_value("periodic")
        .describe(std::string("Boundary on the ") + f + " face (half-way bounce-back for walls; regularized open boundaries)");
    s.add_float_array(std::string("boundary.") + f + ".velocity", 3).default_array({0, 0, 0}).unit("m/s")
        .describe("Wall velocity of a moving_wall (tangential); inlet velocity (the maximum for a parabolic profile)");
    s.add_enum(std::string("boundary.") + f + ".profile", {"uniform", "parabolic"}).default_value("uniform")
        .describe("velocity_inlet profile: uniform, or parabolic across the wall-bounded tangential axes");
    s.add_float(std::string("boundary.") + f + ".density").default_value(1.0).greater_than(0)
        .describe("pressure_outlet density rho / rho_0 (p - p_0 = c_s^2 rho_0 (rho / rho_0 - 1) (dx/dt)^2)");
    s.add_float(std::string("boundary.") + f + ".ramp_time").default_value(0.0).min(0).unit("s")
        .describe("velocity_inlet: smooth start, u x (1 - cos(pi t / T)) / 2 for t < T (0: at full speed from t = 0)");
  }
  s.add_enum("boundary.curved", {"interpolated", "halfway"}).default_value("interpolated")
      .describe("Walls of the obstacles: interpolated bounce-back (Bouzidi et al. 2001, second order on curved "
                "surfaces; voxel masks stay half-way) or half-way bounce-back (the staircase, first order)");
  add_obstacle_keys(s);
  add_force_keys(s);
  s.section("collision", "Collision operator");
  s.add_enum("collision.model", {"bgk", "trt", "regularized"}).default_value("trt").describe("BGK, TRT or regularized BGK");
  s.add_float("collision.magic").default_value(3.0 / 16.0).greater_than(0).describe("TRT magic parameter Lambda");
  s.add_float("collision.smagorinsky").default_value(0.0).min(0).max(0.5).describe("Smagorinsky constant (0: no LES)");
  s.section("numerics", "Discretisation");
  s.add_float("numerics.lattice_velocity").default_value(0.1).greater_than(0).max(0.4)
      .describe("physics.velocity in lattice units (sets dt; Mach = sqrt(3) x this)");
  s.add_enum("numerics.precision", {"fp64", "fp32", "fp16"}).default_value("fp32").describe("Population storage precision");
  s.add_enum("numerics.kernel", {"reference", "tuned"}).default_value("reference").describe("Portable kernel or the tuned CUDA kernel (GPU, 3-D, fp32/fp16)");
  s.add_int_array("numerics.ranks", 3).default_array({0, 0, 0}).min(0).describe("Rank grid (0: automatic)");
  s.section("initial", "Initial state");
  s.add_enum("initial.state", {"rest", "taylor_green"}).default_value("rest")
      .describe("rest (density 1, velocity 0) or a Taylor-Green vortex, one period per box side (periodic box; 2-D or 3-D by the lattice)");
  s.add_float("initial.velocity").default_value(0.0).min(0).unit("m/s")
      .describe("Taylor-Green amplitude (0: physics.velocity)");
  s.section("time", "Run length");
  s.add_float("time.end").required().greater_than(0).unit("s").describe("Simulated time");
  s.section("output", "Output");
  s.add_int("output.every").default_value(0).min(0).describe("Write fields every N steps (0: only at the end)");
  s.add_int("output.progress").default_value(1000).min(1).describe("Progress line every N steps");
  s.add_bool("output.vtk").default_value(false)
      .describe("Also write VTK XML (.vti per rank, .pvti per step, fields.pvd) beside the HDF5 + fields.xdmf");
  s.add_int("output.checkpoint_every").default_value(0).min(0)
      .describe("Checkpoint every N steps (0: only when stopped by a signal or --max-walltime)");
  s.add_int("output.checkpoint_keep").default_value(3).min(0).describe("Checkpoints kept (older ones deleted); 0 = all");
  s.add_int("output.energy_every").default_value(0).min(0)
      .describe("Append the mean kinetic energy to energy.csv every N steps (0: off)");
  s.add_int("output.probe_every").default_value(0).min(0)
      .describe("Sample output.probes and output.lines every N steps (0: at the field output steps)");
  Schema& pr = s.add_list("output.probes").describe("Probe points: nearest-cell density and velocity over time (probes.csv)").entries();
  pr.add_string("name").required().describe("Column prefix in probes.csv (letters, digits, _ or -)");
  pr.add_float_array("position", 3).required().unit("m").describe("Point [x, y, z]; the cell whose centre is nearest is read");
  Schema& ln = s.add_list("output.lines").describe("Line samples: nearest-cell values at evenly spaced points (line_<name>.csv)").entries();
  ln.add_string("name").required().describe("File name part: line_<name>.csv (letters, digits, _ or -)");
  ln.add_float_array("start", 3).required().unit("m").describe("First point [x, y, z]");
  ln.add_float_array("end", 3).required().unit("m").describe("Last point [x, y, z]");
  ln.add_int("points").default_value(65).min(2).describe("Points from start to end, both included");
  s.add_check("stability", {"physics.viscosity", "physics.velocity", "numerics.lattice_velocity", "domain.length"},
              [](const Case& c) -> std::string {
                const Units u = units_from_case(c);
                if (u.tau < 0.5 + 1e-3)
                  return fmt::format("tau = {:.5f} is too close to 1/2 (unstable): raise numerics.lattice_velocity, "
                                     "refine domain.cells, or use collision.smagorinsky", u.tau);
                if (u.tau > 5.0)
                  return fmt::format("tau = {:.3f} is too large (inaccurate walls): lower numerics.lattice_velocity or "
                                     "coarsen domain.cells", u.tau);
                return "";
              });
  s.add_check("initial", {"initial.state", "domain.cells"}, check_initial);
  s.add_check("probes", {"output.probes", "output.lines", "domain.cells", "domain.length"}, check_probes);
  // parallel.transport, parallel.memory (device | managed), parallel.overlap (multi-GPU, docs/domain.md)
  // Overlap defaults to off for lbm: on 2 x H200 (NCCL, 256^3 per GPU, 77e69a3) the plain step took 1.044 ms
  // and the overlapped one 1.213 ms (docs/performance.md, Multi-GPU); bit-identical either way.
  domain::add_parallel_keys(s, /*memory=*/true, /*overlap=*/true, /*overlap_default=*/false);
  add_batch_keys(s);  // batch.max_walltime
  return s;
}
}  // namespace

const Schema& schema() {
  static const Schema s = make_schema();
  return s;
}

std::string Units::describe() const {
  return fmt::format("dx = {:.4g} m, dt = {:.4g} s, nu_lattice = {:.5g}, tau = {:.5f}, u_lattice = {:.4g}, Mach = {:.3f}",
                     dx, dt, nu_lattice, tau, u_lattice, mach);
}

Units units_from_case(const Case& c) {
  Units u;
  const auto cells = c.get<std::array<int64_t, 3>>("domain.cells");
  u.dx = c.get<double>("domain.length") / double(cells[0]);
  u.u_lattice = c.get<double>("numerics.lattice_velocity");
  u.dt = u.u_lattice * u.dx / c.get<double>("physics.velocity");
  u.nu_lattice = c.get<double>("physics.viscosity") * u.dt / (u.dx * u.dx);
  u.tau = 3.0 * u.nu_lattice + 0.5;
  u.mach = std::sqrt(3.0) * u.u_lattice;
  return u;
}

SimulationSpec spec_from_case(const Case& c, const Units& u) {
  SimulationSpec s;
  s.lattice = parse_lattice(c.get<std::string>("domain.lattice").c_str());
  s.precision = parse_precision(c.get<std::string>("numerics.precision").c_str());
  s.path = c.get<std::string>("numerics.kernel") == "tuned" ? KernelPath::Tuned : KernelPath::Reference;
  s.collision.kind = parse_collision(c.get<std::string>("collision.model").c_str());
  s.collision.omega = 1.0 / u.tau;
  s.collision.magic = c.get<double>("collision.magic");
  s.collision.smagorinsky = c.get<double>("collision.smagorinsky");
  const auto acc = c.get<std::array<double, 3>>("physics.acceleration");
  for (int a = 0; a < 3; ++a) s.collision.force[a] = acc[size_t(a)] * u.dt * u.dt / u.dx;
  s.global = c.get<std::array<int64_t, 3>>("domain.cells");
  s.rank_dims = c.get<std::array<int, 3>>("numerics.ranks");
  s.initial = initial_from_case(c, u);
  const domain::ParallelOptions par = domain::parallel_from_case(c);
  s.transport = par.transport;
  s.overlap = par.overlap;
  s.managed = par.managed;
  for (int f = 0; f < 6; ++f) {
    const std::string base = std::string("boundary.") + kFaces[f];
    const std::string t = c.get<std::string>(base + ".type");
    FaceBC& fb = s.faces[size_t(f)];
    fb.kind = t == "periodic" ? FaceBC::Periodic
              : t == "velocity_inlet" ? FaceBC::VelocityInlet
              : t == "pressure_outlet" ? FaceBC::PressureOutlet : FaceBC::Wall;
    if (t == "moving_wall" || t == "velocity_inlet") {
      const auto v = c.get<std::array<double, 3>>(base + ".velocity");
      for (int a = 0; a < 3; ++a) fb.u[size_t(a)] = v[size_t(a)] * u.dt / u.dx;
    }
    fb.parabolic = c.get<std::string>(base + ".profile") == "parabolic";
    fb.rho = c.get<double>(base + ".density");
    fb.ramp_steps = int64_t(std::llround(c.get<double>(base + ".ramp_time") / u.dt));
  }
  Geometry geo = geometry_from_case(c, u.dx, s.lattice, s.global);
  if (geo.body) {
    s.body = geo.body;
    s.solid = [b = geo.body](int64_t i, int64_t j, int64_t k) { return b(i, j, k) >= 0; };
    if (c.get<std::string>("boundary.curved") == "interpolated") {
      const bool is2d = lattice_dim(s.lattice) == 2;
      const double dx = u.dx;
      s.link_fraction = [fr = geo.fraction, dx, is2d](int b, int64_t i, int64_t j, int64_t k, int cx, int cy, int cz) {
        if (b < 0 || std::size_t(b) >= fr.size()) return -1.0;
        const std::array<double, 3> p{(double(i) + 0.5) * dx, (double(j) + 0.5) * dx, is2d ? 0.0 : (double(k) + 0.5) * dx};
        const std::array<double, 3> d{cx * dx, cy * dx, is2d ? 0.0 : cz * dx};
        return fr[std::size_t(b)](p, d);
      };
    }
  }
  return s;
}

MemoryEstimate memory_estimate(const Case& c, int nranks) {
  const auto cells = c.get<std::array<int64_t, 3>>("domain.cells");
  const LatticeKind k = parse_lattice(c.get<std::string>("domain.lattice").c_str());
  const Precision p = parse_precision(c.get<std::string>("numerics.precision").c_str());
  const double per_rank = double(cells[0]) * double(cells[1]) * double(cells[2]) / double(std::max(1, nranks));
  const double bytes_per_cell = double(lattice_q(k) * precision_bytes(p) + 1);
  MemoryEstimate m;
  m.bytes_per_rank = std::size_t(per_rank * bytes_per_cell * 1.05);  // + ghosts and halo buffers (~5%)
  m.notes.push_back(fmt::format("populations + flags: {} x {} B + 1 B = {} B per cell, {:.3g} M cells per rank (one "
                                "population copy: AA pattern)",
                                lattice_q(k), precision_bytes(p), bytes_per_cell, per_rank / 1e6));
  // The largest grid per GPU: populations + flags resident, plus the moments (rho, u: 16 B per cell) that a
  // field output computes, with the ~5 % of ghosts and halo buffers.
  const double out_bytes = bytes_per_cell + 16.0;
  if (device::gpu_available()) {
    const auto [free_b, total_b] = device::mem_info();
    m.notes.push_back(fmt::format("largest grid on this GPU ({} free of {}): {:.3g} G cells per rank ({:.0f}^3), "
                                  "{:.3g} G cells with field output",
                                  cli::format_bytes(free_b), cli::format_bytes(total_b),
                                  double(free_b) / (bytes_per_cell * 1.05) / 1e9,
                                  std::cbrt(double(free_b) / (bytes_per_cell * 1.05)),
                                  double(free_b) / (out_bytes * 1.05) / 1e9));
  }
  m.notes.push_back(fmt::format("largest grid per rank in 80 GB: {:.3g} G cells; in 140 GB (H200): {:.3g} G cells",
                                80e9 / (bytes_per_cell * 1.05) / 1e9, 140e9 / (bytes_per_cell * 1.05) / 1e9));
  return m;
}

}  // namespace tessera::lbm
