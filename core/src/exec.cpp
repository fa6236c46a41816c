#include "tessera/core/exec.hpp"

#include <algorithm>
#include <cctype>

#include "tessera/core/cuda_check.hpp"

namespace tessera::exec {

Space parse_space(const std::string& s) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (l == "cpu" || l == "host") return Space::Host;
  if (l == "gpu" || l == "cuda" || l == "device") return Space::Device;
  TESSERA_THROW("unknown device '" + s + "': expected 'cpu' or 'gpu'");
}

const char* to_string(Space s) { return s == Space::Host ? "cpu" : "gpu"; }

bool cuda_enabled() { return TESSERA_HAVE_CUDA != 0; }

void fence(const Exec& ex) {
#if TESSERA_HAVE_CUDA
  if (ex.on_device()) TESSERA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(ex.stream)));
#else
  (void)ex;
#endif
}

namespace detail {
void no_device_backend(const char* label) {
  if (!cuda_enabled())
    TESSERA_THROW(std::string("kernel '") + label +
                  "' was asked to run on the GPU, but this build has no CUDA back end: run with --device cpu, "
                  "or configure with the 'cuda' preset");
  TESSERA_THROW(std::string("kernel '") + label +
                "' was asked to run on the GPU, but its source file was not compiled by nvcc: list it in "
                "KERNEL_SOURCES of its CMake target");
}
}  // namespace detail

}  // namespace tessera::exec
