// bench_weather: throughput of the weather stencils against the copy ceiling of the same device.
//
//   sw_step   one SSP-RK3 step of the fused shallow-water stage (3 stages, periodic ghosts refreshed
//             between stages) on n x n cells. Bytes per step = per stage, every field read once and
//             written once: stage 1 reads h,u,v,b and writes h,u,v (7 arrays, s^n is also s_k),
//             stages 2 and 3 read s^n (3), s_k (3), b and write 3 (10 arrays): 27 x 8 B per cell.
//   hdiff     COSMO flux-limited 4th-order diffusion on nx x ny x nz: reads in, coeff, writes out (3 x 8 B).
//   vadv      COSMO implicit vertical advection: reads phi, w, writes out (3 x 8 B counted; the portable
//             path's Thomas scratch c' adds 2 x 8 B of traffic that the protocol does not count; the
//             tuned CUDA path keeps it on chip).
// On the GPU the COSMO stencils are measured twice: the entry points (tuned CUDA kernels) as cosmo_hdiff /
// cosmo_vadv, and the portable forms as cosmo_hdiff_portable / cosmo_vadv_portable. Each timed sample
// runs --launches back-to-back launches (default 10 on the GPU, 1 on the host) and reports the time per
// launch, so that the ~2-3 us between an event and a kernel start does not count against a 30 us kernel
// (a time loop launches back to back too); launches_per_sample records it.
//   copy      (GPU, --only copy) the floor at a stencil's size: a device-to-device cudaMemcpyAsync moving the
//             stencil's protocol bytes per call (1.5 x 8 B per point copied: 3 x 8 B read + written), timed as
//             the stencils are (--launches back-to-back calls per sample), so that the per-call cost of a
//             126 MB step at 256^2 x 80 can be set against the 4 GiB copy ceiling. Not run by default.
// Usage: bench_weather [--device cpu|gpu] [--quick] [--reps N] [--launches N] [--only sw|hdiff|vadv|copy]
//                      [--tuned-only]   (GPU: skip the portable forms of the COSMO stencils)
//                      [--sizes N,N,...] (the COSMO stencils on N x N x 80 instead of 256, 512, 1024)
//                      [--warmup-s S]   (GPU: warm up each timing for at least S seconds, default 3, 0 with
//                                        --quick: the card's sustained power and clock state, bench/common)
// Prints one JSON object per configuration on stdout (bench/run collects them).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

#include "tessera/bench/bench.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/core/cuda_check.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/hdiff.hpp"
#include "tessera/weather/sw_step.hpp"
#include "tessera/weather/vadv.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {

void fill(Buffer<double>& b, double lo, double hi, unsigned seed) {
  Buffer<double> h(b.size(), MemKind::Host);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  for (auto& x : h) x = d(g);
  copy(b, h);
}

bench::Record base(exec::Space sp, const bench::Ceiling& c, const char* kernel) {
  bench::Record r = bench::environment_record(sp, c);
  r.set("benchmark", "weather").set("kernel", kernel).set("precision", "fp64");
  return r;
}

void finish(bench::Record& r, const bench::Ceiling& c, double ms, double bytes, double cells) {
  const double gbs = bytes / (ms * 1e-3) / 1e9;
  r.set("median_ms", ms).set("bytes", bytes).set("GB_per_s", gbs).set("cell_updates_per_s", cells / (ms * 1e-3));
  r.set("fraction_of_copy", gbs * 1e9 / c.bytes_per_s);
  bench::set_timing(r, bench::last_timing());  // the timing just run: warm-up, power and SM clock
  std::printf("%s\n", r.str().c_str());
  std::fflush(stdout);
}

void bench_sw(exec::Space sp, const bench::Ceiling& c, int64_t n, int reps) {
  const exec::Exec ex(sp);
  const MemKind mk = default_memkind(sp);
  const Grid gr = make_grid(n, n, 1000.0, 1000.0, 2);
  SwParams p;
  p.f0 = 1e-4;
  const size_t sz = size_t(gr.size2());
  Buffer<double> f[10];
  for (int q = 0; q < 10; ++q) {
    f[q] = Buffer<double>(sz, mk, "bench_sw");
    fill(f[q], q % 3 == 0 ? 90.0 : -1.0, q % 3 == 0 ? 110.0 : 1.0, 11 + q);
  }
  SwView S{f[0].data(), f[1].data(), f[2].data()}, T1{f[3].data(), f[4].data(), f[5].data()},
      T2{f[6].data(), f[7].data(), f[8].data()};
  const double* b = f[9].data();
  sw_fill_ghosts_local(ex, gr, p, S, f[9].data());  // b's ghosts, which sw_ssprk3_step_local takes as valid
  const double dt = 0.1 * 1000.0 / 40.0;
  // stages 1 and 2 in one fused pass on the device (periodic f-plane, one rank: sw_stages12), stage 3
  bool fused = false;
  auto step = [&]() { fused = sw_ssprk3_step_local(ex, gr, p, S, b, T1, T2, dt); };
  const double ms = bench::median(bench::time_ms(sp, step, 3, reps));
  bench::Record r = base(sp, c, "sw_ssprk3_step");
  r.set("nx", (long long)n).set("ny", (long long)n);
  if (const char* v = std::getenv("TESSERA_SW_TILE")) r.set("TESSERA_SW_TILE", v);  // sw_tiled.cpp's shape knob
  if (const char* v = std::getenv("TESSERA_SW_FUSED")) r.set("TESSERA_SW_FUSED", v);  // ... and fused kernel
  // bytes: the protocol (every field read and written once per stage, 27 arrays); with stages 1
  // and 2 fused the step moves 17 (s^n, b in and s_2 out, then stage 3's 10), recorded beside it
  r.set("stages12_fused", fused).set("bytes_moved", (fused ? 17.0 : 27.0) * 8.0 * double(n * n));
  finish(r, c, ms, 27.0 * 8.0 * double(n * n), double(n * n));
}

