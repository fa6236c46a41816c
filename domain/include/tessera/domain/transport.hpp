// How halo messages travel between ranks.
//
//   HostStaged : pack on the field's space, copy to pinned host buffers, MPI on host memory. Works with
//                every MPI library; the default.
//   CudaAware  : pack into device buffers and hand device pointers to MPI. Used only when the MPI
//                library reports CUDA support at run time (Open MPI: MPIX_Query_cuda_support());
//                otherwise a request for it falls back to HostStaged with a warning.
//   Nccl       : grouped NCCL send/receive on the solver's stream (issue 10; not implemented yet).
#pragma once
#include <string>

namespace tessera::domain {

enum class Transport { HostStaged, CudaAware, Nccl };

const char* to_string(Transport t);  // "host-staged", "cuda-aware", "nccl"
// Accepts "host-staged" (or "host", "mpi"), "cuda-aware" (or "cuda-aware-mpi"), "nccl".
Transport parse_transport(const std::string& s);

// Whether this build's MPI library says, at run time, that it accepts device pointers.
bool mpi_cuda_aware();

// The transport actually used for a request: CudaAware without library support becomes HostStaged
// (one warning per process); Nccl throws a clear "not yet" error. `device_fields` is false when the
// fields live in host memory, where every request is served by HostStaged.
Transport resolve_transport(Transport requested, bool device_fields);

}  // namespace tessera::domain
