// bench_lbm: MLUPs/s of the LBM stream-collide at n^3 cells, against the copy bandwidth measured on the
// same card in the same run (DESIGN.md, benchmark protocol). One JSON line per configuration.
//
//   Usage: kUsage below (also printed by --help).
//
// The kernel alone is timed (output off, one rank, no halo exchange). "periodic": every cell fluid,
// ghost cells fluid too (the traffic of a periodic box without the copy of the ghost layer);
// "walls": the ghost layer is a wall on all six faces (bounce-back at every face).
// MLUPs/s = n^3 x steps / s; bytes per cell per step = 2 Q (bytes per population) + 1 flag byte.
// Timing (bench/common): one call of --steps steps, then on the GPU more until --warmup-s seconds have
// passed (default 3: the card's sustained power and clock state; 0 gives the protocol before 2026-12-04),
// then the median of --reps calls; the record gives the warm-up run and the mean power and the mean and
// least SM clock over the timed calls (NVML).
// The populations start as a Taylor-Green vortex (--init tgv, the default; --init rest: the all-zero
// shifted rest state, which is also taken where the initial fields do not fit the GPU's free memory; the
// record's "init" says which). "kernel_form" records which tuned kernel ran (pair, one-cell-32, one-cell; quad+X: the quad kernel for the
// even steps and X for the odd ones; quad-staged+X: its staged form, the default for fp16).
// --kernel pattern: the tuned kernel's loads and stores without the collision (lbm::stream_pattern_only):
// the memory ceiling of the AA access pattern with Q slot arrays, against which the tuned kernel's
// fraction of copy can be read. --kernel pattern-blocked: the same on a blocked layout (32 cells x Q slots
// contiguous), which the solver does not use: what such a layout would allow; --kernel tuned-blocked: the
// tuned kernel's force-free BGK collision on that layout (periodic box, --collision bgk), and
// --kernel tuned-slots the same measurement kernel on the solver's layout (the control).
// --kernel tuned-fused: the fused steps (lbm::stream_collide_pairs: an even and an odd step in one pass over
// memory, the odd step of a plane while the even step's planes are in the L2; docs/performance.md, LBM items
// 36 and 39), a sample's --steps / 2 pairs in one call, up to TESSERA_LBM_FUSED_PAIRS (default 1) pairs per
// launch (BGK without a force; TESSERA_LBM_FUSED_ROWS / _LAG / _MB shape them; the record gives the shape
// taken: fused_rows, fused_lag, fused_pairs_per_launch).
// --memory managed: populations and flags in CUDA managed memory, advised to stay on the GPU and
// prefetched there (as lbm's parallel.memory: managed), to measure its cost against device memory.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/bench/bench.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/lbm/lattice_state.hpp"

using namespace tessera;

