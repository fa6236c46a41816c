// The md transport: every message of a decomposed md run -- migration at a rebuild, ghost construction,
// and the per-step forwarding of ghost positions -- moves through transfer() (see decomposition.hpp).
//
// Packing and unpacking run in the particles' space (kernels/md migrate.hpp, ghost_pack.hpp). The bytes
// travel by the transport of parallel.transport, with the semantics of the grid solvers
// (domain/transport.hpp): host-staged (device -> pinned host -> MPI -> pinned host -> device; on a CPU run
// MPI reads the buffers directly), CUDA-aware MPI (device pointers to MPI), or NCCL (one grouped
// send/receive per exchange on the solver's stream, no host synchronisation). Every transport moves the
// same bytes, so results do not depend on it.
//
// Why not domain::HaloTransport (which lbm and weather use): it fixes its message list and allocates its
// staging buffers (and, for MPI, duplicates the communicator) when it is constructed, for exchanges whose
// sizes never change. md's messages change length at every neighbour-list rebuild (migration counts,
// ghost counts) and are only known after a count exchange; a HaloTransport per rebuild and axis would
// allocate device and pinned memory and call MPI_Comm_dup (collective) a dozen times per rebuild. And
// md's stages are sequential (the y exchange forwards ghosts the x exchange brought), while HaloTransport
// posts all messages of an exchange at once. So md keeps this one transport for all of its messages,
// with buffers that only grow.
#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/domain/nccl_comm.hpp"
#include "tessera/md/decomposition.hpp"
#include "tessera/md/ghost_pack.hpp"

namespace tessera::md {

namespace {
void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) TESSERA_THROW(fmt::format("md: {} failed (MPI error {})", what, rc));
}
int mpi_count(int64_t n) {
  if (n >= (int64_t(1) << 31))
    TESSERA_THROW(fmt::format("md: a message of {} values exceeds MPI's int count; run on more ranks", n));
  return int(n);
}
void grow(Buffer<double>& b, int64_t n, MemKind k, const char* label) {
  if (b.size() < std::size_t(n) || b.kind() != k) b = Buffer<double>(std::size_t(std::max<int64_t>(n + n / 4, 1)), k, label);
}
}  // namespace

void ParticleDecomposition::init_transport() {
  if (transport_ == domain::Transport::Nccl) nccl_ = domain::nccl_comm_for(comm_);
}

void ParticleDecomposition::exchange_counts(Msg* m, int k) {
  long long ns[2], nr[2] = {0, 0};
  MPI_Request req[4];
  int q = 0;
  TESSERA_REQUIRE(k <= 2, "md: exchange_counts takes at most two messages");
  for (int i = 0; i < k; ++i) {
    ns[i] = (long long)m[i].ns;
    check_mpi(MPI_Irecv(&nr[i], 1, MPI_LONG_LONG, m[i].src, m[i].tag, comm_, &req[q++]), "MPI_Irecv (count)");
  }
  for (int i = 0; i < k; ++i)
    check_mpi(MPI_Isend(&ns[i], 1, MPI_LONG_LONG, m[i].dest, m[i].tag, comm_, &req[q++]), "MPI_Isend (count)");
  check_mpi(MPI_Waitall(q, req, MPI_STATUSES_IGNORE), "MPI_Waitall (count)");
  for (int i = 0; i < k; ++i) m[i].nr = m[i].src == MPI_PROC_NULL ? 0 : int64_t(nr[i]);
}

