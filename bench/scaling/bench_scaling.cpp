// bench_scaling: time per step of the full solver loop (kernels + halo exchange) on 1..N ranks, one rank
// per GPU, for the weak- and strong-scaling figures of issue 10. Run under mpiexec; rank 0 prints one
// JSON line per configuration (bench/scaling/run collects them and computes the efficiencies).
//
//   Usage: kUsage below (also printed by --help).
//
// lbm: D3Q19 BGK, periodic box. weak: N^3 cells per rank, ranks stacked along z (global N x N x N*P);
//      strong: N^3 cells in all, split along z. Throughput = global cells x steps / s (MLUPs/s).
// weather: SSP-RK3 shallow water (+ L tracer levels), periodic. weak: N x N cells per rank stacked along
//      y; strong: N x N in all. Throughput = global cells x steps / s.
// md: LJ liquid (rho 0.8442, T 1.44, rc 2.5, skin 0.3, NVE, dt 0.005, mixed precision), fcc lattice of
//      4 atoms per cell. weak: N^3 cells per rank stacked along x (N = 80: 2,048,000 atoms per rank);
//      strong: N^3 cells in all. --warmup W steps (default 100) before the timed ones (--steps;
//      bench/scaling/run uses 200; thermo energies every 100 steps); neighbour-list rebuilds (with migration and ghost builds on
//      several ranks) fall inside the timed steps. Throughput = atoms x steps / s (atom-steps/s).
//      --md-graph on|off overrides run.cuda_graph for the one-rank run (the decomposed step is
//      host-driven either way).
// --overlap off: the plain step (update, then the whole exchange) instead of parallel.overlap's interior
// update while the halo moves (default on; records of "off" runs get a "-nooverlap" case suffix).
// Timing: warm-up steps, then R repeats of S steps between MPI barriers; the median repeat counts.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tessera/bench/bench.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/domain/transport.hpp"
#include "tessera/lbm/solver/simulation.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/decomposition.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"

using namespace tessera;

namespace {

// What --help prints (the header comment above says more).
const char* const kUsage =
    "  mpiexec -n 2 bench_scaling [--device gpu|cpu] [--solver lbm|weather|md] [--mode weak|strong]\n"
    "       [--size N] [--transport host|cuda_aware|nccl|auto] [--steps S] [--reps R] [--ceiling-gib G]\n"
    "       [--precision fp32|fp16] [--kernel tuned|reference] [--levels L] [--overlap on|off]\n"
    "       [--warmup W] [--md-graph on|off]\n";

struct Options {
  std::string device, solver = "lbm", mode = "weak", transport = "host", precision = "fp32", kernel;
  int64_t size = 0;
  int steps = 20, reps = 5, levels = 0, warmup = -1;
  int md_graph = -1;  // md on one rank: the CUDA-graph step (SimConfig::cuda_graph); -1: the case default
  double ceiling_gib = 0;
  bool overlap = true;
};

// Seconds of `steps` calls of fn() between barriers: median over reps, the slowest rank counting.
template <class F>
double time_steps(MPI_Comm comm, int reps, F&& fn) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const double local = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double worst = 0;
    MPI_Allreduce(&local, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    t.push_back(worst);
  }
  return bench::median(t);
}

struct Timing {
  double seconds = 0;         // per `steps` steps
  int64_t global_cells = 0;
  std::string resolved;       // transport actually used
  std::string shape;
  int64_t builds = 0;      // md: neighbour-list builds inside the timed steps (rank 0)
  int64_t ghosts = 0;      // md: ghost atoms on rank 0 at the end
  // md on several ranks, per rebuild inside the timed steps (rank 0, fenced host wall clock): migration,
  // (cell, id) sort, ghost construction, and the neighbour-list build itself.
  double migrate_ms = 0, sort_ms = 0, ghosts_ms = 0, list_ms = 0;
  int64_t migrated = 0;
  bool graph = false;  // md on one rank ran the CUDA-graph step
};

