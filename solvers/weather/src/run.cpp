// The weather time loop: CFL steps clipped to output times, diagnostics, output, checkpoints, restart,
// progress line, GPU energy and the run record (run.json, optional Prometheus file).
#include "tessera/weather_solver/run.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/core/run_record.hpp"
#include "tessera/core/signals.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"
#include "tessera/weather_solver/output.hpp"

namespace tessera::weather {

namespace {
using clock = std::chrono::steady_clock;
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }
}  // namespace

int run(Runtime& rt, const Case& c, const RunOptions& opt) {
  const Config k = read_config(c);
  Model m(rt.comm(), k, exec::Exec(rt.space()));
  m.initialise();
  const MPI_Comm comm = m.decomposition().comm();
  std::string restarted_from;
  {
    const std::string path = io::resolve_restart(opt.restart, opt.output_dir, "weather");
    if (!path.empty()) {
      restart_from(m, c, path);
      restarted_from = path;
      log::info("restarted from {} at step {}, t = {} s", path, m.steps, m.time);
    }
  }
  const bool restarted = !restarted_from.empty();
  const double cells = double(k.nx) * double(k.ny) * double(std::max<int64_t>(1, k.levels));
  telemetry::RunRecord rec(rt, opt,
                           {.solver = "weather",
                            .work_name = "cell updates",
                            .rate_unit = "Mcell-updates/s",
                            .work_per_step = cells,
                            .total_steps = k.max_steps,
                            .total_time = k.t_end,
                            .progress_every = opt.progress_every});
  rec.manifest()["case_file"] = opt.case_path;
  rec.manifest()["case_hash"] = c.hash_hex();
  rec.manifest()["cells"] = {k.nx, k.ny, k.levels};
  if (restarted) rec.manifest()["restarted_from"] = restarted_from;
  telemetry::Phases& ph = rec.phases();

  Output out(m, c, opt.output_dir, restarted);
  std::string last_ckpt = restarted_from;
  auto io = [&](auto&& f) {  // output work, timed as I/O
    const auto t = clock::now();
    f();
    ph.io += since(t);
  };
  auto checkpoint = [&] { io([&] { last_ckpt = out.checkpoint(); }); };
  auto finish = [&](int status, const char* why) {
    rec.manifest()["output"] = {{"last_checkpoint", last_ckpt}};
    return rec.finish(status, why, m.steps, m.time);
  };
  log::info("weather: {}, dx = {} m, dy = {} m, {}, {} on {}", m.decomposition().describe(), k.dx, k.dy,
            k.phys.scheme == SwScheme::ArakawaLamb ? "Arakawa-Lamb" : "Sadourny energy",
            k.scheme == TimeScheme::SspRk3 ? "SSP-RK3" : "SSP-RK2", exec::to_string(rt.space()));
  if (!restarted) io([&] {
      out.diagnostics(0.0);
      out.fields();
    });
  const double interval = k.output_interval > 0 ? k.output_interval : k.t_end;
  double next_out = std::min(k.t_end, (std::floor(m.time / interval + 1e-9) + 1.0) * interval);
  double dt = 0;
  bool last_was_output = false;
  rec.begin(m.steps, m.time);
  while (m.time < k.t_end * (1 - 1e-12) && (k.max_steps == 0 || m.steps < k.max_steps)) {
    const auto t0 = clock::now();
    dt = m.stable_dt();
    bool hit = false;
    if (m.time + dt >= next_out * (1 - 1e-12)) {
      dt = next_out - m.time;
      hit = true;
    }
    m.step(dt);
    if (hit) m.time = next_out;  // exactly on the output time
    ph.compute += since(t0);
    last_was_output = hit;
    if (m.steps % k.diagnostics_every == 0 || hit) {
      io([&] { out.diagnostics(dt); });
      const double hmin = m.min_depth();
      if (!(hmin > 0.0))
        TESSERA_THROW(fmt::format("step {}: a cell ran dry (min depth {} m). Wetting and drying is not supported: "
                                  "raise the depth or lower time.cfl / the initial amplitude",
                                  m.steps, hmin));
    }
    if (hit) {
      io([&] { out.fields(); });
      next_out = std::min(k.t_end, next_out + interval);
    }
    if (k.checkpoint_every > 0 && m.steps % k.checkpoint_every == 0) checkpoint();
    rec.update(m.steps, m.time);
    if (m.steps % 10 == 0 && signals::should_stop(comm, opt.walltime_near(120.0))) {
      checkpoint();
      log::info("stopping early at step {} (signal or wall time); checkpoint {}: resubmit with --restart auto",
                m.steps, last_ckpt);
      return finish(exit_code::stopped_early, "signal or wall time");
    }
  }
  if (!last_was_output) io([&] {
      out.diagnostics(dt);
      out.fields();
    });
  checkpoint();
  log::info("done: {} steps, t = {} s, checkpoint {}", m.steps, m.time, last_ckpt);
  return finish(exit_code::ok, "done");
}

}  // namespace tessera::weather
