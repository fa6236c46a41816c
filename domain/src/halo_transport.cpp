#include "tessera/domain/halo_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <climits>

#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"
#include "tessera/domain/halo_plan.hpp"
#include "tessera/domain/nccl_comm.hpp"

namespace tessera::domain {

namespace {
int mpi_bytes(int64_t b) {
  if (b > int64_t(INT_MAX))
    TESSERA_THROW(fmt::format("halo message of {} bytes exceeds MPI's int count; use more ranks, fewer fields per "
                              "exchange, or a smaller ghost width",
                              b));
  return int(b);
}
}  // namespace

HaloTransport::HaloTransport(MPI_Comm comm, Transport requested, const exec::Exec& ex, std::vector<WireMessage> msgs,
                             int64_t send_bytes, int64_t recv_bytes, const char* label)
    : ex_(ex), msgs_(std::move(msgs)) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  const bool dev = ex_.on_device();
  transport_ = resolve_transport(requested, dev, nranks);
  // NCCL needs one GPU per rank; with ranks sharing a GPU, 'auto' takes the next choice and an explicit
  // request is an error that says what to do (collective: every rank constructs the transport together).
  if (transport_ == Transport::Nccl && !gpus_distinct(comm)) {
    if (requested == Transport::Nccl)
      TESSERA_THROW(fmt::format("{}: halo transport 'nccl' needs one GPU per rank, but some of the {} ranks share "
                                "a GPU: run one rank per GPU (e.g. srun --gpus-per-task=1), or set "
                                "parallel.transport to host, cuda_aware or auto",
                                label, nranks));
    transport_ = mpi_cuda_aware() ? Transport::CudaAware : Transport::HostStaged;
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      log::warn("halo transport 'auto': ranks share GPUs, so NCCL is not used; halos go through {}",
                to_string(transport_));
  }
  for (const WireMessage& m : msgs_)
    TESSERA_REQUIRE(m.send_offset + m.send_bytes <= send_bytes && m.recv_offset + m.recv_bytes <= recv_bytes,
                    std::string(label) + ": a message lies outside its staging buffer");
  const MemKind mk = dev ? MemKind::Device : MemKind::Host;
  send_ = Buffer<unsigned char>(size_t(send_bytes), mk, label);
  recv_ = Buffer<unsigned char>(size_t(recv_bytes), mk, label);
  if (dev && transport_ == Transport::HostStaged) {
    h_send_ = Buffer<unsigned char>(size_t(send_bytes), MemKind::Pinned, label);
    h_recv_ = Buffer<unsigned char>(size_t(recv_bytes), MemKind::Pinned, label);
  }
  const int n = int(msgs_.size());
  for (int i = 0; i < n; ++i) send_order_.push_back(i), recv_order_.push_back(i);
  std::stable_sort(send_order_.begin(), send_order_.end(),
                   [&](int a, int b) { return msgs_[size_t(a)].send_tag < msgs_[size_t(b)].send_tag; });
  std::stable_sort(recv_order_.begin(), recv_order_.end(),
                   [&](int a, int b) { return msgs_[size_t(a)].recv_tag < msgs_[size_t(b)].recv_tag; });
  send_req_.assign(size_t(n), MPI_REQUEST_NULL);
  recv_req_.assign(size_t(n), MPI_REQUEST_NULL);
  if (transport_ == Transport::Nccl) {
    nccl_ = nccl_comm_for(comm);
    // High priority: the NCCL kernel gets SMs while the interior update fills the GPU (overlap).
    comm_stream_ = std::make_unique<Stream>(exec::Space::Device, Stream::Priority::High);
    packed_ = std::make_unique<Event>(exec::Space::Device);
    arrived_ = std::make_unique<Event>(exec::Space::Device);
  } else
    halo_check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
}

