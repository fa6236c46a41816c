// Checked CUDA calls: a failing call throws tessera::Error with the call, file and line.
#pragma once
#include "tessera/core/config_macros.hpp"
#include "tessera/core/error.hpp"

#if TESSERA_HAVE_CUDA
#include <cuda_runtime.h>
namespace tessera::detail {
[[noreturn]] void throw_cuda(cudaError_t err, const char* call, const char* file, int line);
}
#define TESSERA_CUDA_CHECK(call)                                                   \
  do {                                                                             \
    cudaError_t tessera_err_ = (call);                                             \
    if (tessera_err_ != cudaSuccess)                                               \
      ::tessera::detail::throw_cuda(tessera_err_, #call, __FILE__, __LINE__);      \
  } while (0)
// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define TESSERA_CUDA_CHECK_LAUNCH(label) TESSERA_CUDA_CHECK(cudaPeekAtLastError())
#endif
