// bench_copy [cpu|gpu] [GiB]: the memory-copy ceiling of this device (read + write counted), as JSON.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tessera/bench/bench.hpp"
#include "tessera/core/device.hpp"

int main(int argc, char** argv) {
  using namespace tessera;
  try {
    const exec::Space s = argc > 1 ? exec::parse_space(argv[1])
                                   : (device::gpu_available() ? exec::Space::Device : exec::Space::Host);
    const std::size_t bytes = argc > 2 ? std::size_t(std::atof(argv[2]) * double(1ull << 30)) : 0;
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
