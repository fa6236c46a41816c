#include "tessera/domain/nccl_comm.hpp"

#include <fmt/format.h>

#include <mutex>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/domain/transport.hpp"

#if defined(TESSERA_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::domain {

#if defined(TESSERA_HAVE_NCCL)
namespace {
void nccl_check(ncclResult_t r, const char* call) {
  if (r != ncclSuccess)
    TESSERA_THROW(fmt::format("{} failed: {} ({}); NCCL_DEBUG=WARN in the environment prints why", call,
                              ncclGetErrorString(r), int(r)));
}
}  // namespace

NcclComm::NcclComm(MPI_Comm comm) {
  MPI_Comm_dup(comm, &mpi_);
  int rank = 0, size = 1;
  MPI_Comm_rank(mpi_, &rank);
  MPI_Comm_size(mpi_, &size);
  ncclUniqueId id{};
  if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, int(sizeof(id)), MPI_BYTE, 0, mpi_);
  ncclComm_t c = nullptr;
  nccl_check(ncclCommInitRank(&c, size, id, rank), "ncclCommInitRank");
  comm_ = c;
}

NcclComm::~NcclComm() {
  if (comm_) (void)ncclCommDestroy(static_cast<ncclComm_t>(comm_));
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (mpi_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&mpi_);
}

void NcclComm::group(const Op* ops, int n, void* stream) const {
  const auto c = static_cast<ncclComm_t>(comm_);
  const auto st = static_cast<cudaStream_t>(stream);
  nccl_check(ncclGroupStart(), "ncclGroupStart");
  for (int i = 0; i < n; ++i) {
    const Op& o = ops[i];
    if (o.send)
      nccl_check(ncclSend(o.ptr, o.bytes, ncclUint8, o.peer, c, st), "ncclSend");
    else
      nccl_check(ncclRecv(o.ptr, o.bytes, ncclUint8, o.peer, c, st), "ncclRecv");
  }
  nccl_check(ncclGroupEnd(), "ncclGroupEnd");
}
#else
NcclComm::NcclComm(MPI_Comm) { resolve_transport(Transport::Nccl, true); }  // throws the build hint
NcclComm::~NcclComm() = default;
void NcclComm::group(const Op*, int, void*) const {}
#endif

std::shared_ptr<NcclComm> nccl_comm_for(MPI_Comm comm) {
  static std::mutex mu;
  static std::vector<std::weak_ptr<NcclComm>> cache;
  std::lock_guard<std::mutex> lock(mu);
  // Every rank of comm makes the same calls in the same order, so they find (or miss) the same entry.
  for (auto& w : cache)
    if (auto p = w.lock()) {
      int cmp = MPI_UNEQUAL;
      MPI_Comm_compare(p->mpi(), comm, &cmp);
      if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) return p;
    }
  std::erase_if(cache, [](const std::weak_ptr<NcclComm>& w) { return w.expired(); });
  auto p = std::make_shared<NcclComm>(comm);
  cache.push_back(p);
  return p;
}

}  // namespace tessera::domain
