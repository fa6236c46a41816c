// Process-wide runtime: MPI (initialised on demand, also for single-process runs), the node-local
// rank, and the GPU that this rank uses. One rank per GPU: device = node-local rank % GPUs visible.
#pragma once
#include <mpi.h>

#include <string>

#include "tessera/core/exec.hpp"

namespace tessera {

// Node-local rank from the launcher (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
// MV2_COMM_WORLD_LOCAL_RANK), else computed with MPI_COMM_TYPE_SHARED. Requires MPI to be initialised.
int node_local_rank(MPI_Comm comm);
// Which of the environment variables above gave the local rank ("MPI_COMM_TYPE_SHARED" if none).
std::string node_local_rank_source();

class Runtime {
 public:
  // Initialises MPI (if not yet initialised) and binds the rank to a GPU when space is Device.
  Runtime(int* argc, char*** argv);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Choose the execution space for this run; for Device, selects the GPU of the node-local rank and
  // throws a clear error if this build has no CUDA back end or no GPU is visible.
  void set_space(exec::Space s);
  exec::Space space() const { return space_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int device_id() const { return device_; }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  // One line per rank: "rank 1/2 host h gpu 1 (NVIDIA H200, 0000:...)" gathered to rank 0.
  std::string binding_report() const;

 private:
  bool owns_mpi_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0, device_ = -1;
  exec::Space space_ = exec::Space::Host;
};

}  // namespace tessera
