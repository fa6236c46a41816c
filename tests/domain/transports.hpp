// The halo transports a GPU test can run here: host-staged and auto always, CUDA-aware MPI when the
// library reports CUDA support at run time, NCCL when the build has it and every rank has its own GPU
// (collective). Explicit requests for the others are errors (tested in test_halo.cpp), so they are left
// out rather than skipped silently.
#pragma once
#include <vector>

#include "tessera/domain/transport.hpp"

inline std::vector<tessera::domain::Transport> available_transports() {
  using tessera::domain::Transport;
  std::vector<Transport> t{Transport::HostStaged, Transport::Auto};
  if (tessera::domain::mpi_cuda_aware()) t.push_back(Transport::CudaAware);
  if (tessera::domain::nccl_available() && tessera::domain::gpus_distinct(MPI_COMM_WORLD)) t.push_back(Transport::Nccl);
  return t;
}
