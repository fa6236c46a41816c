// The `lbm` run driver: units, time loop with progress lines, ParaView output, instability stop.
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/lbm/solver/app.hpp"

namespace tessera::lbm {

namespace {
// Density and velocity must stay finite and the density near 1 (weakly compressible regime).
std::string check_fields(const std::vector<float>& rho, const std::vector<float>& u) {
  for (std::size_t c = 0; c < rho.size(); ++c)
    if (!std::isfinite(rho[c]) || rho[c] < 0.5f || rho[c] > 2.0f)
      return fmt::format("density {} at cell {}", rho[c], c);
  for (float v : u)
    if (!std::isfinite(v)) return "non-finite velocity";
  return "";
}
}  // namespace

int run(Runtime& rt, const Case& c, const RunOptions& opt) {
  const Units units = units_from_case(c);
  const SimulationSpec spec = spec_from_case(c, units);
  log::info("lbm: {} {} {}, {}x{}x{} cells, {} rank(s), {}", to_string(spec.lattice), to_string(spec.collision.kind),
            to_string(spec.precision), spec.global[0], spec.global[1], spec.global[2], rt.size(), exec::to_string(opt.device));
  log::info("lbm: units: {}", units.describe());
  if (units.mach > 0.3)
    log::warn("lbm: Mach {:.2f} > 0.3: compressibility errors grow as Ma^2; lower numerics.lattice_velocity", units.mach);
  if (units.tau < 0.55 && spec.collision.kind == CollisionKind::BGK && spec.collision.smagorinsky == 0)
    log::warn("lbm: tau = {:.4f} is close to 1/2; BGK may go unstable: use collision.model: regularized or trt", units.tau);

  Simulation sim(rt.comm(), opt.device, spec);
  const int64_t steps = std::max<int64_t>(1, int64_t(std::llround(c.get<double>("time.end") / units.dt)));
  const int64_t every = c.get<int64_t>("output.every");
  const int64_t progress = opt.progress_every > 0 ? opt.progress_every : c.get<int64_t>("output.progress");
  const double cells = double(spec.global[0] * spec.global[1] * spec.global[2]);

  std::vector<uint8_t> solid;
  if (rt.rank() == 0) {
    solid.assign(std::size_t(cells), 0);
    if (spec.solid)
      for (int64_t k = 0; k < spec.global[2]; ++k)
        for (int64_t j = 0; j < spec.global[1]; ++j)
          for (int64_t i = 0; i < spec.global[0]; ++i)
            solid[std::size_t(i + spec.global[0] * (j + spec.global[1] * k))] = spec.solid(i, j, k) ? 1 : 0;
  }
  std::vector<std::pair<double, std::string>> series;
  std::string last_good = "(none)";
  auto output = [&](int64_t step) -> bool {
    std::vector<float> rho, u;
    sim.gather(rho, u);
    int bad = 0;
    std::string why;
    if (rt.rank() == 0) {
      why = check_fields(rho, u);
      bad = why.empty() ? 0 : 1;
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, rt.comm());
    if (bad) {
      log::error("lbm: the run went unstable by step {} ({}); last good output: {}. Lower numerics.lattice_velocity, "
                 "refine domain.cells, or use collision.model: regularized", step, why, last_good);
      return false;
    }
    if (rt.rank() == 0) {
      // Velocities back in m/s, density relative (rho / rho_0).
      for (float& v : u) v = float(double(v) * units.dx / units.dt);
      const std::string name = fmt::format("fields_{:08d}.vti", step);
      write_vti(opt.output_dir + "/" + name, spec.global, units.dx, rho, u, solid);
      series.emplace_back(double(step) * units.dt, name);
      write_pvd(opt.output_dir + "/fields.pvd", series);
      last_good = opt.output_dir + "/" + name;
    }
    return true;
  };

  if (!output(0)) return exit_code::runtime_error;
  const auto t0 = std::chrono::steady_clock::now();
  int64_t done = 0;
  while (done < steps) {
    int64_t chunk = std::min(progress, steps - done);
    if (every > 0) chunk = std::min(chunk, every - done % every);
    const auto ta = std::chrono::steady_clock::now();
    sim.advance(chunk);
    done += chunk;
    const double dt_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - ta).count();
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (done % progress == 0 || done == steps)
      log::info("step {:>8}/{}  t = {:.4g} s  {:.1f} MLUPs/s  ETA {:.0f} s", done, steps, double(done) * units.dt,
                cells * double(chunk) / std::max(dt_s, 1e-9) / 1e6, total / double(done) * double(steps - done));
    if ((every > 0 && done % every == 0) || done == steps)
      if (!output(done)) return exit_code::runtime_error;
    if (opt.walltime_near(30.0)) {
      log::warn("lbm: stopping at step {} before the wall-time limit (checkpoints are not implemented yet)", done);
      return exit_code::stopped_early;
    }
  }
  log::info("lbm: done, {} steps; ParaView: open {}/fields.pvd", steps, opt.output_dir);
  return exit_code::ok;
}

}  // namespace tessera::lbm
