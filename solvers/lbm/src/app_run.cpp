// The `lbm` run driver: units, restart, time loop with progress lines, field output through the io
// layer, checkpoints (periodic, on a stop signal or before --max-walltime), instability stop, run manifest.
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/core/run_record.hpp"
#include "tessera/core/signals.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/field_output.hpp"
#include "tessera/lbm/solver/energy_series.hpp"
#include "tessera/lbm/solver/probes.hpp"
#include "tessera/lbm/solver/forces.hpp"

namespace tessera::lbm {

namespace {
using clock = std::chrono::steady_clock;
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

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

  const int64_t steps = std::max<int64_t>(1, int64_t(std::llround(c.get<double>("time.end") / units.dt)));
  const int64_t progress_every = opt.progress_every > 0 ? opt.progress_every : c.get<int64_t>("output.progress");
  const double cells = double(spec.global[0] * spec.global[1] * spec.global[2]);
  telemetry::RunRecord rec(rt, opt,
                           {.solver = "lbm", .work_name = "cell updates", .rate_unit = "MLUPs/s",
                            .work_per_step = cells, .total_steps = steps, .progress_every = progress_every});
  nlohmann::json& manifest = rec.manifest();
  manifest["case_file"] = opt.case_path;
  manifest["case_hash"] = c.hash_hex();
  manifest["cells"] = {spec.global[0], spec.global[1], spec.global[2]};

  Simulation sim(rt.comm(), opt.device, spec);
  const MPI_Comm comm = sim.partition().comm;
  {  // which stream-collide kernel runs (numerics.kernel), and for the tuned one which form on this rank
    const bool tuned = spec.path == KernelPath::Tuned;
    const std::string form = tuned ? tuned_kernel_form(sim.state(), spec.collision.kind) : "portable";
    manifest["kernel"] = {{"path", tuned ? "tuned" : "reference"}, {"form", form}};
    log::info("lbm: kernel: {} ({})", tuned ? "tuned" : "reference", form);
  }
  const std::string resume = io::resolve_restart(opt.restart, opt.output_dir, "lbm");
  if (!resume.empty()) {
    io::LoadOptions lo;
    lo.expected_case_hash = c.hash_hex();
    lo.expected_case_text = c.yaml();
    sim.restore(io::CheckpointReader(comm, resume, lo));
    log::info("lbm: restarted from {} at step {}", resume, sim.step());
    manifest["restarted_from"] = resume;
  }
  const int64_t every = c.get<int64_t>("output.every");
  const int64_t ckpt_every = c.get<int64_t>("output.checkpoint_every");
  io::CheckpointOptions copt;
  copt.keep_last = int(c.get<int64_t>("output.checkpoint_keep"));

