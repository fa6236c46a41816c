// `md case.yaml`: build the system, run the time loop with thermo output, print the summary.
#include "tessera/md/run.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/core/telemetry.hpp"
#include "tessera/io/h5md.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"

namespace tessera::md {

namespace {
std::string thermo_line(const Thermo& t, const Units& u) {
  (void)u;
  return fmt::format("{:>10} {:>12.5f} {:>10.5f} {:>12.6f} {:>12.6f} {:>12.6f} {:>12.6f} {:>14.8f}", t.step, t.time,
                     t.temperature, t.ke, t.pe, t.etotal, t.pressure, t.conserved);
}
// One H5MD frame: particles ordered by id by the writer; positions wrapped into the box.
void write_frame(io::H5mdWriter& w, Simulation& sim) {
  HostParticles h;
  sim.particles().download(h);
  const auto n = std::size_t(h.size());
  std::vector<double> pos(3 * n), vel(3 * n);
  std::vector<int32_t> species(h.type.begin(), h.type.end());
  for (std::size_t i = 0; i < n; ++i) {
    double x[3] = {h.x[i], h.y[i], h.z[i]};
    for (int a = 0; a < 3; ++a) sim.box().wrap(x[a], a);
    pos[3 * i] = x[0], pos[3 * i + 1] = x[1], pos[3 * i + 2] = x[2];
    vel[3 * i] = h.vx[i], vel[3 * i + 1] = h.vy[i], vel[3 * i + 2] = h.vz[i];
  }
  const Box& b = sim.box();
  w.append(sim.step_count(), sim.time(), {b.L[0], b.L[1], b.L[2]},
           io::ParticleFrameView{int64_t(n), h.id.data(), species.data(), pos.data(), vel.data()});
}
}  // namespace

int run(Runtime& rt, const Case& c, const RunOptions& opt) {
  if (rt.size() != 1)
    TESSERA_THROW(fmt::format("md: this version runs on one rank (got {}); the spatial decomposition over MPI ranks "
                              "is not implemented yet: run without mpiexec, or with -n 1",
                              rt.size()));
  if (!opt.restart.empty()) TESSERA_THROW("md: --restart is not supported yet (checkpoints are not written by md)");
  const CaseConfig k = read_config(c);
  const Units& u = k.sim.units;
  const InitialSystem init = build_initial(k, u);
  const int ntypes = int(k.mass.size());
  Simulation sim(rt.space(), k.sim, init.box, init.particles, build_potential(rt.space(), k, ntypes), init.bonds,
                 build_bond_params(k));
  log::info("md: {} atoms, {} bonds, box {:.4f} x {:.4f} x {:.4f} {}, {} on {}, dt = {} {}, {} precision", sim.natoms(),
            init.bonds.size(), init.box.L[0], init.box.L[1], init.box.L[2], u.length, to_string(k.sim.integrator),
            exec::to_string(rt.space()), k.sim.dt, u.time, k.sim.precision == Precision::dbl ? "double" : "mixed");
  if (u.name == "real")
    log::info("units real: length Angstrom, time fs, energy kcal/mol, mass g/mol, temperature K, pressure atm; "
              "k_B = {} kcal/mol/K; 1 (kcal/mol/A)/(g/mol) = {:.6g} A/fs^2", u.kB, u.ftm2v);
  else
    log::info("units lj: length sigma, energy epsilon, mass m, time tau = sigma sqrt(m/epsilon), k_B = 1");
  if (k.sim.tail)
    log::info("tail corrections: E_tail/N = {:.6f}, P_tail = {:.6f}", sim.tail_energy() / double(sim.natoms()),
              sim.tail_pressure() * u.nktv2p);

  sim.setup();
  std::FILE* csv = nullptr;
  if (k.thermo_csv && rt.rank() == 0) {
    const std::string path = (std::filesystem::path(opt.output_dir) / "thermo.csv").string();
    csv = std::fopen(path.c_str(), "w");
    if (!csv) TESSERA_THROW("cannot write " + path + ": check the output directory (-o)");
    std::fprintf(csv, "# units %s; per-atom energies; conserved = the integrator's conserved quantity per atom\n",
                 u.name.c_str());
    std::fprintf(csv, "step,time,temperature,ke,pe,etotal,pressure,conserved\n");
  }
  auto emit = [&](const Thermo& t) {
    log::info("{}", thermo_line(t, u));
    if (csv) {
      std::fprintf(csv, "%lld,%.10g,%.10g,%.12g,%.12g,%.12g,%.10g,%.12g\n", static_cast<long long>(t.step), t.time,
                   t.temperature, t.ke, t.pe, t.etotal, t.pressure, t.conserved);
      std::fflush(csv);
    }
  };
  log::info("{:>10} {:>12} {:>10} {:>12} {:>12} {:>12} {:>12} {:>14}", "step", "time", "temp", "ke/N", "pe/N", "etot/N",
            "press", "conserved/N");
  emit(sim.thermo());
  std::unique_ptr<io::H5mdWriter> traj;
  if (k.trajectory_every > 0) {
    io::H5mdOptions ho;
    ho.case_text = c.yaml();
    traj = std::make_unique<io::H5mdWriter>(rt.comm(), (std::filesystem::path(opt.output_dir) / "trajectory.h5").string(), ho);
    write_frame(*traj, sim);
  }
  telemetry::Progress progress({.unit = "Matom-steps/s",
                                .work_per_step = double(sim.natoms()),
                                .unit_scale = 1e-6,
                                .total_steps = k.steps,
                                .every_steps = opt.progress_every,
                                .every_seconds = 10.0,
                                .quiet = opt.quiet,
                                .rank = rt.rank()});
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t s = 1; s <= k.steps; ++s) {
    const bool thermo_due = s % k.thermo_every == 0 || s == k.steps;
    sim.step(thermo_due);
    if (thermo_due) emit(sim.thermo());
    if (traj && s % k.trajectory_every == 0) write_frame(*traj, sim);
    progress.update(sim.step_count(), sim.time());
  }
  exec::fence(sim.exec());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish(sim.step_count(), sim.time());
  if (csv) std::fclose(csv);
  if (traj) log::info("trajectory: {} frames in {} (ParaView: open {})", traj->frames(), traj->path(), traj->xdmf_path());
  const auto& st = sim.neighbors().stats();
  log::info("done: {} steps of {} atoms in {:.3f} s: {:.4g} atom-steps/s; {} neighbour-list builds ({:.3f} s, "
            "{} regrowths, max {} neighbours)",
            k.steps, sim.natoms(), secs, secs > 0 ? double(k.steps) * double(sim.natoms()) / secs : 0.0, st.builds,
            st.build_ms * 1e-3, st.regrows, st.max_count);
  return exit_code::ok;
}

}  // namespace tessera::md