// Median time per launch of fn, timing `launches` back-to-back launches per sample.
double per_launch_ms(exec::Space sp, const std::function<void()>& fn, int reps, int launches) {
  auto many = [&]() {
    for (int l = 0; l < launches; ++l) fn();
  };
  return bench::median(bench::time_ms(sp, many, 2, reps)) / double(launches);
}

void bench_hdiff(exec::Space sp, const bench::Ceiling& c, int64_t n, int64_t nz, int reps, int launches, bool portable) {
  const exec::Exec ex(sp);
  const MemKind mk = default_memkind(sp);
  const Grid gr = make_grid(n, n, 1.0, 1.0, 2, nz);
  const size_t sz = size_t(gr.size3());
  Buffer<double> in(sz, mk), cf(sz, mk), out(sz, mk);
  fill(in, -1, 1, 3);
  fill(cf, 0, 0.015, 4);
  const double ms = per_launch_ms(
      sp,
      [&]() {
        if (portable) hdiff_portable(ex, gr, in.data(), cf.data(), 0.0, out.data());
        else hdiff_fused(ex, gr, in.data(), cf.data(), 0.0, out.data());
      },
      reps, launches);
  bench::Record r = base(sp, c, portable ? "cosmo_hdiff_portable" : "cosmo_hdiff");
  r.set("nx", (long long)n).set("ny", (long long)n).set("nz", (long long)nz).set("launches_per_sample", (long long)launches);
  r.set("hdiff_form", portable ? "portable" : hdiff_last_form());  // the form that ran (a wide one may fall back)
  for (const char* k : {"TESSERA_HDIFF_KERNEL", "TESSERA_HDIFF_PDL"})  // hdiff_cuda.cpp's variant knobs
    if (const char* v = std::getenv(k)) r.set(k, v);
  finish(r, c, ms, 3.0 * 8.0 * double(n * n * nz), double(n * n * nz));
}

void bench_vadv(exec::Space sp, const bench::Ceiling& c, int64_t n, int64_t nz, int reps, int launches, bool portable) {
  const exec::Exec ex(sp);
  const MemKind mk = default_memkind(sp);
  const Grid gr = make_grid(n, n, 1.0, 1.0, 2, nz);
  const size_t sz = size_t(gr.size3());
  Buffer<double> in(sz, mk), w(sz, mk), sc(sz, mk), out(sz, mk);
  fill(in, 0, 1, 5);
  fill(w, -1, 1, 6);
  const VadvParams vp{10.0, 50.0, 0.6};
  const double ms = per_launch_ms(
      sp,
      [&]() {
        if (portable) vadv_columns_portable(ex, gr, vp, in.data(), w.data(), sc.data(), out.data());
        else vadv_columns(ex, gr, vp, in.data(), w.data(), sc.data(), out.data());
      },
      reps, launches);
  bench::Record r = base(sp, c, portable ? "cosmo_vadv_portable" : "cosmo_vadv");
  r.set("nx", (long long)n).set("ny", (long long)n).set("nz", (long long)nz).set("launches_per_sample", (long long)launches);
  // The portable path moves c' and d' through device memory (2 x 8 B per point, not counted); the tuned
  // CUDA path keeps them on chip.
  const bool on_chip = !portable && sp == exec::Space::Device && TESSERA_HAVE_CUDA;
  r.set("scratch_bytes_not_counted", on_chip ? 0.0 : 2.0 * 8.0 * double(n * n * nz));
  for (const char* k : {"TESSERA_VADV_KERNEL", "TESSERA_VADV_BLOCKS"})  // vadv_cuda.cpp's variant knobs
    if (const char* v = std::getenv(k)) r.set(k, v);
  r.set("vadv_form", portable ? "portable" : vadv_last_form());  // the form that ran (a knob's may not apply)
  finish(r, c, ms, 3.0 * 8.0 * double(n * n * nz), double(n * n * nz));
}

