// weather_sw_bench: the shallow-water SSP-RK3 step in three forms, for tuning and docs/performance.md.
//
//   step      bench_weather's sw_ssprk3_step (sw_ssprk3_step_local: stages 1 and 2 in one fused pass
//             where sw_stages12 applies, as on this periodic f-plane; TESSERA_SW_FUSED=off turns it off)
//   protocol  the three stages unfused: sw_fill_ghosts_local, then sw_stage, per stage
//   protocol-noalias  the same, but the first stage's s^n is passed as other arrays than s_k, so the
//             CUDA tile reads it from memory again instead of taking it from its tile (for comparison)
//   folded    sw_stage_and_fill per stage (periodic ghost images written by the stage kernel itself)
//   stage     sw_stage alone, three times (the kernel without any ghost work)
// Bytes per step are bench_weather's protocol (27 x 8 B per cell: every field read and written once per
// stage), so fraction_of_copy compares with bench/results. The CUDA tile shape comes from
// TESSERA_SW_TILE, the portable kernel from TESSERA_WEATHER_PORTABLE=1 (both read by sw_tiled.cpp).
// Usage: weather_sw_bench [--device cpu|gpu] [--n N]... [--reps R] [--scheme arakawa_lamb|sadourny_energy]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/bench/bench.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/sw_step.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {

// Deterministic pseudo-random values in [lo, hi) from a hash of the index (filled where the data lives).
void fill(const exec::Exec& ex, Buffer<double>& b, double lo, double hi, uint64_t seed) {
  double* p = b.data();
  exec::parallel_for(ex, "weather::bench_fill", int64_t(b.size()), TESSERA_LAMBDA(int64_t n) {
    uint64_t x = uint64_t(n) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    p[n] = lo + (hi - lo) * double(x >> 11) * (1.0 / 9007199254740992.0);
  });
}

