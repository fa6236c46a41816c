// HaloExchange<T>: fills the ghost cells of a set of fields from the ranks that own them.
//
// Planned once (collective over the decomposition's ranks), then per step:
//   halo.start();      // post receives, pack (one fused kernel per neighbour over all fields), send
//   ...interior work that reads no ghost cell...
//   halo.finish();     // wait, unpack each message as it arrives
// Faces, edges and corners (26 directions), or faces only. Ghost cells beyond a wall are never
// written. Transports (see transport.hpp, halo_transport.hpp) give identical results. Fields in one exchange must have
// the same box and ghost widths (their component counts may differ) and be accessible from the
// exchange's execution space. The exchange keeps pointers to the Field objects (not to their
// memory), so swapping two fields' contents between steps is fine; the fields must outlive it.
#pragma once
#include <mpi.h>

#include <optional>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/domain/decomposition.hpp"
#include "tessera/domain/field.hpp"
#include "tessera/domain/halo_plan.hpp"
#include "tessera/domain/halo_transport.hpp"
#include "tessera/domain/transport.hpp"

namespace tessera::domain {

struct HaloOptions {
  Transport transport = Transport::HostStaged;  // resolved at construction (see transport.hpp)
  bool faces_only = false;
  int width = -1;  // ghost cells to exchange; -1 = the fields' ghost width
  // Space and stream of the pack/unpack kernels. Unset: the device for fields in device memory,
  // the host otherwise.
  std::optional<exec::Exec> exec;
  // finish() waits for the unpack kernels. Turn off when later work runs on the same stream (then the
  // NCCL transport synchronises nothing on the host).
  bool fence_on_finish = true;
};

template <class T>
class HaloExchange {
 public:
  static constexpr int kMaxFields = 16;

  HaloExchange(const Decomposition& d, std::vector<Field<T>*> fields, HaloOptions opt = {});
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  void start();
  void finish();
  void exchange() {
    start();
    finish();
  }

  Transport transport() const { return wire_.transport(); }  // after resolution
  const exec::Exec& exec() const { return ex_; }
  bool in_flight() const { return wire_.in_flight(); }
  const HaloPlan& plan() const { return plan_; }
  int64_t bytes_per_exchange() const { return plan_.send_elems * int64_t(sizeof(T)); }

 private:
  std::vector<Field<T>*> fields_;
  int ncomp_total_ = 0;
  exec::Exec ex_;
  bool fence_ = true;
  HaloPlan plan_;
  HaloTransport wire_;  // staging buffers and the messages (elements of T, offsets in bytes)
};

extern template class HaloExchange<float>;
extern template class HaloExchange<double>;
extern template class HaloExchange<int32_t>;
extern template class HaloExchange<int64_t>;
extern template class HaloExchange<uint8_t>;
extern template class HaloExchange<uint16_t>;

}  // namespace tessera::domain
