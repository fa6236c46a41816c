#include "tessera/domain/transport.hpp"

#include <mpi.h>
// Open MPI declares MPIX_Query_cuda_support() in <mpi-ext.h> when built with its CUDA extension.
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>

#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"

namespace tessera::domain {

const char* to_string(Transport t) {
  switch (t) {
    case Transport::HostStaged: return "host-staged";
    case Transport::CudaAware: return "cuda-aware";
    case Transport::Nccl: return "nccl";
  }
  return "?";
}

Transport parse_transport(const std::string& s) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (l == "host-staged" || l == "host" || l == "mpi") return Transport::HostStaged;
  if (l == "cuda-aware" || l == "cuda-aware-mpi") return Transport::CudaAware;
  if (l == "nccl") return Transport::Nccl;
  TESSERA_THROW("unknown halo transport '" + s + "': expected host-staged, cuda-aware or nccl");
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // The compile-time macro only says what the headers were built with; the library in use decides.
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

Transport resolve_transport(Transport requested, bool device_fields) {
  if (requested == Transport::Nccl)
    TESSERA_THROW(
        "halo transport 'nccl' is not implemented yet (it arrives with the multi-GPU work, issue 10); use "
        "'host-staged' (works everywhere) or 'cuda-aware'");
  if (!device_fields) return Transport::HostStaged;
  if (requested == Transport::CudaAware && !mpi_cuda_aware()) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      log::warn(
          "halo transport 'cuda-aware' requested, but this MPI library does not report CUDA support at run "
          "time (MPIX_Query_cuda_support); using 'host-staged' instead");
    return Transport::HostStaged;
  }
  return requested;
}

}  // namespace tessera::domain
