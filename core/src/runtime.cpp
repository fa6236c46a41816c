#include "tessera/core/runtime.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/core/device.hpp"
#include "tessera/core/log.hpp"

namespace tessera {

namespace {
const char* const kLocalRankVars[] = {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                      "MV2_COMM_WORLD_LOCAL_RANK"};
}

std::string node_local_rank_source() {
  for (const char* v : kLocalRankVars)
    if (std::getenv(v)) return v;
  return "MPI_COMM_TYPE_SHARED";
}

int node_local_rank(MPI_Comm comm) {
  for (const char* v : kLocalRankVars)
    if (const char* s = std::getenv(v)) return std::atoi(s);
  MPI_Comm shared;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  int r = 0;
  MPI_Comm_rank(shared, &r);
  MPI_Comm_free(&shared);
  return r;
}

Runtime::Runtime(int* argc, char*** argv) {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    // Open MPI 4.1's default MPI-IO component (OMPIO) was seen to corrupt collective parallel-HDF5 writes
    // on 3-4 ranks; ROMIO wrote them correctly. Prefer ROMIO unless the user chose otherwise.
    setenv("OMPI_MCA_io", "romio321", 0);
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    owns_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  local_rank_ = node_local_rank(MPI_COMM_WORLD);
  log::set_rank(rank_);
}

Runtime::~Runtime() {
  if (owns_mpi_) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
  }
}

void Runtime::set_space(exec::Space s) {
  space_ = s;
  if (s == exec::Space::Device) device_ = device::select_for_local_rank(local_rank_);
}

std::string Runtime::binding_report() const {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string line = "rank " + std::to_string(rank_) + "/" + std::to_string(size_) + " on " + host + " (local rank " +
                     std::to_string(local_rank_) + " from " + node_local_rank_source() + "): ";
  if (space_ == exec::Space::Device) {
    const auto inf = device::info(device_);
    const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
    line += "GPU " + std::to_string(device_) + " " + inf.name + " [" + inf.pci_bus_id + "]" +
            (vis ? std::string(" CUDA_VISIBLE_DEVICES=") + vis : std::string());
  } else {
    line += "CPU";
  }
  // Gather the lines to rank 0.
  int len = int(line.size());
  std::vector<int> lens(static_cast<size_t>(size_));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> displs(size_t(size_), 0);
  int total = 0;
  for (int i = 0; i < size_; ++i) {
    displs[size_t(i)] = total;
    total += lens[size_t(i)];
  }
  std::string all(size_t(rank_ == 0 ? total : 0), '\0');
  MPI_Gatherv(line.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return {};
  std::string out;
  for (int i = 0; i < size_; ++i) out += all.substr(size_t(displs[size_t(i)]), size_t(lens[size_t(i)])) + "\n";
  return out;
}

}  // namespace tessera
