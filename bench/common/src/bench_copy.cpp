// bench_copy [--device cpu|gpu] [--gib N]: the memory-copy ceiling of this device (read + write counted), as JSON.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tessera/bench/bench.hpp"
#include "tessera/core/device.hpp"

int main(int argc, char** argv) {
  using namespace tessera;
  try {
    exec::Space s = device::gpu_available() ? exec::Space::Device : exec::Space::Host;
    std::size_t bytes = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--device" && i + 1 < argc) s = exec::parse_space(argv[++i]);
      else if (a == "--gib" && i + 1 < argc) bytes = std::size_t(std::atof(argv[++i]) * double(1ull << 30));
      else if (a == "--help") { std::printf("bench_copy [--device cpu|gpu] [--gib N]\n"); return 0; }
      else { std::fprintf(stderr, "bench_copy: unknown argument '%s' (try --help)\n", a.c_str()); return 2; }
    }
    const auto c = bench::measure_copy_ceiling(s, bytes);
    auto r = bench::environment_record(s, c);
    r.set("benchmark", "copy").set("GB_per_s", c.bytes_per_s / 1e9);
    std::printf("%s\n", r.str().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_copy: error: %s\n", e.what());
    return 1;
  }
}