HaloTransport::~HaloTransport() {
  abandon();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

HaloTransport::HaloTransport(HaloTransport&& o) noexcept { *this = std::move(o); }

HaloTransport& HaloTransport::operator=(HaloTransport&& o) noexcept {
  if (this == &o) return *this;
  abandon();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  transport_ = o.transport_;
  ex_ = o.ex_;
  comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
  msgs_ = std::move(o.msgs_);
  send_order_ = std::move(o.send_order_);
  recv_order_ = std::move(o.recv_order_);
  send_ = std::move(o.send_);
  recv_ = std::move(o.recv_);
  h_send_ = std::move(o.h_send_);
  h_recv_ = std::move(o.h_recv_);
  send_req_ = std::move(o.send_req_);
  recv_req_ = std::move(o.recv_req_);
  nccl_ = std::move(o.nccl_);
  comm_stream_ = std::move(o.comm_stream_);
  packed_ = std::move(o.packed_);
  arrived_ = std::move(o.arrived_);
  handed_out_ = o.handed_out_;
  in_flight_ = std::exchange(o.in_flight_, false);
  return *this;
}

void HaloTransport::post() {
  TESSERA_REQUIRE(!in_flight_, "halo transport: post() called again before complete()");
  handed_out_ = 0;
  in_flight_ = true;
  if (msgs_.empty()) return;
  if (transport_ == Transport::Nccl) {
    std::vector<NcclComm::Op> ops;
    ops.reserve(2 * msgs_.size());
    for (int i : recv_order_) {
      const WireMessage& m = msgs_[size_t(i)];
      ops.push_back({false, m.peer, recv_.data() + m.recv_offset, size_t(m.recv_bytes)});
    }
    for (int i : send_order_) {
      const WireMessage& m = msgs_[size_t(i)];
      ops.push_back({true, m.peer, send_.data() + m.send_offset, size_t(m.send_bytes)});
    }
    packed_->record(ex_.stream);             // the pack kernels are done ...
    packed_->wait_on(comm_stream_->handle());  // ... before NCCL reads the send buffer
    nccl_->group(ops.data(), int(ops.size()), comm_stream_->handle());
    arrived_->record(comm_stream_->handle());
    return;
  }
  const bool staged = ex_.on_device() && transport_ == Transport::HostStaged;
  if (staged)
    copy_n(h_send_.data(), MemKind::Pinned, send_.data(), MemKind::Device, send_.size(), ex_.stream);
  // MPI reads the send buffer from this thread: the pack (and copy) must be done. The same fence
  // retires the previous exchange's unpacks before MPI may overwrite the receive buffer.
  exec::fence(ex_);
  unsigned char* sbuf = staged ? h_send_.data() : send_.data();
  unsigned char* rbuf = staged ? h_recv_.data() : recv_.data();
  // Receives before sends, so that a neighbour's message finds its receive already posted.
  for (int i : recv_order_) {
    const WireMessage& m = msgs_[size_t(i)];
    halo_check_mpi(MPI_Irecv(rbuf + m.recv_offset, mpi_bytes(m.recv_bytes), MPI_BYTE, m.peer, m.recv_tag, comm_,
                             &recv_req_[size_t(i)]),
                   "MPI_Irecv");
  }
  for (int i : send_order_) {
    const WireMessage& m = msgs_[size_t(i)];
    halo_check_mpi(MPI_Isend(sbuf + m.send_offset, mpi_bytes(m.send_bytes), MPI_BYTE, m.peer, m.send_tag, comm_,
                             &send_req_[size_t(i)]),
                   "MPI_Isend");
  }
}

int HaloTransport::next_arrived() {
  TESSERA_REQUIRE(in_flight_, "halo transport: next_arrived() without post()");
  if (handed_out_ >= int(msgs_.size())) return -1;
  if (transport_ == Transport::Nccl) {
    // Unpacks on the solver's stream wait for the whole group; then every message is "there".
    if (handed_out_ == 0) arrived_->wait_on(ex_.stream);
    return handed_out_++;
  }
  int i = MPI_UNDEFINED;
  halo_check_mpi(MPI_Waitany(int(recv_req_.size()), recv_req_.data(), &i, MPI_STATUS_IGNORE), "MPI_Waitany");
  if (i == MPI_UNDEFINED) return -1;
  ++handed_out_;
  if (ex_.on_device() && transport_ == Transport::HostStaged) {
    const WireMessage& m = msgs_[size_t(i)];
    copy_n(recv_.data() + m.recv_offset, MemKind::Device, h_recv_.data() + m.recv_offset, MemKind::Pinned,
           size_t(m.recv_bytes), ex_.stream);
  }
  return i;
}

void HaloTransport::complete() {
  TESSERA_REQUIRE(in_flight_, "halo transport: complete() without post()");
  if (transport_ == Transport::Nccl && handed_out_ == 0 && !msgs_.empty())
    arrived_->wait_on(ex_.stream);  // nothing was unpacked: still order later work after the group
  if (transport_ != Transport::Nccl) {
    halo_check_mpi(MPI_Waitall(int(recv_req_.size()), recv_req_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    halo_check_mpi(MPI_Waitall(int(send_req_.size()), send_req_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  in_flight_ = false;
}

void HaloTransport::abandon() noexcept {
  if (!in_flight_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && transport_ != Transport::Nccl) {
    MPI_Waitall(int(recv_req_.size()), recv_req_.data(), MPI_STATUSES_IGNORE);
    MPI_Waitall(int(send_req_.size()), send_req_.data(), MPI_STATUSES_IGNORE);
  }
  in_flight_ = false;
}

}  // namespace tessera::domain
