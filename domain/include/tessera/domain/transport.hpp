// How halo messages travel between ranks, and how a request is resolved at run time.
//
//   HostStaged : pack on the field's space, copy to pinned host buffers, MPI on host memory. Works with
//                every MPI library; the default.
//   CudaAware  : pack into device buffers and hand device pointers to MPI. Used only when the MPI
//                library reports CUDA support at run time (Open MPI: MPIX_Query_cuda_support()).
//   Nccl       : grouped ncclSend/ncclRecv between ncclGroupStart/End on the exchange's stream, with a
//                communicator created from the MPI one (ncclGetUniqueId broadcast over MPI). Needs a
//                build with NCCL (TESSERA_HAVE_NCCL) and fields on the GPU. No host synchronisation.
//   Auto       : a choice made at run time: NCCL when built with it, there is more than one rank and
//                every rank has its own GPU, else CUDA-aware MPI when the library supports it, else
//                HostStaged.
// Every transport moves the same bytes into the same places, so results are bit-identical.
#pragma once
#include <mpi.h>

#include <string>

namespace tessera::domain {

enum class Transport { HostStaged, CudaAware, Nccl, Auto };

const char* to_string(Transport t);  // "host-staged", "cuda-aware", "nccl", "auto"
// Accepts "host" (or "host-staged", "host_staged", "mpi"), "cuda_aware" (or "cuda-aware",
// "cuda-aware-mpi"), "nccl", "auto". The case-file spelling is host|cuda_aware|nccl|auto.
Transport parse_transport(const std::string& s);

// Whether this build's MPI library says, at run time, that it accepts device pointers.
bool mpi_cuda_aware();
// Whether this build contains the NCCL transport.
bool nccl_available();
// Collective over comm: whether every rank drives its own GPU (no two ranks on one host share the current
// CUDA device). NCCL needs that: with ranks sharing a GPU, ncclCommInitRank fails or hangs. False on a
// host-only build.
bool gpus_distinct(MPI_Comm comm);

// The transport actually used for a request. `device_buffers` is false when the messages are packed
// in host memory (a CPU run), where every request is served by HostStaged (a request for cuda_aware
// or nccl then logs one note). On the device:
//   - CudaAware without library support: an explicit request is an error naming the fix;
//     with `fallback` (Auto) it becomes HostStaged with one warning.
//   - Nccl in a build without NCCL: an error saying how to build with it.
//   - Auto: see above; `nranks` is the size of the communicator.
Transport resolve_transport(Transport requested, bool device_buffers, int nranks = 2);

}  // namespace tessera::domain