namespace {

// What --help prints (the header comment above says more).
const char* const kUsage =
    "  bench_lbm [--device gpu|cpu] [--sizes 256,512 | NXxNYxNZ,...] [--lattices D3Q19,D3Q27] [--precisions fp32,fp16]\n"
    "            [--collision bgk|trt|regularized] [--box periodic|walls]\n"
    "            [--kernel tuned|tuned-fused|reference|pattern|pattern-blocked|tuned-blocked|tuned-slots]\n"
    "            [--steps 20] [--reps 5] [--warmup-s 3] [--memory device|managed] [--init tgv|rest]\n"
    "            [--out bench/results/lbm.jsonl]\n";
// "n" (a cube: n^3, or n^2 x 1 for a 2-D lattice) or "NXxNYxNZ"; exits with a message on anything else.
std::array<int64_t, 3> parse_box(const std::string& s, int dim) {
  std::array<int64_t, 3> e{0, 0, 0};
  int k = 0;  // parts read; 4: malformed
  for (std::size_t at = 0;;) {
    const std::size_t x = s.find('x', at);
    const std::string part = s.substr(at, x == std::string::npos ? std::string::npos : x - at);
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v <= 0 || k == 3) { k = 4; break; }
    e[std::size_t(k++)] = v;
    if (x == std::string::npos) break;
    at = x + 1;
  }
  if (k == 1) e[1] = e[2] = e[0];
  if (dim == 2) e[2] = 1;
  if ((k != 1 && k != 3) || (dim == 2 && k == 3 && e[2] != 1)) {
    std::fprintf(stderr, "bench_lbm: --sizes: '%s' is not a cube edge n or a box NXxNYxNZ of positive integers%s\n",
                 s.c_str(), dim == 2 ? " (2-D: NZ = 1)" : "");
    std::exit(2);
  }
  return e;
}
// A Taylor-Green vortex over the padded box (ghosts included: the periodic image), U0 = 0.05, rho = 1.
void init_taylor_green(const exec::Exec& ex, lbm::LatticeState& s, MemKind mem) {
  const lbm::GridLayout& g = s.grid();
  const int64_t n = g.cells(), px = g.px(), py = g.py(), pz = g.pz();
  const double U0 = 0.05, pi2 = 6.283185307179586;
  auto table = [&](int64_t m, int64_t extent, bool sine) {
    std::vector<double> t(static_cast<std::size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      const double a = pi2 * (double(i) - 0.5) / double(extent);
      t[std::size_t(i)] = sine ? std::sin(a) : std::cos(a);
    }
    return t;
  };
  const auto sx = table(px, g.nx, true), cx = table(px, g.nx, false), sy = table(py, g.ny, true),
             cy = table(py, g.ny, false), cz = table(pz, std::max<int64_t>(g.nz, 1), false);
  std::vector<float> rho(std::size_t(n), 1.0f), u(std::size_t(3 * n), 0.0f);
#pragma omp parallel for
  for (int64_t k = 0; k < pz; ++k)
    for (int64_t j = 0; j < py; ++j)
      for (int64_t i = 0; i < px; ++i) {
        const int64_t c = i + px * (j + py * k);
        const double z = g.gz ? cz[std::size_t(k)] : 1.0;
        u[std::size_t(c)] = float(U0 * sx[std::size_t(i)] * cy[std::size_t(j)] * z);
        u[std::size_t(n + c)] = float(-U0 * cx[std::size_t(i)] * sy[std::size_t(j)] * z);
      }
  Buffer<float> d_rho(std::size_t(n), mem, "bench_lbm::rho"), d_u(std::size_t(3 * n), mem, "bench_lbm::u");
  copy_n(d_rho.data(), d_rho.kind(), rho.data(), MemKind::Host, rho.size());
  copy_n(d_u.data(), d_u.kind(), u.data(), MemKind::Host, u.size());
  lbm::init_equilibrium(ex, s, d_rho.data(), d_u.data());
  exec::fence(ex);
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

int main(int argc, char** argv) {
  if (bench::help_asked(argc, argv, kUsage)) return 0;
  Runtime rt(&argc, &argv);
  std::string device = exec::cuda_enabled() && device::gpu_available() ? "gpu" : "cpu";
  std::string sizes = "256,512", lattices = "D3Q19,D3Q27", precisions = "fp32,fp16", collision = "bgk";
  std::string kernel, box = "periodic", memory = "device", out;  // kernel: "tuned" on the GPU, else "reference"
  std::string init = "tgv";
  int steps = 20, reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return bench::option_value(argc, argv, i, "bench_lbm"); };
    if (a == "--device") device = next();
    else if (a == "--sizes") sizes = next();
    else if (a == "--lattices") lattices = next();
    else if (a == "--precisions") precisions = next();
    else if (a == "--collision") collision = next();
    else if (a == "--kernel") kernel = next();
    else if (a == "--box") box = next();
    else if (a == "--steps") steps = std::atoi(next().c_str());
    else if (a == "--reps") reps = std::atoi(next().c_str());
    else if (a == "--warmup-s") {
      try {
        bench::set_warmup_seconds(bench::parse_warmup_seconds(next()));
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_lbm: %s\n", e.what());
        return 2;
      }
    }
    else if (a == "--memory") memory = next();
    else if (a == "--init") init = next();
    else if (a == "--out") out = next();
    else {
      std::fprintf(stderr, "bench_lbm: unknown option %s (see the header of bench/lbm/bench_lbm.cpp)\n", a.c_str());
      return 2;
    }
  }
  const exec::Space space = exec::parse_space(device);
  // The tuned kernel runs on the GPU only: a host run (also in a CUDA build) defaults to the reference path.
  if (kernel.empty()) kernel = space == exec::Space::Device ? "tuned" : "reference";
  if (init != "tgv" && init != "rest") {
    std::fprintf(stderr, "bench_lbm: --init must be tgv or rest, not '%s'\n", init.c_str());
    return 2;
  }
  if (memory != "device" && memory != "managed") {
    std::fprintf(stderr, "bench_lbm: --memory must be device or managed, not '%s'\n", memory.c_str());
    return 2;
  }
  // Managed only means something on the GPU; a host run keeps host memory and says so in the record.
  const MemKind mem = memory == "managed" && space == exec::Space::Device ? MemKind::Managed : default_memkind(space);
  rt.set_space(space);
  const exec::Exec ex(space);
  const bench::Ceiling ceil = bench::measure_copy_ceiling(space);
  std::vector<bench::Record> records;
  for (const std::string& ls : bench::split_list(lattices))
    for (const std::string& ps : bench::split_list(precisions))
      for (const std::string& ns : bench::split_list(sizes)) {
        const lbm::LatticeKind lk = lbm::parse_lattice(ls.c_str());
        const lbm::Precision pr = lbm::parse_precision(ps.c_str());
        // A size is a cube edge n (n^3, n^2 in 2-D) or a box NXxNYxNZ (the row and plane pitches are
        // nx + 2 and (nx + 2)(ny + 2): docs/performance.md, LBM item 18, measures what they do).
        const std::array<int64_t, 3> box3 = parse_box(ns, lbm::lattice_dim(lk));
        const int64_t n = box3[0];
        lbm::GridLayout g;
        g.nx = box3[0];
        g.ny = box3[1];
        g.nz = box3[2];
        g.gz = lbm::lattice_dim(lk) == 2 ? 0 : 1;
        // --kernel pattern: the tuned kernel's loads and stores without the collision (the memory ceiling
        // of its access pattern; lbm::stream_pattern_only).
        const bool pattern = kernel == "pattern" || kernel == "pattern-blocked" || kernel == "tuned-blocked" ||
                             kernel == "tuned-slots";
        const bool with_collision = kernel == "tuned-blocked" || kernel == "tuned-slots";
        const bool blocked = kernel == "pattern-blocked" || kernel == "tuned-blocked";
        const bool fused = kernel == "tuned-fused";
        const lbm::KernelPath path =
            kernel == "tuned" || fused || pattern ? lbm::KernelPath::Tuned : lbm::KernelPath::Reference;
        if (path == lbm::KernelPath::Tuned && !lbm::tuned_available(lk, pr)) {
          std::fprintf(stderr, "bench_lbm: no tuned kernel for %s %s in this build: skipped\n", ls.c_str(), ps.c_str());
          continue;
        }
        lbm::LatticeState s(lk, pr, g, space, mem);
        {  // rest state: rho = 1, u = 0 is all-zero shifted populations; flags
          std::vector<uint8_t> fl(static_cast<std::size_t>(g.cells()), lbm::kFluid);
          if (box == "walls")
            for (int64_t k = 0; k < g.pz(); ++k)
              for (int64_t j = 0; j < g.py(); ++j)
                for (int64_t i = 0; i < g.px(); ++i)
                  if (i == 0 || j == 0 || i == g.px() - 1 || j == g.py() - 1 || (g.gz && (k == 0 || k == g.pz() - 1)))
                    fl[std::size_t(i + g.px() * (j + g.py() * k))] = lbm::make_wall(1);
          lbm::write_flags(s, fl);
        }
        s.prefer_device(ex);  // managed: advise + prefetch to the GPU before timing (no-op otherwise)
        // The populations: a Taylor-Green vortex (rho = 1, u = U0 (sin x cos y cos z, -cos x sin y cos z, 0),
        // U0 = 0.05) so that the kernel is timed on a flow, not on the all-zero shifted rest state; "rest"
        // where the 16 bytes per cell that the initial fields take do not fit beside the lattice.
        std::string init_used = init;
        if (init == "tgv" && space == exec::Space::Device &&
            device::mem_info().first < std::size_t(g.cells()) * 16 + (std::size_t(1) << 30)) {
          std::fprintf(stderr, "bench_lbm: %s: too little free GPU memory for the Taylor-Green fields, rest state\n",
                       ns.c_str());
          init_used = "rest";
        }
        if (init_used == "tgv") init_taylor_green(ex, s, mem);
        lbm::CollisionParams p;
        p.kind = lbm::parse_collision(collision.c_str());
        p.omega = 1.0 / 0.6;
        p.walls.u[1][0] = 0.05f;  // the walls move: every face does the full moving-wall work
        if (fused && (!lbm::fused_steps_available(s, p) || steps % 2 != 0)) {
          std::fprintf(stderr, "bench_lbm: --kernel tuned-fused: %s %s %s: the fused steps need BGK, an even nx and an "
                       "even --steps; skipped\n", ls.c_str(), ps.c_str(), ns.c_str());
          continue;
        }
        const std::vector<double> ms = bench::time_ms(
            space,
            [&]() {
              if (fused) {
                lbm::stream_collide_pairs(ex, s, p, steps / 2);
                return;
              }
              for (int t = 0; t < steps; ++t) {
                if (pattern)
                  lbm::stream_pattern_only(ex, s, blocked, with_collision ? &p : nullptr);
                else
                  lbm::stream_collide(ex, s, p, path);
              }
            },
            1, reps);
        const bench::Timing timing = bench::last_timing();
        const double sec = bench::median(ms) / 1e3;
        const double cells = double(g.nx) * double(g.ny) * double(g.nz);
        const double mlups = cells * double(steps) / sec / 1e6;
        const double bytes = double(2 * lbm::lattice_q(lk) * lbm::precision_bytes(pr) + 1);
        const std::string form = fused ? lbm::fused_steps_form(s)
                                 : path == lbm::KernelPath::Tuned && kernel == "tuned" ? lbm::tuned_kernel_form(s, p.kind)
                                                                                       : "-";
        bench::Record r = bench::environment_record(space, ceil);
        r.set("benchmark", "lbm_stream_collide").set("lattice", ls).set("precision", ps).set("collision", collision)
            .set("kernel", kernel).set("box", box).set("memory", std::string(to_string(s.memkind())))
            .set("init", init_used)
            // which tuned kernel ran, and the knobs that select and shape it (docs/performance.md), as
            // the run saw them
            .set("kernel_form", form);
        for (const char* knob : {"TESSERA_LBM_PAIR", "TESSERA_LBM_INDEX", "TESSERA_LBM_FORCE_TERMS", "TESSERA_LBM_PREFETCH",
                                 "TESSERA_LBM_PAIR_ALIGN", "TESSERA_LBM_LAUNCH", "TESSERA_LBM_QUAD",
                                 "TESSERA_LBM_QUAD_ODD", "TESSERA_LBM_L2HINT", "TESSERA_LBM_WALL_WARP",
                                 "TESSERA_LBM_SPECULATE", "TESSERA_LBM_WALL_STAGE", "TESSERA_LBM_FACE_CELLS",
                                 "TESSERA_LBM_FUSED_ROWS", "TESSERA_LBM_FUSED_LAG", "TESSERA_LBM_FUSED_MB",
                                 "TESSERA_LBM_FUSED_PAIRS", "TESSERA_LBM_FUSED_FENCE", "TESSERA_LBM_FUSED_XFACE",
                                 "TESSERA_LBM_FUSED_EVEN", "TESSERA_LBM_FUSED_BLOCKS"})
          r.set(knob, env_or_empty(knob));
        r
            .set("prefetch_kib", static_cast<long long>(path == lbm::KernelPath::Tuned && !blocked && !fused ? lbm::tuned_prefetch_kib(pr, form.ends_with("pair") || form == "quad" || form == "quad-staged") : 0))
            .set("n", static_cast<long long>(n)).set("nx", static_cast<long long>(g.nx))
            .set("ny", static_cast<long long>(g.ny)).set("nz", static_cast<long long>(g.nz)).set("cells", cells)
            .set("steps", steps).set("reps", reps).set("seconds_median", sec).set("mlups", mlups)
            .set("bytes_per_cell", bytes).set("gb_per_s", mlups * 1e6 * bytes / 1e9)
            .set("fraction_of_copy", mlups * 1e6 * bytes / ceil.bytes_per_s)
            .set("memory_bytes_per_cell", double(s.bytes_per_cell()))
            // links from walls staged for the odd steps (0: none or not staged; kernels/lbm/src/wall_stage.hpp)
            .set("wall_stage_links", static_cast<long long>(s.wall_stage().count))
            // cells of the box's faces that the odd step can stream itself (flags.hpp, flag_face)
            .set("face_cells", static_cast<long long>(s.face_cells()));
        if (fused) {
          const std::array<int, 3> shape = lbm::fused_steps_shape(s);
          r.set("fused_rows", static_cast<long long>(shape[0])).set("fused_lag", static_cast<long long>(shape[1]))
              .set("fused_pairs_per_launch", static_cast<long long>(std::min(shape[2], steps / 2)));
        }
        bench::set_timing(r, timing);
        std::printf("%s\n", r.str().c_str());
        std::fflush(stdout);
        records.push_back(r);
      }
  if (!out.empty() && rt.rank() == 0) bench::append_jsonl(out, records);
  return 0;
}
