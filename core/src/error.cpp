#include "tessera/core/error.hpp"

#include <string>

#include "tessera/core/cuda_check.hpp"

namespace tessera {

void throw_error(const std::string& what, const char* file, int line) {
  throw Error(what + " [" + file + ":" + std::to_string(line) + "]");
}

#if TESSERA_HAVE_CUDA
namespace detail {
void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  std::string msg = std::string("CUDA call failed: ") + call + " returned " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ")";
  if (err == cudaErrorMemoryAllocation)
    msg += ". The GPU is out of memory: use a smaller grid, more ranks/GPUs, or fp16 storage";
  else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    msg += ". No usable GPU: run with --device cpu, or check CUDA_VISIBLE_DEVICES and the driver";
  throw_error(msg, file, line);
}
}  // namespace detail
#endif

}  // namespace tessera
