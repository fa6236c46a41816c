// HaloTransport: moves the packed messages of one halo exchange between ranks, over any Transport.
//
// Byte-oriented and shared by every exchange in Tessera (domain::HaloExchange for fields, the LBM's
// AA-pattern halo): the caller packs into send_buffer() at each message's send_offset, and unpacks
// from recv_buffer() at its recv_offset. Per exchange, on the stream of `ex`:
//   pack kernels (enqueued) -> post() -> while ((i = next_arrived()) >= 0) unpack message i -> complete()
// Host synchronisation per transport (the only ones in a step):
//   HostStaged : one device->pinned copy of all messages and a stream sync in post() (MPI reads the
//                pinned buffer from this thread); per message, MPI_Waitany then an async pinned->device
//                copy, ordered before the unpack on the stream.
//   CudaAware  : a stream sync in post() (MPI reads device memory); MPI_Waitany per message.
//   Nccl       : none. post() enqueues one ncclGroupStart/ncclSend.../ncclRecv.../ncclGroupEnd on a
//                communication stream of its own, ordered after the pack by an event; next_arrived()
//                makes the solver's stream wait for the group's completion event and hands out every
//                message at once. Kernels enqueued between post() and next_arrived() (the interior
//                update) therefore run concurrently with the transfer.
// Tags: a message carries its sender's tag; the receiver names it as recv_tag. NCCL matches the sends
// and receives between two ranks in posting order, so both are posted sorted by tag.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/core/stream.hpp"
#include "tessera/domain/transport.hpp"

namespace tessera::domain {

struct WireMessage {
  int peer = -1;                 // rank in the communicator (may be this rank)
  int send_tag = 0, recv_tag = 0;
  int64_t send_offset = 0, send_bytes = 0;  // into the send buffer
  int64_t recv_offset = 0, recv_bytes = 0;  // into the receive buffer
};

class NcclComm;  // nccl_comm.hpp

class HaloTransport {
 public:
  HaloTransport() = default;
  // Collective over comm when the resolved transport is NCCL (the communicator is created or shared).
  // `requested` is resolved with resolve_transport(requested, ex.on_device(), comm size).
  HaloTransport(MPI_Comm comm, Transport requested, const exec::Exec& ex, std::vector<WireMessage> msgs,
                int64_t send_bytes, int64_t recv_bytes, const char* label = "halo");
  ~HaloTransport();
  HaloTransport(HaloTransport&&) noexcept;
  HaloTransport& operator=(HaloTransport&&) noexcept;

  // Where pack kernels write and unpack kernels read: memory of the exchange's space.
  unsigned char* send_buffer() { return send_.data(); }
  const unsigned char* recv_buffer() const { return recv_.data(); }
  // After the pack kernels were enqueued on ex.stream: start every message.
  void post();
  // Index of a message whose bytes are (stream-ordered) in recv_buffer(), or -1 when all were handed
  // out. Unpack it on ex.stream.
  int next_arrived();
  // Waits for the sends (MPI); nothing to do for NCCL. Call after the last next_arrived().
  void complete();
  // Waits for everything in flight without throwing (destructors, error paths).
  void abandon() noexcept;

  Transport transport() const { return transport_; }
  const std::vector<WireMessage>& messages() const { return msgs_; }
  bool in_flight() const { return in_flight_; }

 private:
  Transport transport_ = Transport::HostStaged;
  exec::Exec ex_{exec::Space::Host};
  MPI_Comm comm_ = MPI_COMM_NULL;  // a duplicate: its own message space
  std::vector<WireMessage> msgs_;
  std::vector<int> send_order_, recv_order_;  // message indices sorted by tag (NCCL matching)
  Buffer<unsigned char> send_, recv_;          // the exchange's space
  Buffer<unsigned char> h_send_, h_recv_;      // pinned staging (HostStaged with device buffers)
  std::vector<MPI_Request> send_req_, recv_req_;
  std::shared_ptr<NcclComm> nccl_;
  std::unique_ptr<Stream> comm_stream_;          // NCCL: its own stream, so the transfer overlaps
  std::unique_ptr<Event> packed_, arrived_;      // solver stream -> comm stream -> solver stream
  int handed_out_ = 0;
  bool in_flight_ = false;
};

}  // namespace tessera::domain
