// bench_lbm: MLUPs/s of the LBM stream-collide at n^3 cells, against the copy bandwidth measured on the
// same card in the same run (DESIGN.md, benchmark protocol). One JSON line per configuration.
//
//   Usage: kUsage below (also printed by --help).
//
// The kernel alone is timed (output off, one rank, no halo exchange). "periodic": every cell fluid,
// ghost cells fluid too (the traffic of a periodic box without the copy of the ghost layer);
// "walls": the ghost layer is a wall on all six faces (bounce-back at every face).
// MLUPs/s = n^3 x steps / s; bytes per cell per step = 2 Q (bytes per population) + 1 flag byte.
// --kernel pattern: the tuned kernel's loads and stores without the collision (lbm::stream_pattern_only):
// the memory ceiling of the AA access pattern with Q slot arrays, against which the tuned kernel's
// fraction of copy can be read. --kernel pattern-blocked: the same on a blocked layout (32 cells x Q slots
// contiguous), which the solver does not use: what such a layout would allow; --kernel tuned-blocked: the
// tuned kernel's force-free BGK collision on that layout (periodic box, --collision bgk), and
// --kernel tuned-slots the same measurement kernel on the solver's layout (the control).
// --memory managed: populations and flags in CUDA managed memory, advised to stay on the GPU and
// prefetched there (as lbm's parallel.memory: managed), to measure its cost against device memory.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/bench/bench.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/lbm/lattice_state.hpp"

using namespace tessera;

namespace {

// What --help prints (the header comment above says more).
const char* const kUsage =
    "  bench_lbm [--device gpu|cpu] [--sizes 256,512] [--lattices D3Q19,D3Q27] [--precisions fp32,fp16]\n"
    "            [--collision bgk|trt|regularized] [--box periodic|walls]\n"
    "            [--kernel tuned|reference|pattern|pattern-blocked|tuned-blocked|tuned-slots]\n"
    "            [--steps 20] [--reps 5] [--memory device|managed] [--out bench/results/lbm.jsonl]\n";
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) r.push_back(x);
  return r;
}
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  Runtime rt(&argc, &argv);
  std::string device = exec::cuda_enabled() && device::gpu_available() ? "gpu" : "cpu";
  std::string sizes = "256,512", lattices = "D3Q19,D3Q27", precisions = "fp32,fp16", collision = "bgk";
  std::string kernel, box = "periodic", memory = "device", out;  // kernel: "tuned" on the GPU, else "reference"
  int steps = 20, reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_lbm: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--device") device = next();
    else if (a == "--sizes") sizes = next();
    else if (a == "--lattices") lattices = next();
    else if (a == "--precisions") precisions = next();
    else if (a == "--collision") collision = next();
    else if (a == "--kernel") kernel = next();
    else if (a == "--box") box = next();
    else if (a == "--steps") steps = std::atoi(next().c_str());
    else if (a == "--reps") reps = std::atoi(next().c_str());
    else if (a == "--memory") memory = next();
    else if (a == "--out") out = next();
    else {
      std::fprintf(stderr, "bench_lbm: unknown option %s (see the header of bench/lbm/bench_lbm.cpp)\n", a.c_str());
      return 2;
    }
  }
  const exec::Space space = exec::parse_space(device);
  // The tuned kernel runs on the GPU only: a host run (also in a CUDA build) defaults to the reference path.
  if (kernel.empty()) kernel = space == exec::Space::Device ? "tuned" : "reference";
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
  for (const std::string& ls : split(lattices))
    for (const std::string& ps : split(precisions))
      for (const std::string& ns : split(sizes)) {
        const lbm::LatticeKind lk = lbm::parse_lattice(ls.c_str());
        const lbm::Precision pr = lbm::parse_precision(ps.c_str());
        const int64_t n = std::atoll(ns.c_str());
        lbm::GridLayout g;
        g.nx = g.ny = n;
        g.nz = lbm::lattice_dim(lk) == 2 ? 1 : n;
        g.gz = lbm::lattice_dim(lk) == 2 ? 0 : 1;
        // --kernel pattern: the tuned kernel's loads and stores without the collision (the memory ceiling
        // of its access pattern; lbm::stream_pattern_only).
        const bool pattern = kernel == "pattern" || kernel == "pattern-blocked" || kernel == "tuned-blocked" ||
                             kernel == "tuned-slots";
        const bool with_collision = kernel == "tuned-blocked" || kernel == "tuned-slots";
        const bool blocked = kernel == "pattern-blocked" || kernel == "tuned-blocked";
        const lbm::KernelPath path =
            kernel == "tuned" || pattern ? lbm::KernelPath::Tuned : lbm::KernelPath::Reference;
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
        lbm::CollisionParams p;
        p.kind = lbm::parse_collision(collision.c_str());
        p.omega = 1.0 / 0.6;
        p.walls.u[1][0] = 0.05f;  // the walls move: every face does the full moving-wall work
        const std::vector<double> ms = bench::time_ms(
            space,
            [&]() {
              for (int t = 0; t < steps; ++t) {
                if (pattern)
                  lbm::stream_pattern_only(ex, s, blocked, with_collision ? &p : nullptr);
                else
                  lbm::stream_collide(ex, s, p, path);
              }
            },
            1, reps);
        const double sec = bench::median(ms) / 1e3;
        const double cells = double(n) * double(n) * double(g.nz);
        const double mlups = cells * double(steps) / sec / 1e6;
        const double bytes = double(2 * lbm::lattice_q(lk) * lbm::precision_bytes(pr) + 1);
        bench::Record r = bench::environment_record(space, ceil);
        r.set("benchmark", "lbm_stream_collide").set("lattice", ls).set("precision", ps).set("collision", collision)
            .set("kernel", kernel).set("box", box).set("memory", std::string(to_string(s.memkind())))
            // the opt-in pair kernel's switch (docs/performance.md, LBM item 6), as the run saw it
            .set("TESSERA_LBM_PAIR", env_or_empty("TESSERA_LBM_PAIR"))
            .set("TESSERA_LBM_INDEX", env_or_empty("TESSERA_LBM_INDEX"))
            .set("TESSERA_LBM_FORCE_TERMS", env_or_empty("TESSERA_LBM_FORCE_TERMS"))
            .set("TESSERA_LBM_PREFETCH", env_or_empty("TESSERA_LBM_PREFETCH"))
            .set("prefetch_kib", static_cast<long long>(path == lbm::KernelPath::Tuned && !blocked ? lbm::tuned_prefetch_kib(pr) : 0))
            .set("n", static_cast<long long>(n)).set("cells", cells)
            .set("steps", steps).set("reps", reps).set("seconds_median", sec).set("mlups", mlups)
            .set("bytes_per_cell", bytes).set("gb_per_s", mlups * 1e6 * bytes / 1e9)
            .set("fraction_of_copy", mlups * 1e6 * bytes / ceil.bytes_per_s)
            .set("memory_bytes_per_cell", double(s.bytes_per_cell()));
        std::printf("%s\n", r.str().c_str());
        std::fflush(stdout);
        records.push_back(r);
      }
  if (!out.empty() && rt.rank() == 0) bench::append_jsonl(out, records);
  return 0;
}