Timing run_lbm(const Options& o, exec::Space space, int P) {
  lbm::SimulationSpec s;
  s.lattice = lbm::LatticeKind::D3Q19;
  s.precision = o.precision == "fp16" ? lbm::Precision::FP16 : lbm::Precision::FP32;
  s.collision.kind = lbm::CollisionKind::BGK;
  s.collision.omega = 1.6;
  const int64_t n = o.size;
  s.global = {n, n, o.mode == "weak" ? n * P : n};
  s.rank_dims = {1, 1, P};
  s.path = o.kernel == "tuned" ? lbm::KernelPath::Tuned : lbm::KernelPath::Reference;
  s.transport = domain::parse_transport(o.transport);
  s.overlap = o.overlap;
  s.initial = [](int64_t x, int64_t y, int64_t z, double& rho, double u[3]) {
    rho = 1.0;
    u[0] = 0.02 * double((x + 2 * y + 3 * z) % 7) / 7.0;
    u[1] = u[2] = 0.0;
  };
  lbm::Simulation sim(MPI_COMM_WORLD, space, s);
  sim.advance(4);  // warm-up (even number: the state stays in natural order)
  Timing t;
  t.seconds = time_steps(MPI_COMM_WORLD, o.reps, [&] { sim.advance(o.steps); });
  t.global_cells = s.global[0] * s.global[1] * s.global[2];
  t.resolved = domain::to_string(sim.halo_transport());
  t.shape = fmt::format("{}x{}x{}", s.global[0], s.global[1], s.global[2]);
  return t;
}

Timing run_weather(const Options& o, exec::Space space, int P) {
  const int64_t n = o.size, ny = o.mode == "weak" ? n * P : n;
  const std::string yaml = fmt::format(
      "grid: {{cells: [{}, {}], length: [{}, {}], ranks: [1, {}]}}\n"
      "physics: {{f0: 1.0e-4}}\n"
      "initial: {{type: gaussian, depth: 1000.0, amplitude: 10.0, width: {}}}\n"
      "time: {{end: 1.0e12}}\n"
      "tracers: {{levels: {}, column_depth: 1000.0, w_amplitude: 0.01}}\n"
      "output: {{fields: false, spectrum: false}}\n",
      n, ny, 1.0e4 * double(n), 1.0e4 * double(ny), P, 2.0e3 * double(n), o.levels);
  const Case c = weather::case_from_string(yaml, {"parallel.transport=" + o.transport,
                                                          std::string("parallel.overlap=") + (o.overlap ? "true" : "false")});
  const weather::Config k = weather::read_config(c);
  weather::Model m(MPI_COMM_WORLD, k, exec::Exec(space));
  m.initialise();
  const double dt = m.stable_dt();
  for (int s = 0; s < 3; ++s) m.step(dt);
  Timing t;
  t.seconds = time_steps(MPI_COMM_WORLD, o.reps, [&] {
    for (int s = 0; s < o.steps; ++s) m.step(dt);
  });
  t.global_cells = n * ny;
  t.resolved = domain::to_string(m.halo_transport());
  t.shape = fmt::format("{}x{}x{}", n, ny, std::max(1, o.levels));
  return t;
}