  int64_t last_ckpt_step = resume.empty() ? -1 : sim.step();  // the restart's checkpoint holds this step
  telemetry::Phases& ph = rec.phases();
  FieldOutput out(sim, units, c, opt.output_dir, c.get<bool>("output.vtk"), !resume.empty());
  // Probe / line CSV series: on restart, rows past the checkpoint's step are dropped (no duplicates).
  Probes probes(sim, units, c, opt.output_dir, resume.empty() ? -1 : sim.step());
  const int64_t probe_every = probes.every() > 0 ? probes.every() : every;
  EnergySeries energy(sim, units, c, opt.output_dir, resume.empty() ? -1 : sim.step());
  auto sample = [&] {
    const auto t = clock::now();
    const int64_t s = sim.step();
    if ((probe_every > 0 && s % probe_every == 0) || s == steps || s == 0) probes.sample(sim, double(s) * units.dt);
    if (energy.every() > 0 && (s % energy.every() == 0 || s == steps)) energy.sample(sim, double(s) * units.dt);
    ph.io += since(t);
  };
  // Force / torque series of the obstacles (forces.csv, forces.h5); rows past a restart step are dropped.
  ForceSeries forces(sim, units, c, opt.output_dir, resume.empty() ? -1 : sim.step());
  auto sample_forces = [&] {
    const int64_t s = sim.step();
    if (!forces.active() || s == 0 || (s % forces.every() != 0 && s != steps)) return;
    const auto t = clock::now();
    forces.sample(sim, double(s) * units.dt, s == steps || (every > 0 && s % every == 0) || (ckpt_every > 0 && s % ckpt_every == 0));
    ph.io += since(t);
  };
  std::string last_ckpt = resume;
  auto checkpoint = [&] {
    const auto t = clock::now();
    io::CheckpointMeta m;
    m.time = double(sim.step()) * units.dt;
    m.case_hash = c.hash_hex();
    m.case_text = c.yaml();
    m.solver = "lbm";
    last_ckpt = sim.write_checkpoint(opt.output_dir, m, copt);
    last_ckpt_step = sim.step();
    ph.io += since(t);
  };
  auto finish = [&](int status, const char* why) {
    manifest["output"] = {{"xdmf", out.xdmf_path()}, {"last_fields", out.last_written()}, {"last_checkpoint", last_ckpt}};
    manifest["kernel"]["fused_steps"] = sim.fused_choice();  // TESSERA_LBM_FUSED's choice on this rank
    return rec.finish(status, why, sim.step(), double(sim.step()) * units.dt);
  };
  // Writes the fields of the current step; false (after a clear message) when the run went unstable.
  auto output = [&]() -> bool {
    const auto t = clock::now();
    const std::string last_good = out.last_written();
    const std::string why = out.write(double(sim.step()) * units.dt);
    ph.io += since(t);
    if (why.empty()) return true;
    log::error("lbm: the run went unstable by step {} ({}); last good output: {}. Lower numerics.lattice_velocity, "
               "refine domain.cells, or use collision.model: regularized", sim.step(), why, last_good);
    return false;
  };

  if (resume.empty() && !output()) return finish(exit_code::runtime_error, "unstable");
  if (resume.empty()) sample();
  rec.begin(sim.step(), double(sim.step()) * units.dt);
  // Chunks end on output, checkpoint and progress steps, and at least every kStopCheck steps, where the
  // ranks agree on stopping (signal or wall time: one MPI_Allreduce).
  constexpr int64_t kStopCheck = 20;
  auto next_multiple = [](int64_t s, int64_t k) { return k > 0 ? (s / k + 1) * k : INT64_MAX; };
  while (sim.step() < steps) {
    const int64_t s = sim.step();
    const int64_t end = std::min({steps, next_multiple(s, every), next_multiple(s, ckpt_every), next_multiple(s, probe_every),
                                  next_multiple(s, energy.every()),
                                  next_multiple(s, forces.every()), next_multiple(s, progress_every), s + kStopCheck});
    const auto t = clock::now();
    sim.advance(end - s);
    ph.compute += since(t);
    const double time = double(sim.step()) * units.dt;
    if ((every > 0 && sim.step() % every == 0) || sim.step() == steps)
      if (!output()) return finish(exit_code::runtime_error, "unstable");
    sample();
    sample_forces();
    if (ckpt_every > 0 && sim.step() % ckpt_every == 0) checkpoint();
    rec.update(sim.step(), time);
    if (sim.step() < steps && signals::should_stop(comm, opt.walltime_near(30.0))) {
      if (last_ckpt_step != sim.step()) checkpoint();
      forces.write_h5();
      log::warn("lbm: stopped early at step {} (signal or wall time); checkpoint {}: resubmit with --restart auto",
                sim.step(), last_ckpt);
      return finish(exit_code::stopped_early, "signal or wall time");
    }
  }
  if (ckpt_every > 0 && last_ckpt_step != sim.step()) checkpoint();  // so that the run can be extended
  log::info("lbm: done, {} steps; ParaView: open {}", steps, out.xdmf_path());
  return finish(exit_code::ok, "done");
}

}  // namespace tessera::lbm