void run(exec::Space sp, const bench::Ceiling& c, int64_t n, int reps, SwScheme scheme) {
  const exec::Exec ex(sp);
  const MemKind mk = default_memkind(sp);
  const Grid gr = make_grid(n, n, 1000.0, 1000.0, 2);
  SwParams p;
  p.f0 = 1e-4;
  p.scheme = scheme;
  std::vector<Buffer<double>> f;
  for (int q = 0; q < 10; ++q) {
    f.emplace_back(size_t(gr.size2()), mk, "weather_sw_bench");
    fill(ex, f.back(), q % 3 == 0 ? 90.0 : -1.0, q % 3 == 0 ? 110.0 : 1.0, uint64_t(11 + q));
  }
  SwView S{f[0].data(), f[1].data(), f[2].data()}, T1{f[3].data(), f[4].data(), f[5].data()},
      T2{f[6].data(), f[7].data(), f[8].data()};
  const double* b = f[9].data();
  auto cv = [&](SwView v) { return SwConstView{v.h, v.u, v.v, b}; };
  const double dt = 0.1 * 1000.0 / 40.0;
  const auto k = stage_coefficients(TimeScheme::SspRk3);
  sw_fill_ghosts_local(ex, gr, p, S);
  // bench_weather's step; first_s0 is the first stage's s^n (S itself, or other arrays for comparison)
  const auto protocol = [&](SwView first_s0) {
    sw_fill_ghosts_local(ex, gr, p, S);
    sw_stage(ex, gr, p, cv(first_s0), cv(S), T1, k[0].a, k[0].c, dt);
    sw_fill_ghosts_local(ex, gr, p, T1);
    sw_stage(ex, gr, p, cv(S), cv(T1), T2, k[1].a, k[1].c, dt);
    sw_fill_ghosts_local(ex, gr, p, T2);
    sw_stage(ex, gr, p, cv(S), cv(T2), S, k[2].a, k[2].c, dt);
  };
  const std::vector<std::pair<const char*, std::function<void()>>> forms = {
      // the step as bench_weather and one-rank callers run it: stages 1 and 2 fused where they may be
      {"step", [&] { sw_ssprk3_step_local(ex, gr, p, S, b, T1, T2, dt); }},
      {"protocol", [&] { protocol(S); }},
      // the first stage's s^n in other arrays (T2, stale: a = 0 there) than s_k: the bytes of a stage
      // kernel that reads s^n again
      {"protocol-noalias", [&] { protocol(T2); }},
      {"folded",
       [&] {
         sw_stage_and_fill(ex, gr, p, cv(S), cv(S), T1, k[0].a, k[0].c, dt);
         sw_stage_and_fill(ex, gr, p, cv(S), cv(T1), T2, k[1].a, k[1].c, dt);
         sw_stage_and_fill(ex, gr, p, cv(S), cv(T2), S, k[2].a, k[2].c, dt);
       }},
      {"stage",
       [&] {
         sw_stage(ex, gr, p, cv(S), cv(S), T1, k[0].a, k[0].c, dt);
         sw_stage(ex, gr, p, cv(S), cv(T1), T2, k[1].a, k[1].c, dt);
         sw_stage(ex, gr, p, cv(S), cv(T2), S, k[2].a, k[2].c, dt);
       }}};
  for (const auto& [name, fn] : forms) {
    const double ms = bench::median(bench::time_ms(sp, fn, 3, reps));
    const double bytes = 27.0 * 8.0 * double(n * n);
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    const char* tile = std::getenv("TESSERA_SW_TILE");
    const char* port = std::getenv("TESSERA_WEATHER_PORTABLE");
    bench::Record r = bench::environment_record(sp, c);
    r.set("driver", "weather_sw_bench").set("kernel", "sw_ssprk3_step").set("form", name).set("precision", "fp64");
    r.set("scheme", scheme == SwScheme::ArakawaLamb ? "arakawa_lamb" : "sadourny_energy");
    r.set("path", port && port[0] == '1' ? "portable" : "tiled").set("tile", tile && *tile ? tile : "default");
    const char* fu = std::getenv("TESSERA_SW_FUSED");
    r.set("fused", fu && *fu ? fu : "default");
    r.set("nx", (long long)n).set("ny", (long long)n).set("median_ms", ms).set("bytes", bytes).set("GB_per_s", gbs);
    r.set("cell_updates_per_s", double(n * n) / (ms * 1e-3)).set("fraction_of_copy", gbs * 1e9 / c.bytes_per_s);
    std::printf("%s\n", r.str().c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  exec::Space sp = exec::Space::Host;
  std::vector<int64_t> sizes;
  int reps = 10;
  SwScheme scheme = SwScheme::ArakawaLamb;
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string s = argv[a];
      if (s == "--device" && a + 1 < argc) sp = exec::parse_space(argv[++a]);
      else if (s == "--n" && a + 1 < argc) sizes.push_back(std::stoll(argv[++a]));
      else if (s == "--reps" && a + 1 < argc) reps = std::stoi(argv[++a]);
      else if (s == "--scheme" && a + 1 < argc) {
        const std::string v = argv[++a];
        if (v != "arakawa_lamb" && v != "sadourny_energy")
          throw std::runtime_error("--scheme '" + v + "': expected arakawa_lamb or sadourny_energy");
        scheme = v == "arakawa_lamb" ? SwScheme::ArakawaLamb : SwScheme::SadournyEnergy;
      } else {
        std::fprintf(stderr, "usage: weather_sw_bench [--device cpu|gpu] [--n N]... [--reps R] [--scheme S]\n");
        return s == "-h" || s == "--help" ? 0 : 2;
      }
    }
    if (sizes.empty()) sizes = {256};
    const bench::Ceiling c = bench::measure_copy_ceiling(sp, sp == exec::Space::Device ? 0 : (std::size_t(64) << 20), 10);
    for (const int64_t n : sizes) run(sp, c, n, reps, scheme);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weather_sw_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