Timing run_md(const Options& o, exec::Space space, int P) {
  const int64_t n = o.size;
  const std::string yaml = fmt::format(
      "system: {{source: lattice, lattice: fcc, cells: [{}, {}, {}], density: 0.8442}}\n"
      "velocity: {{temperature: 1.44, seed: 87287}}\n"
      "pair: {{style: lj, cutoff: 2.5}}\n"
      "neighbor: {{skin: 0.3}}\n"
      "run: {{steps: {}, dt: 0.005, integrator: nve, precision: mixed}}\n"
      "parallel: {{transport: {}}}\n",
      o.mode == "weak" ? n * P : n, n, n, o.warmup + o.steps, o.transport);
  const Case c = Case::from_string(yaml, md::schema(), "<bench_scaling md>");
  md::CaseConfig k = md::read_config(c);
  if (o.md_graph >= 0) k.sim.cuda_graph = o.md_graph == 1;
  // --md-graph off: the one-rank run takes a decomposed rank's engine (host-driven step, whole cells).
  if (o.md_graph == 0) k.sim.cell_reach = 1;
  const md::InitialSystem init = md::build_initial(k, k.sim.units);
  md::Simulation sim(space, k.sim, init.box, init.particles, md::build_potential(space, k, int(k.mass.size())),
                     init.bonds, md::build_bond_params(k), MPI_COMM_WORLD, k.transport);
  sim.setup();
  auto advance = [&](int steps) {
    for (int s = 0; s < steps; ++s) sim.step((sim.step_count() + 1) % 100 == 0);
    exec::fence(sim.exec());
  };
  advance(o.warmup);
  const int64_t b0 = sim.list_builds();
  const double l0 = sim.neighbors().stats().build_ms;
  const int64_t h0 = sim.neighbors().stats().builds;
  const md::ParticleDecomposition* d = sim.decomposition();
  const md::DecompositionStats s0 = d ? d->stats() : md::DecompositionStats{};
  Timing t;
  t.seconds = time_steps(MPI_COMM_WORLD, o.reps, [&] { advance(o.steps); });
  t.builds = (sim.list_builds() - b0) / std::max(1, o.reps);
  // The host-driven build's time (fenced; every build on several ranks, or one rank without the graph);
  // a graph run's builds are inside its graph and not timed here.
  const int64_t hb = sim.neighbors().stats().builds - h0;
  if (hb > 0 && !sim.graph_step()) t.list_ms = (sim.neighbors().stats().build_ms - l0) / double(hb);
  if (d && d->stats().rebuilds > s0.rebuilds) {
    const md::DecompositionStats& s1 = d->stats();
    const double r = double(s1.rebuilds - s0.rebuilds);
    t.migrate_ms = (s1.migrate_ms - s0.migrate_ms) / r;
    t.sort_ms = (s1.sort_ms - s0.sort_ms) / r;
    t.ghosts_ms = (s1.ghosts_ms - s0.ghosts_ms) / r;
    t.migrated = int64_t(double(s1.migrated - s0.migrated) / r);
  }
  t.ghosts = sim.particles().ghosts();
  t.graph = sim.graph_step();
  t.global_cells = sim.natoms();
  const md::ParticleDecomposition* dd = sim.decomposition();
  t.resolved = dd ? domain::to_string(dd->transport()) : "none";  // one rank: nothing moves
  t.shape = fmt::format("{}x{}x{} fcc cells ({} atoms)", o.mode == "weak" ? n * P : n, n, n, sim.natoms());
  return t;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "bench_scaling: %s (see the header of bench/scaling/bench_scaling.cpp)\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::help_asked(argc, argv, kUsage)) return 0;
  Runtime rt(&argc, &argv);
  Options o;
  o.device = exec::cuda_enabled() && device::gpu_available() ? "gpu" : "cpu";
  o.kernel = exec::cuda_enabled() ? "tuned" : "reference";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--device") o.device = next();
    else if (a == "--solver") o.solver = next();
    else if (a == "--mode") o.mode = next();
    else if (a == "--size") o.size = std::atoll(next().c_str());
    else if (a == "--transport") o.transport = next();
    else if (a == "--steps") o.steps = std::atoi(next().c_str());
    else if (a == "--reps") o.reps = std::atoi(next().c_str());
    else if (a == "--warmup") o.warmup = std::atoi(next().c_str());
    else if (a == "--md-graph") {
      const std::string v = next();
      if (v != "on" && v != "off") usage("--md-graph is on or off");
      o.md_graph = v == "on" ? 1 : 0;
    }
    else if (a == "--levels") o.levels = std::atoi(next().c_str());
    else if (a == "--precision") o.precision = next();
    else if (a == "--kernel") o.kernel = next();
    else if (a == "--overlap") {
      const std::string v = next();
      if (v != "on" && v != "off") usage("--overlap is on or off");
      o.overlap = v == "on";
    } else if (a == "--ceiling-gib") o.ceiling_gib = std::atof(next().c_str());
    else usage(("unknown option " + a).c_str());
  }
  if (o.solver != "lbm" && o.solver != "weather" && o.solver != "md") usage("--solver is lbm, weather or md");
  if (o.mode != "weak" && o.mode != "strong") usage("--mode is weak or strong");
  const exec::Space space = o.device == "gpu" ? exec::Space::Device : exec::Space::Host;
  rt.set_space(space);  // one GPU per rank, by node-local rank (as the solvers do)
  if (space == exec::Space::Host) o.kernel = "reference";
  if (o.solver == "md" && o.size <= 0) o.size = space == exec::Space::Device ? 80 : 8;
  if (o.size <= 0) o.size = o.solver == "lbm" ? (space == exec::Space::Device ? 256 : 32) : (space == exec::Space::Device ? 4096 : 128);
  if (o.solver == "md") o.precision = "mixed";
  if (o.warmup < 0) o.warmup = o.solver == "md" ? 100 : 0;
  int P = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  const bench::Ceiling ceil = bench::measure_copy_ceiling(space, std::size_t(o.ceiling_gib * double(1ull << 30)));
  Timing t;
  try {
    t = o.solver == "lbm" ? run_lbm(o, space, P) : o.solver == "md" ? run_md(o, space, P) : run_weather(o, space, P);
  } catch (const std::exception& e) {
    // A refused transport (no NCCL, MPI not CUDA-aware) or a size that does not fit: say so and stop
    // every rank with a status instead of std::terminate's SIGABRT.
    std::fprintf(stderr, "bench_scaling (rank %d): %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double per_s = double(t.global_cells) * double(o.steps) / t.seconds;
  // Bytes per cell per step for the roofline fraction (DESIGN.md protocol): LBM D3Q19 2 Q b + 1;
  // weather sw step 27 x 8 B (bench_weather's count) plus tracers (3 stages x 4 arrays x 8 B per level).
  // md has no byte count of this kind (its roofline is not a streaming one): no fraction is recorded.
  const double bytes = o.solver == "lbm" ? 2.0 * 19 * (o.precision == "fp16" ? 2 : 4) + 1
                       : o.solver == "md" ? 0.0
                                          : 27.0 * 8 + 96.0 * o.levels;
  if (rank == 0) {
    bench::Record r = bench::environment_record(space, ceil);
    r.set("benchmark", "scaling")
        .set("case", fmt::format("{}-{}-{}-{}-n{}{}{}", o.solver, o.mode, t.resolved, o.precision, o.size,
                                 o.overlap ? "" : "-nooverlap", o.md_graph != 1 || o.solver != "md" ? "" : "-graph"))
        .set("overlap", o.overlap)
        .set("solver", o.solver).set("mode", o.mode).set("ranks", P).set("transport_requested", o.transport)
        .set("transport", t.resolved).set("size_per_rank_or_total", static_cast<long long>(o.size))
        .set("global", t.shape).set("global_cells", static_cast<long long>(t.global_cells))
        .set("cells_per_rank", double(t.global_cells) / P).set("steps", o.steps).set("reps", o.reps)
        .set("kernel", o.kernel).set("precision", o.precision).set("levels", o.levels)
        .set("seconds_per_step", t.seconds / o.steps).set("throughput", per_s)
        .set("throughput_unit", o.solver == "lbm" ? "cell-updates/s (LUPs/s)"
                                : o.solver == "md" ? "atom-steps/s" : "cell-updates/s");
    if (o.solver == "md")  // global_cells / cells_per_rank hold atoms here
      r.set("atoms", static_cast<long long>(t.global_cells)).set("warmup_steps", o.warmup)
          .set("list_builds_timed", static_cast<long long>(t.builds)).set("ghosts_rank0", static_cast<long long>(t.ghosts))
          .set("cuda_graph_one_rank", t.graph).set("list_build_ms_each", t.list_ms)
          .set("migrate_ms_each", t.migrate_ms).set("sort_ms_each", t.sort_ms).set("ghosts_ms_each", t.ghosts_ms)
          .set("migrated_per_rebuild_rank0", static_cast<long long>(t.migrated));
    else
      r.set("bytes_per_cell", bytes).set("fraction_of_ceiling", per_s * bytes / (ceil.bytes_per_s * P));
    std::printf("%s\n", r.str().c_str());
    std::fflush(stdout);
  }
  return 0;
}