// The copy floor at a stencil's size (see the header): the same bytes per call as hdiff and vadv.
void bench_copy_same_bytes(exec::Space sp, const bench::Ceiling& c, int64_t n, int64_t nz, int reps, int launches) {
#if TESSERA_HAVE_CUDA
  const size_t count = size_t(3 * n * n * nz / 2);  // doubles copied: 1.5 per point
  Buffer<double> a(count, MemKind::Device, "copy_src"), b(count, MemKind::Device, "copy_dst");
  a.zero();
  b.zero();
  const double ms = per_launch_ms(
      sp, [&]() { TESSERA_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, nullptr)); },
      reps, launches);
  bench::Record r = base(sp, c, "copy_same_bytes");
  r.set("nx", (long long)n).set("ny", (long long)n).set("nz", (long long)nz).set("launches_per_sample", (long long)launches);
  finish(r, c, ms, 2.0 * 8.0 * double(count), double(n * n * nz));
#else
  (void)sp, (void)c, (void)n, (void)nz, (void)reps, (void)launches;
  throw std::runtime_error("--only copy: needs a CUDA build");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  exec::Space sp = exec::Space::Host;
  bool quick = false, tuned_only = false;
  std::string sizes;
  int reps = 10, launches = 0;
  double warmup_s = -1;  // --warmup-s; unset: bench_common's default (3 s on the GPU), 0 with --quick
  std::string only;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto next = [&] { return bench::option_value(argc, argv, a, "bench_weather"); };
    if (s == "--device") sp = exec::parse_space(next());
    else if (s == "--quick") quick = true;
    else if (s == "--reps") reps = std::stoi(next());
    else if (s == "--launches") launches = std::stoi(next());
    else if (s == "--only") only = next();
    else if (s == "--tuned-only") tuned_only = true;
    else if (s == "--sizes") sizes = next();
    else if (s == "--warmup-s") {
      try {
        warmup_s = bench::parse_warmup_seconds(next());
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_weather: %s\n", e.what());
        return 2;
      }
    } else if (s == "-h" || s == "--help") {
      std::printf("bench_weather [--device cpu|gpu] [--quick] [--reps N] [--launches N] [--only sw|hdiff|vadv|copy] "
                  "[--tuned-only] [--sizes N,N,...] [--warmup-s S]\n");
      return 0;
    } else {
      std::fprintf(stderr, "bench_weather: unknown option '%s' (see --help)\n", s.c_str());
      return 2;
    }
  }
  try {
    const bool gpu = sp == exec::Space::Device;
    // Bad options are refused before the copy ceiling is measured (seconds on a 4 GiB copy).
    if (!only.empty() && only != "sw" && only != "hdiff" && only != "vadv" && only != "copy")
      throw std::runtime_error("--only '" + only + "': expected sw, hdiff, vadv or copy");
    if (only == "copy" && !gpu) throw std::runtime_error("--only copy: the copy floor is measured on the GPU (--device gpu)");
    if (warmup_s >= 0) bench::set_warmup_seconds(warmup_s);
    else if (quick) bench::set_warmup_seconds(0);
    const bench::Ceiling c = bench::measure_copy_ceiling(sp, quick ? (std::size_t(64) << 20) : 0, quick ? 3 : 20);
    if (quick) reps = 2;
    if (launches <= 0) launches = gpu && !quick ? 10 : 1;
    auto want = [&](const char* k) { return only.empty() || only == k; };
    const std::vector<int64_t> sw = quick ? std::vector<int64_t>{256} : gpu ? std::vector<int64_t>{4096, 8192} : std::vector<int64_t>{1024, 2048};
    std::vector<int64_t> st = quick ? std::vector<int64_t>{64} : gpu ? std::vector<int64_t>{256, 512, 1024} : std::vector<int64_t>{256};
    if (!sizes.empty()) {  // --sizes: the stencils' n (n x n columns), comma-separated
      st.clear();
      for (const std::string& tok : bench::split_list(sizes)) {
        char* end = nullptr;
        const long long n = std::strtoll(tok.c_str(), &end, 10);
        if (tok.empty() || *end != '\0' || n < 8)
          throw std::runtime_error("--sizes '" + sizes + "': expected comma-separated sizes of at least 8, got '" + tok + "'");
        st.push_back(n);
      }
    }
    const int64_t nz = quick ? 8 : 80;
    if (only == "copy")
      for (int64_t n : st) bench_copy_same_bytes(sp, c, n, nz, reps, launches);
    if (want("sw"))
      for (int64_t n : sw) bench_sw(sp, c, n, reps);
    // The portable forms as well on the GPU (on the host the entry points are the portable forms).
    for (int portable = 0; portable < (gpu && !tuned_only ? 2 : 1); ++portable) {
      if (want("hdiff"))
        for (int64_t n : st) bench_hdiff(sp, c, n, nz, reps, launches, portable != 0);
      if (want("vadv"))
        for (int64_t n : st) bench_vadv(sp, c, n, nz, reps, launches, portable != 0);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_weather: %s\n", e.what());
    return 1;
  }
  return 0;
}
