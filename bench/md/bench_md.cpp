// bench_md: LJ liquid atom-steps/s (NVE, thermo every 100 steps, neighbour-list rebuilds included), the
// HOOMD-blue LJ benchmark configuration, and a Kremer-Grest melt; one JSON line per configuration.
//
//   Usage: kUsage below (also printed by --help).
//   (configurations: lj_liquid_256k, lj_liquid_2M, hoomd_lj_64k, kremer_grest_1M, and lj_liquid_16M, which
//   runs only when named. Defaults: the app's defaults, i.e. on the GPU the CUDA-graph step with the
//   device-resident rebuild and the tuned pair kernel (case keys run.cuda_graph, run.pair_kernel: auto);
//   --no-graph --kernel portable give the host-driven step with its per-step rebuild test and the portable
//   kernel, the path a decomposed run takes)
// Protocol (bench/README.md, DESIGN.md): warm-up, median of repeats, sizes far past the 60 MB L2.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tessera/bench/bench.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/lattice.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"

using namespace tessera;
using namespace tessera::md;

namespace {

// What --help prints (the header comment above says more).
const char* const kUsage =
    "  bench_md --device gpu [--precision double|mixed|both] [--steps 1000] [--reps 3] [--out FILE.jsonl]\n"
    "           [--configs NAME,NAME] [--graph|--no-graph] [--kernel auto|portable|tuned] [--tpp 1|2|4|8]\n"
    "           [--sort-every N] [--cell-reach 0|1|2] [--label TEXT] [--warmup-s 3]\n"
    "  bench_md --device cpu --host-lj     # the 32,000-atom LAMMPS bench/in.lj liquid (run next to LAMMPS)\n"
    "  bench_md --quick                    # a small smoke run (CTest)\n";
struct Config {
  std::string name;
  LatticeKind lattice = LatticeKind::fcc;
  int cells = 40;
  double density = 0.8442, rc = 2.5, skin = 0.3, T0 = 1.44;
  bool polymer = false;
  double langevin_T = 0;  // > 0: Langevin at this temperature (warm-up and timed steps) instead of NVE
  int warmup = 100;       // steps before timing (melting, first list regrowths)
};

struct Tuning {
  bool graph = true;  // the defaults are the app's (graph step, tuned kernel on the GPU)
  PairKernel kernel = PairKernel::automatic;
  int tpp = 0;
  int sort_every = -1;  // -1: SimConfig's default
  int cell_reach = 0;  // the app's default: by particles per half-width cell
};

Simulation make(exec::Space space, const Config& c, Precision prec, const Tuning& t) {
  SimConfig sc;
  sc.cuda_graph = t.graph;
  sc.pair_kernel = t.kernel;
  sc.threads_per_atom = t.tpp;
  if (t.sort_every >= 0) sc.sort_every = t.sort_every;
  sc.cell_reach = t.cell_reach;
  sc.dt = c.polymer ? 0.01 : 0.005;
  sc.skin = c.skin;
  sc.precision = prec;
  sc.integrator = c.polymer || c.langevin_T > 0 ? Integrator::langevin : Integrator::nve;
  sc.gamma = 0.5;
  if (c.langevin_T > 0) sc.temperature = c.langevin_T;
  PairPotential pot(space, PairStyle::lj, 1);
  if (c.polymer) {
    InitialSystem s = polymer_melt({c.cells, c.cells, c.cells}, 0.85, 50);
    s.particles.mass = {1.0};
    random_velocities(s.particles, 1.0, 1, {1.0});
    pot.set_lj(0, 0, LJParam::wca(1, 1));
    pot.upload();
    return Simulation(space, sc, s.box, s.particles, std::move(pot), s.bonds, {BondParam{int(BondStyle::fene), 30, 1.5}});
  }
  Box box;
  HostParticles h = make_lattice(c.lattice, {c.cells, c.cells, c.cells}, c.density, box);
  h.mass = {1.0};
  random_velocities(h, c.T0, 87287, {1.0});
  pot.set_lj(0, 0, LJParam::make(1, 1, c.rc, ShiftMode::cut));
  pot.upload();
  return Simulation(space, sc, box, h, std::move(pot));
}
}  // namespace

