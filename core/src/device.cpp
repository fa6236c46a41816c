#include "tessera/core/device.hpp"

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/exec.hpp"

namespace tessera::device {

int count() {
#if TESSERA_HAVE_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

bool gpu_available() { return count() > 0; }

int select_for_local_rank(int local_rank) {
  const int n = count();
  if (n == 0)
    TESSERA_THROW(exec::cuda_enabled()
                      ? "no GPU is visible to this process (check CUDA_VISIBLE_DEVICES, the driver and the Slurm "
                        "--gpus request), or run with --device cpu"
                      : "this build has no CUDA back end: run with --device cpu or configure with the 'cuda' preset");
#if TESSERA_HAVE_CUDA
  const int id = local_rank % n;
  TESSERA_CUDA_CHECK(cudaSetDevice(id));
  return id;
#else
  (void)local_rank;
  return -1;
#endif
}

int current() {
#if TESSERA_HAVE_CUDA
  int d = -1;
  if (count() == 0) return -1;
  TESSERA_CUDA_CHECK(cudaGetDevice(&d));
  return d;
#else
  return -1;
#endif
}

Info info(int id) {
  Info r;
#if TESSERA_HAVE_CUDA
  if (count() == 0) return r;
  if (id < 0) TESSERA_CUDA_CHECK(cudaGetDevice(&id));
  cudaDeviceProp p{};
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&p, id));
  r.id = id;
  r.name = p.name;
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, id) == cudaSuccess) r.pci_bus_id = bus;
  r.total_bytes = p.totalGlobalMem;
  r.cc_major = p.major;
  r.cc_minor = p.minor;
  r.sm_count = p.multiProcessorCount;
  TESSERA_CUDA_CHECK(cudaDriverGetVersion(&r.driver_version));
  TESSERA_CUDA_CHECK(cudaRuntimeGetVersion(&r.runtime_version));
  int cur = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&cur));
  if (cur == id) {
    std::size_t fr = 0, tot = 0;
    TESSERA_CUDA_CHECK(cudaMemGetInfo(&fr, &tot));
    r.free_bytes = fr;
  }
#else
  (void)id;
#endif
  return r;
}

void synchronize() {
#if TESSERA_HAVE_CUDA
  if (count() > 0) TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
#endif
}

std::pair<std::size_t, std::size_t> mem_info() {
#if TESSERA_HAVE_CUDA
  std::size_t fr = 0, tot = 0;
  if (count() > 0) TESSERA_CUDA_CHECK(cudaMemGetInfo(&fr, &tot));
  return {fr, tot};
#else
  return {0, 0};
#endif
}

}  // namespace tessera::device
