// Programmatic dependent launch (PDL) for the tuned weather kernels (CUDA builds only): a launch with the
// attribute may be scheduled while the previous kernel in the stream drains; its blocks become resident
// and wait in pdl_enter() until that kernel has completed and its writes are visible. It hides the launch
// gap and the last wave's tail of back-to-back kernels (hdiff_cuda.cpp, vadv_cuda.cpp measure it).
#pragma once
#include <cuda_runtime.h>

#include <cstdlib>
#include <utility>

#include "tessera/core/cuda_check.hpp"

namespace tessera::weather::detail {

// On compute capability 9.0 and later, unless the environment variable `knob` starts with '0' (read per
// call: benchmarks and tests switch it).
inline bool pdl_wanted(const char* knob) {
  static const bool capable = [] {
    int dev = 0, major = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    return major >= 9;
  }();
  const char* e = std::getenv(knob);
  return capable && !(e && e[0] == '0');
}

// kernel<<<grid, block, smem, stream>>>(args...), with the PDL attribute when pdl is set.
template <class... KArgs, class... Args>
void launch_maybe_pdl(bool pdl, void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                      Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  TESSERA_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

// First statement of a kernel launched by launch_maybe_pdl (no-ops without the attribute): let the next
// launch in the stream be scheduled now, and touch no memory before the previous one has finished.
__device__ __forceinline__ void pdl_enter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

}  // namespace tessera::weather::detail
