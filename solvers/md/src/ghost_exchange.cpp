// Per-step forwarding of ghost positions along the recorded send lists (see decomposition.hpp).
//
// Packing and unpacking run in the particles' space (kernels/md ghost_pack). The bytes travel by the
// transport of parallel.transport, with the semantics of the grid solvers (domain/transport.hpp):
// host-staged (device -> pinned host -> MPI -> pinned host -> device; on a CPU run MPI reads the buffers
// directly), CUDA-aware MPI (device pointers to MPI), or NCCL (grouped send/recv on the solver's stream,
// no host synchronisation). Every transport moves the same bytes, so results do not depend on it.
#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/domain/nccl_comm.hpp"
#include "tessera/md/decomposition.hpp"
#include "tessera/md/ghost_pack.hpp"

namespace tessera::md {

void ParticleDecomposition::init_transport() {
  if (transport_ == domain::Transport::Nccl) nccl_ = domain::nccl_comm_for(comm_);
}

void ParticleDecomposition::upload_plan() {
  int64_t nsend = 0, nrecv = 0;
  for (Stage& s : stages_) {
    s.send_off = nsend;
    nsend += int64_t(s.idx.size());
    nrecv += s.nrecv;
  }
  const MemKind mk = default_memkind(ex_.space);
  std::vector<int> idx;
  idx.reserve(std::size_t(nsend));
  for (const Stage& s : stages_) idx.insert(idx.end(), s.idx.begin(), s.idx.end());
  d_idx_ = Buffer<int>(std::max<std::size_t>(idx.size(), 1), mk, "md::ghost_send_idx");
  if (!idx.empty()) copy_n(d_idx_.data(), mk, idx.data(), MemKind::Host, idx.size());
  auto grow = [](Buffer<double>& b, int64_t n, MemKind k, const char* label) {
    if (b.size() < std::size_t(n) || b.kind() != k) b = Buffer<double>(std::size_t(std::max<int64_t>(n, 1)), k, label);
  };
  grow(d_send_, 3 * nsend, mk, "md::ghost_send");
  grow(d_recv_, 3 * nrecv, mk, "md::ghost_recv");
  if (ex_.on_device() && transport_ == domain::Transport::HostStaged) {
    grow(h_send_, 3 * nsend, MemKind::Pinned, "md::ghost_send_host");
    grow(h_recv_, 3 * nrecv, MemKind::Pinned, "md::ghost_recv_host");
  }
}

void ParticleDecomposition::exchange(Stage& s, const double* send, double* recv) {
  const int ns = int(3 * s.idx.size()), nr = int(3 * s.nrecv);
  const int tag = 300 + 4 * s.axis + (s.dir > 0 ? 2 : 0);
  if (transport_ == domain::Transport::Nccl) {
    domain::NcclComm::Op ops[2];
    int n = 0;
    if (s.dest != MPI_PROC_NULL && ns > 0)
      ops[n++] = {true, s.dest, const_cast<double*>(send), std::size_t(ns) * sizeof(double)};
    if (s.src != MPI_PROC_NULL && nr > 0) ops[n++] = {false, s.src, recv, std::size_t(nr) * sizeof(double)};
    nccl_->group(ops, n, ex_.stream);
    return;
  }
  const bool staged = ex_.on_device() && transport_ == domain::Transport::HostStaged;
  exec::fence(ex_);  // the pack kernel must have finished before MPI (or the copy) reads the buffer
  const double* sbuf = send;
  double* rbuf = recv;
  if (staged) {
    if (ns > 0) copy_n(h_send_.data(), MemKind::Pinned, send, MemKind::Device, std::size_t(ns));
    sbuf = h_send_.data();
    rbuf = h_recv_.data();
  }
  const int rc = MPI_Sendrecv(sbuf, ns, MPI_DOUBLE, s.dest, tag, rbuf, nr, MPI_DOUBLE, s.src, tag, comm_,
                              MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) TESSERA_THROW(fmt::format("md: ghost forwarding: MPI_Sendrecv failed (MPI error {})", rc));
  if (staged && nr > 0) copy_n(recv, MemKind::Device, h_recv_.data(), MemKind::Pinned, std::size_t(nr));
}

void ParticleDecomposition::forward(Particles& p, const Box& box) {
  int64_t roff = 0;
  for (Stage& s : stages_) {
    const int64_t m = int64_t(s.idx.size());
    double shift[3] = {0, 0, 0};
    shift[s.axis] = s.shift * box.L[s.axis];
    double* send = d_send_.data() + 3 * s.send_off;
    double* recv = d_recv_.data() + 3 * roff;
    pack_positions(ex_, p, d_idx_.data() + s.send_off, m, shift, send);
    exchange(s, send, recv);
    // A later stage may send ghosts received here: unpack before the next pack (same stream).
    unpack_positions(ex_, p, s.recv_first, s.nrecv, recv);
    roff += s.nrecv;
  }
}

}  // namespace tessera::md
