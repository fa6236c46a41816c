// `md case.yaml`: build (or restore) the system, run the time loop with its time series, checkpoints and
// stop requests, print the summary and write the run manifest.
//
// Stopping well (docs/md.md, "Batch jobs"): SIGTERM/SIGINT/SIGUSR1 or --max-walltime make the loop
// finish the current step, write a checkpoint, the series and run.json, and return
// exit_code::stopped_early (3); `--restart auto` continues from the newest valid checkpoint.
#include "tessera/md/run.hpp"

#include <chrono>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/core/run_record.hpp"
#include "tessera/core/signals.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/decomposition.hpp"
#include "tessera/md/output.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"

namespace tessera::md {

namespace {
using clock = std::chrono::steady_clock;
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

void log_setup(const CaseConfig& k, const Simulation& sim, std::size_t nbonds, exec::Space space) {
  const Units& u = k.sim.units;
  const Box& b = sim.box();
  log::info("md: {} atoms, {} bonds, box {:.4f} x {:.4f} x {:.4f} {}, {} on {}, dt = {} {}, {} precision", sim.natoms(),
            nbonds, b.L[0], b.L[1], b.L[2], u.length, to_string(k.sim.integrator), exec::to_string(space), k.sim.dt,
            u.time, k.sim.precision == Precision::dbl ? "double" : "mixed");
  if (u.name == "real")
    log::info("units real: length Angstrom, time fs, energy kcal/mol, mass g/mol, temperature K, pressure atm; "
              "k_B = {} kcal/mol/K; 1 (kcal/mol/A)/(g/mol) = {:.6g} A/fs^2", u.kB, u.ftm2v);
  else
    log::info("units lj: length sigma, energy epsilon, mass m, time tau = sigma sqrt(m/epsilon), k_B = 1");
  if (k.sim.tail)
    log::info("tail corrections: E_tail/N = {:.6f}, P_tail = {:.6f}", sim.tail_energy() / double(sim.natoms()),
              sim.tail_pressure() * u.nktv2p);
  if (space == exec::Space::Device) {
    const bool tuned = k.sim.pair_kernel == PairKernel::tuned ||
                       (k.sim.pair_kernel == PairKernel::automatic && tuned_pair_forces_available());
    log::info("md: GPU paths: {} step, {} pair kernel{}, {} cells", sim.graph_step() ? "CUDA-graph" : "host-driven",
              tuned ? "tuned" : "portable",
              tuned ? fmt::format(" ({} lanes per atom)", k.sim.threads_per_atom > 0 ? k.sim.threads_per_atom
                                                                                     : default_threads_per_atom(sim.natoms()))
                    : std::string(),
              sim.config().cell_reach == 2 ? "half-width (125)" : "whole (27)");
  }
  if (k.sim.cuda_graph && k.cuda_graph_given && !sim.graph_step())
    log::warn("run.cuda_graph: true is ignored here: the CUDA-graph step needs --device gpu, one rank and the nve "
              "or langevin integrator; this run takes the host-driven step (same physics)");
  if (k.sim.integrator == Integrator::npt)
    log::info("npt: isotropic MTK barostat, P_ext = {} {}, tau_P = {} {}, NHC on particles (tau = {}) and barostat",
              k.sim.pressure, u.name == "real" ? "atm" : "epsilon/sigma^3", k.sim.tau_p, u.time, k.sim.tau);
  for (int a = 0; a < 3; ++a)
    if (!b.periodic[a])
      log::info("walls on axis {}: 9-3 wall at {} and {}", "xyz"[a], b.lo[a], b.lo[a] + b.L[a]);
}
}  // namespace

int run(Runtime& rt, const Case& c, const RunOptions& opt) {
  const MPI_Comm comm = rt.comm();
  const CaseConfig k = read_config(c);
  const InitialSystem init = build_initial(k, k.sim.units);
  Simulation sim(rt.space(), k.sim, init.box, init.particles, build_potential(rt.space(), k, int(k.mass.size())),
                 init.bonds, build_bond_params(k), comm, k.transport);
  log_setup(k, sim, init.bonds.size(), rt.space());
  if (const ParticleDecomposition* dd = sim.decomposition())
    log::info("md: {} ranks as {} x {} x {} sub-boxes, ghost cut-off {:.4g}, ghost transport {}", dd->size(),
              dd->dims()[0], dd->dims()[1], dd->dims()[2], dd->ghost_cut(), domain::to_string(dd->transport()));

  // Progress line, NVML energy per million atom-steps, run.json and --prometheus (core/run_record.hpp).
  telemetry::RunRecord rec(rt, opt,
                           {.solver = "md",
                            .work_name = "atom-steps",
                            .rate_unit = "Matom-steps/s",
                            .work_per_step = double(sim.natoms()),
                            .total_steps = k.steps,
                            .progress_every = opt.progress_every});
  nlohmann::json& manifest = rec.manifest();
  manifest["case_file"] = opt.case_path;
  manifest["case_hash"] = c.hash_hex();
  manifest["atoms"] = sim.natoms();

  const std::string resume = io::resolve_restart(opt.restart, opt.output_dir, "md");
  if (resume.empty()) {
    sim.setup();
  } else {
    io::LoadOptions lo;
    lo.expected_case_hash = c.hash_hex();
    lo.expected_case_text = c.yaml();
    sim.restore(io::CheckpointReader(comm, resume, lo));
    log::info("md: restarted from {} at step {}, t = {}", resume, sim.step_count(), sim.time());
    manifest["restarted_from"] = resume;
  }
  RunOutput out(rt, c, k, sim, opt.output_dir, resume.empty() ? -1 : sim.step_count());
  out.thermo_header();
  if (resume.empty()) {
    out.thermo(sim.thermo());
    if (k.trajectory_every > 0) out.frame(sim);
    if (k.msd_every > 0) out.msd(sim);
  }

  telemetry::Phases& ph = rec.phases();
  io::CheckpointOptions copt;
  copt.keep_last = k.checkpoint_keep;
  std::string last_ckpt = resume;
  int64_t last_ckpt_step = resume.empty() ? -1 : sim.step_count();
  auto checkpoint = [&] {
    const auto t = clock::now();
    io::CheckpointMeta m;
    m.case_hash = c.hash_hex();
    m.case_text = c.yaml();
    m.solver = "md";
    last_ckpt = sim.write_checkpoint(comm, opt.output_dir, m, copt);
    last_ckpt_step = sim.step_count();
    ph.io += since(t);
  };
  const int64_t first_step = sim.step_count();
  auto finish = [&](int status, const char* why) {
    const auto& st = sim.neighbors().stats();
    manifest["neighbor"] = {{"builds", st.builds}, {"regrows", st.regrows}, {"max_count", st.max_count}};
    manifest["output"] = {{"trajectory", out.trajectory_path()}, {"xdmf", out.xdmf_path()},
                          {"last_checkpoint", last_ckpt}};
    return rec.finish(status, why, sim.step_count(), sim.time());
  };

  rec.begin(sim.step_count(), sim.time());
  // Ranks agree on stopping (signal or wall time: one MPI_Allreduce) every kStopCheck steps.
  constexpr int64_t kStopCheck = 10;
  constexpr double kWalltimeMarginS = 30.0;
  while (sim.step_count() < k.steps) {
    const int64_t s = sim.step_count() + 1;
    const bool thermo_due = s % k.thermo_every == 0 || s == k.steps;
    auto t = clock::now();
    sim.step(thermo_due);
    ph.compute += since(t);
    t = clock::now();
    if (thermo_due) out.thermo(sim.thermo());
    if (k.trajectory_every > 0 && s % k.trajectory_every == 0) out.frame(sim);
    if (k.msd_every > 0 && s % k.msd_every == 0) out.msd(sim);
    ph.io += since(t);
    if (k.checkpoint_every > 0 && s % k.checkpoint_every == 0) checkpoint();
    rec.update(s, sim.time());
    if (s < k.steps && s % kStopCheck == 0 &&
        signals::should_stop(comm, opt.walltime_near(kWalltimeMarginS))) {
      if (last_ckpt_step != s) checkpoint();
      log::warn("md: stopped early at step {} (signal or wall time); checkpoint {}: resubmit with --restart auto", s,
                last_ckpt);
      return finish(exit_code::stopped_early, "signal or wall time");
    }
  }
  exec::fence(sim.exec());
  if (k.checkpoint_every > 0 && last_ckpt_step != sim.step_count()) checkpoint();  // so that the run can be extended
  if (out.frames() > 0)
    log::info("trajectory: {} frames in {} (ParaView: open {})", out.frames(), out.trajectory_path(), out.xdmf_path());
  const auto& st = sim.neighbors().stats();
  const int64_t done = sim.step_count() - first_step;
  log::info("done: {} steps of {} atoms in {:.3f} s: {:.4g} atom-steps/s; {} neighbour-list builds ({:.3f} s, "
            "{} regrowths, max {} neighbours)",
            done, sim.natoms(), ph.compute, ph.compute > 0 ? double(done) * double(sim.natoms()) / ph.compute : 0.0,
            st.builds, st.build_ms * 1e-3, st.regrows, st.max_count);
  return finish(exit_code::ok, "done");
}

}  // namespace tessera::md
