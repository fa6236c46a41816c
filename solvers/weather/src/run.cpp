// The weather time loop: CFL steps clipped to output times, diagnostics, output, checkpoints, restart.
#include "tessera/weather_solver/run.hpp"

#include <cmath>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/core/signals.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"
#include "tessera/weather_solver/output.hpp"

namespace tessera::weather {

namespace {
bool any_rank(MPI_Comm comm, bool local) {
  int l = local ? 1 : 0, r = 0;
  MPI_Allreduce(&l, &r, 1, MPI_INT, MPI_LOR, comm);
  return r != 0;
}
}  // namespace

int run(Runtime& rt, const Case& c, const RunOptions& opt) {
  const Config k = read_config(c);
  Model m(rt.comm(), k, exec::Exec(rt.space()));
  m.initialise();
  const MPI_Comm comm = m.decomposition().comm();
  bool restarted = false;
  if (!opt.restart.empty()) {
    std::string path = opt.restart;
    if (path == "auto") {
      const auto p = io::find_latest_valid_checkpoint(opt.output_dir);
      path = p ? *p : "";
      if (!p) log::info("--restart auto: no valid checkpoint in {}, starting from the initial state", opt.output_dir);
    }
    if (!path.empty()) {
      restart_from(m, c, path);
      restarted = true;
      log::info("restarted from {} at step {}, t = {} s", path, m.steps, m.time);
    }
  }
  Output out(m, c, opt.output_dir, restarted);
  log::info("weather: {}, dx = {} m, dy = {} m, {} on {}", m.decomposition().describe(), k.dx, k.dy,
            k.scheme == TimeScheme::SspRk3 ? "SSP-RK3" : "SSP-RK2", exec::to_string(rt.space()));
  if (!restarted) {
    out.diagnostics(0.0);
    out.fields();
  }
  const double interval = k.output_interval > 0 ? k.output_interval : k.t_end;
  double next_out = std::min(k.t_end, (std::floor(m.time / interval + 1e-9) + 1.0) * interval);
  const int64_t progress = opt.progress_every > 0 ? opt.progress_every : 100;
  double dt = 0;
  bool last_was_output = false;
  while (m.time < k.t_end * (1 - 1e-12) && (k.max_steps == 0 || m.steps < k.max_steps)) {
    dt = m.stable_dt();
    bool hit = false;
    if (m.time + dt >= next_out * (1 - 1e-12)) {
      dt = next_out - m.time;
      hit = true;
    }
    m.step(dt);
    if (hit) m.time = next_out;  // exactly on the output time
    last_was_output = hit;
    if (m.steps % k.diagnostics_every == 0 || hit) {
      out.diagnostics(dt);
      const double hmin = m.min_depth();
      if (!(hmin > 0.0))
        TESSERA_THROW(fmt::format("step {}: a cell ran dry (min depth {} m). Wetting and drying is not supported: "
                                  "raise the depth or lower time.cfl / the initial amplitude",
                                  m.steps, hmin));
    }
    if (hit) {
      out.fields();
      next_out = std::min(k.t_end, next_out + interval);
    }
    if (k.checkpoint_every > 0 && m.steps % k.checkpoint_every == 0) out.checkpoint();
    if (m.steps % progress == 0) log::info("step {:>8}  t = {:.6g} s  dt = {:.4g} s", m.steps, m.time, dt);
    if (m.steps % 10 == 0 && (signals::should_stop(comm) || any_rank(comm, opt.walltime_near(120.0)))) {
      const std::string p = out.checkpoint();
      log::info("stopping early at step {} (signal or wall time); checkpoint {}: resubmit with --restart auto", m.steps, p);
      return exit_code::stopped_early;
    }
  }
  if (!last_was_output) {
    out.diagnostics(dt);
    out.fields();
  }
  const std::string p = out.checkpoint();
  log::info("done: {} steps, t = {} s, checkpoint {}", m.steps, m.time, p);
  return exit_code::ok;
}

}  // namespace tessera::weather
