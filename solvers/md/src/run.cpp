// `md case.yaml`: build the system, run the time loop with thermo output, print the summary.
#include "tessera/md/run.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "tessera/core/log.hpp"
#include "tessera/core/telemetry.hpp"
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
    progress.update(sim.step_count(), sim.time());
  }
  exec::fence(sim.exec());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish(sim.step_count(), sim.time());
  if (csv) std::fclose(csv);
  const auto& st = sim.neighbors().stats();
  log::info("done: {} steps of {} atoms in {:.3f} s: {:.4g} atom-steps/s; {} neighbour-list builds ({:.3f} s, "
            "{} regrowths, max {} neighbours)",
            k.steps, sim.natoms(), secs, secs > 0 ? double(k.steps) * double(sim.natoms()) / secs : 0.0, st.builds,
            st.build_ms * 1e-3, st.regrows, st.max_count);
  return exit_code::ok;
}

}  // namespace tessera::md