void ParticleDecomposition::transfer(const Msg* m, int k) {
  if (transport_ == domain::Transport::Nccl) {
    std::vector<domain::NcclComm::Op> ops;
    for (int i = 0; i < k; ++i)
      if (m[i].dest != MPI_PROC_NULL && m[i].ns > 0)
        ops.push_back({true, m[i].dest, const_cast<double*>(m[i].send), std::size_t(m[i].ns) * sizeof(double)});
    for (int i = 0; i < k; ++i)
      if (m[i].src != MPI_PROC_NULL && m[i].nr > 0)
        ops.push_back({false, m[i].src, m[i].recv, std::size_t(m[i].nr) * sizeof(double)});
    if (!ops.empty()) nccl_->group(ops.data(), int(ops.size()), ex_.stream);
    return;
  }
  const bool staged = ex_.on_device() && transport_ == domain::Transport::HostStaged;
  int64_t ts = 0, tr = 0;
  for (int i = 0; i < k; ++i) ts += m[i].ns, tr += m[i].nr;
  if (staged) {
    grow(h_send_, ts, MemKind::Pinned, "md::send_host");
    grow(h_recv_, tr, MemKind::Pinned, "md::recv_host");
    int64_t o = 0;
    for (int i = 0; i < k; ++i) {
      if (m[i].ns > 0) copy_n(h_send_.data() + o, MemKind::Pinned, m[i].send, MemKind::Device, std::size_t(m[i].ns), ex_.stream);
      o += m[i].ns;
    }
  }
  exec::fence(ex_);  // the pack kernels (and copies) must have finished before MPI reads the buffers
  std::vector<MPI_Request> req;
  req.reserve(std::size_t(2 * k));
  int64_t so = 0, ro = 0;
  for (int i = 0; i < k; ++i) {
    double* r = staged ? h_recv_.data() + ro : m[i].recv;
    req.emplace_back();
    check_mpi(MPI_Irecv(r, mpi_count(m[i].nr), MPI_DOUBLE, m[i].src, m[i].tag, comm_, &req.back()), "MPI_Irecv");
    ro += m[i].nr;
  }
  for (int i = 0; i < k; ++i) {
    const double* s = staged ? h_send_.data() + so : m[i].send;
    req.emplace_back();
    check_mpi(MPI_Isend(s, mpi_count(m[i].ns), MPI_DOUBLE, m[i].dest, m[i].tag, comm_, &req.back()), "MPI_Isend");
    so += m[i].ns;
  }
  check_mpi(MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  if (staged) {
    int64_t o = 0;
    for (int i = 0; i < k; ++i) {
      if (m[i].nr > 0) copy_n(m[i].recv, MemKind::Device, h_recv_.data() + o, MemKind::Pinned, std::size_t(m[i].nr), ex_.stream);
      o += m[i].nr;
    }
  }
}

void ParticleDecomposition::forward(Particles& p, const Box& box) {
  ++stats_.forwards;
  int64_t roff = 0;
  // Both stages of an axis read candidates that precede the axis's ghosts: one pack kernel, one exchange
  // and one unpack kernel per axis.
  for (std::size_t a = 0; a < stages_.size(); a += 2) {
    Msg m[2];
    GhostSend snd[2];
    GhostRecv rcv[2];
    const int k = a + 1 < stages_.size() ? 2 : 1;
    for (int j = 0; j < k; ++j) {
      const Stage& s = stages_[a + std::size_t(j)];
      snd[j].idx = d_idx_.data() + s.send_off;
      snd[j].m = s.nsend;
      snd[j].shift[s.axis] = s.shift * box.L[s.axis];
      snd[j].buf = d_send_.data() + 3 * s.send_off;
      rcv[j] = GhostRecv{s.recv_first, s.nrecv, d_recv_.data() + 3 * roff};
      m[j] = Msg{s.dest, snd[j].buf, 3 * s.nsend, s.src, d_recv_.data() + 3 * roff, 3 * s.nrecv,
                 300 + 4 * s.axis + (s.dir > 0 ? 2 : 0)};
      roff += s.nrecv;
    }
    pack_positions(ex_, p, snd, k);
    transfer(m, k);
    // A later axis may send ghosts received here: unpack before its pack (same stream).
    unpack_positions(ex_, p, rcv, k);
  }
}

}  // namespace tessera::md
