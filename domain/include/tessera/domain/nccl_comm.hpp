// An NCCL communicator over the ranks of an MPI communicator (same rank numbering), shared by every
// halo exchange on that communicator: creating one costs a collective bootstrap, so the weather
// model's four exchanges and the LBM halo reuse one per decomposition.
//
// Created from MPI: rank 0 calls ncclGetUniqueId, MPI_Bcast sends it to the others, every rank calls
// ncclCommInitRank on its current CUDA device (one rank per GPU; core::Runtime selects the device by
// node-local rank before this). Only built with NCCL (TESSERA_HAVE_NCCL); otherwise nccl_comm_for()
// throws the same clear error as resolve_transport().
#pragma once
#include <mpi.h>

#include <memory>

namespace tessera::domain {

class NcclComm {
 public:
  explicit NcclComm(MPI_Comm comm);  // collective over comm
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  void* handle() const { return comm_; }  // ncclComm_t
  MPI_Comm mpi() const { return mpi_; }   // a duplicate of the communicator it was made from
  // The byte-wise grouped send/receive of one exchange on `stream` (cudaStream_t).
  struct Op {
    bool send;
    int peer;
    void* ptr;
    std::size_t bytes;
  };
  void group(const Op* ops, int n, void* stream) const;

 private:
  void* comm_ = nullptr;
  MPI_Comm mpi_ = MPI_COMM_NULL;
};

// Collective over comm. The live NcclComm for a communicator congruent with `comm` (same group, same
// order), or a new one. Holders keep it alive; it is destroyed with the last holder.
std::shared_ptr<NcclComm> nccl_comm_for(MPI_Comm comm);

}  // namespace tessera::domain
