#include "tessera/domain/transport.hpp"

#include <mpi.h>
// Open MPI declares MPIX_Query_cuda_support() in <mpi-ext.h> when built with its CUDA extension.
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>

#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "tessera/core/device.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"

namespace tessera::domain {

const char* to_string(Transport t) {
  switch (t) {
    case Transport::HostStaged: return "host-staged";
    case Transport::CudaAware: return "cuda-aware";
    case Transport::Nccl: return "nccl";
    case Transport::Auto: return "auto";
  }
  return "?";
}

Transport parse_transport(const std::string& s) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(c == '_' ? '-' : std::tolower(c)); });
  if (l == "host-staged" || l == "host" || l == "mpi") return Transport::HostStaged;
  if (l == "cuda-aware" || l == "cuda-aware-mpi") return Transport::CudaAware;
  if (l == "nccl") return Transport::Nccl;
  if (l == "auto") return Transport::Auto;
  TESSERA_THROW("unknown halo transport '" + s + "': expected host, cuda_aware, nccl or auto");
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // The compile-time macro only says what the headers were built with; the library in use decides.
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

bool nccl_available() {
#if defined(TESSERA_HAVE_NCCL)
  return true;
#else
  return false;
#endif
}

bool gpus_distinct(MPI_Comm comm) {
  // "host/PCI bus id": room for the longest processor name MPI can return and a PCI id ("0000:00:00.0").
  constexpr int kLen = MPI_MAX_PROCESSOR_NAME + 32;
  char mine[kLen] = {};
  if (device::gpu_available()) {
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int n = 0;
    MPI_Get_processor_name(host, &n);
    std::snprintf(mine, kLen, "%s/%s", host, device::info(-1).pci_bus_id.c_str());
  }
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<char> all(size_t(size) * kLen);
  MPI_Allgather(mine, kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, comm);
  std::set<std::string> seen;
  for (int r = 0; r < size; ++r) {
    const std::string id(&all[size_t(r) * kLen], strnlen(&all[size_t(r) * kLen], kLen));
    if (id.empty() || !seen.insert(id).second) return false;
  }
  return true;
}

namespace {
void warn_once(std::atomic<bool>& flag, const char* text) {
  if (!flag.exchange(true)) log::warn("{}", text);
}
}  // namespace

Transport resolve_transport(Transport requested, bool device_buffers, int nranks) {
  static std::atomic<bool> warned_host{false}, warned_cuda{false};
  if (requested == Transport::Nccl && !nccl_available())
    TESSERA_THROW(
        "halo transport 'nccl' was requested, but this build has no NCCL: configure a CUDA build where "
        "nccl.h and libnccl are found (-DTESSERA_NCCL=ON, NCCL_HOME=/path/to/nccl), or set "
        "parallel.transport to host, cuda_aware or auto");
  if (!device_buffers) {
    if (requested == Transport::Nccl || requested == Transport::CudaAware)
      warn_once(warned_host,
                "halo transport 'nccl'/'cuda_aware' applies to fields on the GPU; this run keeps its fields in "
                "host memory and exchanges them through host MPI");
    return Transport::HostStaged;
  }
  switch (requested) {
    case Transport::HostStaged: return Transport::HostStaged;
    case Transport::Nccl: return Transport::Nccl;
    case Transport::CudaAware:
      if (!mpi_cuda_aware())
        TESSERA_THROW(
            "halo transport 'cuda_aware' was requested, but this MPI library does not report CUDA support at "
            "run time (MPIX_Query_cuda_support() != 1); use an MPI built with CUDA (Open MPI: --with-cuda, "
            "UCX with cuda), or set parallel.transport to host, nccl or auto");
      return Transport::CudaAware;
    case Transport::Auto:
      if (nranks > 1 && nccl_available()) return Transport::Nccl;
      if (mpi_cuda_aware()) return Transport::CudaAware;
      if (nranks > 1)
        warn_once(warned_cuda,
                  "halo transport 'auto': no NCCL in this build and no CUDA-aware MPI at run time; halos go "
                  "through pinned host buffers (host-staged)");
      return Transport::HostStaged;
  }
  return Transport::HostStaged;
}

}  // namespace tessera::domain