int main(int argc, char** argv) {
  if (bench::help_asked(argc, argv, kUsage)) return 0;
  Runtime rt(&argc, &argv);
  std::string device = device::gpu_available() ? "gpu" : "cpu", precision = "both", out, only, label;
  Tuning tune;
  int steps = 1000, reps = 3;
  double warmup_s = -1;  // --warmup-s; unset: bench_common's default (3 s), 0 with --quick
  bool quick = false, host_lj = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return bench::option_value(argc, argv, i, "bench_md"); };
    if (a == "--device") device = next();
    else if (a == "--precision") precision = next();
    else if (a == "--steps") steps = std::stoi(next());
    else if (a == "--reps") reps = std::stoi(next());
    else if (a == "--out") out = next();
    else if (a == "--quick") quick = true;
    else if (a == "--host-lj") host_lj = true;
    else if (a == "--configs") only = fmt::format(",{},", next());
    else if (a == "--no-graph") tune.graph = false;
    else if (a == "--graph") tune.graph = true;
    else if (a == "--tpp") tune.tpp = std::stoi(next());
    else if (a == "--sort-every") tune.sort_every = std::stoi(next());
    else if (a == "--cell-reach") tune.cell_reach = std::stoi(next());
    else if (a == "--label") label = next();
    else if (a == "--warmup-s") {
      try {
        warmup_s = bench::parse_warmup_seconds(next());
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_md: %s\n", e.what());
        return 2;
      }
    }
    else if (a == "--kernel") {
      const std::string k = next();
      if (k == "auto") tune.kernel = PairKernel::automatic;
      else if (k == "portable") tune.kernel = PairKernel::portable;
      else if (k == "tuned") tune.kernel = PairKernel::tuned;
      else {
        std::fprintf(stderr, "bench_md: --kernel %s: expected auto, portable or tuned\n", k.c_str());
        return 2;
      }
    }
    else {
      std::fprintf(stderr, "bench_md: unknown option %s (see the comment at the top of bench_md.cpp)\n", a.c_str());
      return 2;
    }
  }
  const exec::Space space = exec::parse_space(device);
  rt.set_space(space);
  std::vector<Config> configs;
  if (quick) {
    configs.push_back({"lj_liquid_quick", LatticeKind::fcc, 10});
    steps = 100, reps = 1;
  } else if (host_lj || space == exec::Space::Host) {
    configs.push_back({"lammps_in_lj", LatticeKind::fcc, 20});  // 32,000 atoms, LAMMPS bench/in.lj
    if (!host_lj) steps = std::min(steps, 200);
  } else {
    configs.push_back({"lj_liquid_256k", LatticeKind::fcc, 40});
    configs.push_back({"lj_liquid_2M", LatticeKind::fcc, 80});
    // HOOMD-blue's md_pair_lj (hoomd-benchmarks): rho = 1, r_cut 2.5 unshifted, buffer 0.4, the list
    // checked every step, NVT at kT = 1.2 from an equilibrated fluid. Here: Langevin at T = 1.2 (the same
    // state point; the graph step has no Nose-Hoover), 2,000 warm-up steps from a simple-cubic lattice so
    // that the melting heat is gone (NVE from the lattice settles near T = 1.79, a hotter liquid whose
    // list is rebuilt about 20 % more often).
    Config hoomd{"hoomd_lj_64k", LatticeKind::sc, 40, 1.0, 2.5, 0.4, 1.2};
    hoomd.langevin_T = 1.2;
    hoomd.warmup = 2000;
    configs.push_back(hoomd);
    configs.push_back({"kremer_grest_1M", LatticeKind::sc, 100, 0.85, 1.122462, 0.4, 1.0, true});
    if (only.find(",lj_liquid_16M,") != std::string::npos)  // 16,384,000 atoms: only when asked for
      configs.push_back({"lj_liquid_16M", LatticeKind::fcc, 160});
  }
  if (!only.empty()) {
    std::vector<Config> keep;
    for (const Config& c : configs)
      if (only.find("," + c.name + ",") != std::string::npos) keep.push_back(c);
    if (keep.empty()) {
      std::fprintf(stderr, "bench_md: --configs%s names none of this run's configurations\n", only.c_str());
      return 2;
    }
    configs = keep;
  }
  std::vector<Precision> precs;
  if (precision == "double" || precision == "both") precs.push_back(Precision::dbl);
  if (precision == "mixed" || precision == "both") precs.push_back(Precision::mixed);
  if (warmup_s >= 0) bench::set_warmup_seconds(warmup_s);
  else if (quick) bench::set_warmup_seconds(0);
  const bench::Ceiling ceil = bench::measure_copy_ceiling(space, quick ? (std::size_t(64) << 20) : 0, quick ? 3 : 20);
  std::vector<bench::Record> records;
  for (const Config& c : configs)
    for (Precision p : precs) {
      Simulation sim = make(space, c, p, tune);
      sim.setup();
      for (int s = 0; s < c.warmup; ++s) sim.step(false);  // warm-up (melting, first list regrowths)
      // On the GPU, steps until the card is in its sustained power and clock state (bench_common's
      // warm-up, run here so that the neighbour-list counts below start after it; the timings below add none).
      const double ws = space == exec::Space::Device ? bench::warmup_seconds() : 0.0;
      double warmed = 0;
      {
        const auto t0 = std::chrono::steady_clock::now();
        auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
        while (since() < ws) {
          for (int s = 0; s < 100; ++s) sim.step(false);
          device::synchronize();
        }
        warmed = since();
      }
      const auto builds0 = sim.neighbors().stats();
      const int64_t nbuild0 = sim.list_builds();
      const std::vector<double> ms = bench::time_ms(
          space,
          [&] {
            for (int s = 1; s <= steps; ++s) {
              sim.step(s % 100 == 0);
              if (s % 100 == 0) (void)sim.thermo();
            }
          },
          0, reps, 0.0);
      bench::Timing timing = bench::last_timing();
      timing.warmup_s += warmed;
      const auto& b = sim.neighbors().stats();
      const int64_t nbuild = sim.list_builds() - nbuild0;
      // Rebuild cost on its own: the same list build the step makes (device-resident in a graph run), timed
      // alone a few times after the run.
      const std::vector<double> bms = bench::time_ms(space, [&] { sim.rebuild_list(); }, 1, 5, 0.0);
      // Pair + bond forces on their own (10 evaluations per sample, the step's kernel and lanes).
      const std::vector<double> fms = bench::time_ms(
          space, [&] { for (int k = 0; k < 10; ++k) sim.recompute_forces(false); }, 1, 3, 0.0);
      sim.step(true);  // one more step with energies, untimed: the temperature at the end of the timed steps
      const double temperature = sim.thermo().temperature;
      const double med = bench::median(ms);
      const double rate = double(sim.natoms()) * steps / (med * 1e-3);
      bench::Record r = bench::environment_record(space, ceil);
      r.set("benchmark", "md").set("config", c.name).set("atoms", static_cast<long long>(sim.natoms()))
          .set("precision", p == Precision::dbl ? "double" : "mixed").set("density", c.density).set("rc", c.rc)
          .set("skin", c.skin).set("steps", steps).set("reps", reps).set("median_ms", med)
          .set("atom_steps_per_s", rate).set("steps_per_s", steps / (med * 1e-3))
          .set("neighbor_builds_per_rep", double(nbuild) / reps)
          .set("neighbor_build_ms_per_rep", (b.build_ms - builds0.build_ms) / reps)  // host-timed builds only
          .set("rebuild_ms_each", bench::median(bms))
          .set("rebuild_share", bench::median(bms) * double(nbuild) / reps / med)
          .set("force_ms_each", bench::median(fms) / 10)
          .set("max_neighbors", sim.neighbors().max_count_seen())
          .set("cuda_graph", sim.graph_step() ? "yes" : "no")
          .set("pair_kernel", tune.kernel != PairKernel::portable && space == exec::Space::Device ? "tuned" : "portable")
          .set("threads_per_atom", tune.tpp > 0 ? tune.tpp : default_threads_per_atom(sim.natoms()))
          .set("sort_every", sim.config().sort_every)
          .set("integrator", sim.config().integrator == Integrator::langevin ? "langevin" : "nve")
          .set("temperature", temperature)
          .set("warmup_steps", c.warmup)
          .set("cell_reach", sim.config().cell_reach);
      bench::set_timing(r, timing);
      if (!label.empty()) r.set("label", label);
      std::printf("%s\n", r.str().c_str());
      std::fflush(stdout);
      records.push_back(r);
    }
  if (!out.empty()) bench::append_jsonl(out, records);
  return 0;
}
