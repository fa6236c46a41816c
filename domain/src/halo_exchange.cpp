// HaloExchange<T>: pack/unpack kernels (one source for host and device) and the MPI choreography.
#include "tessera/domain/halo_exchange.hpp"

#include "tessera/core/error.hpp"
#include "tessera/domain/direction.hpp"

namespace tessera::domain {

namespace detail {

// The fields of one exchange as seen by a kernel: shared geometry, one pointer per field, and the
// running component count so that a global component q maps to (field f, component q - start[f]).
template <class T>
struct FieldSet {
  T* ptr[HaloExchange<T>::kMaxFields];
  int comp_start[HaloExchange<T>::kMaxFields + 1];
  int nfields;
  int64_t sy, sz, sc;
  Int3 g;

  TESSERA_HD T& at(int q, Int3 p) const {
    int f = 0;
    while (q >= comp_start[f + 1]) ++f;
    return ptr[f][(p.x + g.x) + sy * (p.y + g.y) + sz * (p.z + g.z) + sc * (q - comp_start[f])];
  }
};

// Message layout: [global component q][cell of the box, x fastest].
template <class T>
struct PackOp {
  FieldSet<T> fs;
  Box3 box;
  int64_t vol;
  T* out;
  TESSERA_HD void operator()(int64_t idx) const { out[idx] = fs.at(int(idx / vol), box.cell(idx % vol)); }
};

template <class T>
struct UnpackOp {
  FieldSet<T> fs;
  Box3 box;
  int64_t vol;
  const T* in;
  TESSERA_HD void operator()(int64_t idx) const { fs.at(int(idx / vol), box.cell(idx % vol)) = in[idx]; }
};

// Periodic image of this rank: ghost box <- interior box of the same shape.
template <class T>
struct SelfCopyOp {
  FieldSet<T> fs;
  Box3 dst, src;
  int64_t vol;
  TESSERA_HD void operator()(int64_t idx) const {
    const int q = int(idx / vol);
    const int64_t n = idx % vol;
    fs.at(q, dst.cell(n)) = fs.at(q, src.cell(n));
  }
};

template <class T>
FieldSet<T> make_set(const std::vector<Field<T>*>& fields) {
  FieldSet<T> s{};
  s.nfields = int(fields.size());
  s.comp_start[0] = 0;
  for (int f = 0; f < s.nfields; ++f) {
    FieldView<T> v = fields[size_t(f)]->view();
    s.ptr[f] = v.data;
    s.comp_start[f + 1] = s.comp_start[f] + v.ncomp;
    s.sy = v.sy;
    s.sz = v.sz;
    s.sc = v.sc;
    s.g = v.g;
  }
  for (int f = s.nfields; f < HaloExchange<T>::kMaxFields; ++f) s.comp_start[f + 1] = s.comp_start[s.nfields];
  return s;
}

}  // namespace detail

template <class T>
HaloExchange<T>::HaloExchange(const Decomposition& d, std::vector<Field<T>*> fields, HaloOptions opt)
    : fields_(std::move(fields)), fence_(opt.fence_on_finish) {
  std::vector<FieldShape> shapes;
  for (const Field<T>* f : fields_) {
    TESSERA_REQUIRE(f != nullptr, "null field in a halo exchange");
    shapes.push_back({f->name(), f->box(), f->ghost(), f->kind()});
    ncomp_total_ += f->ncomp();
  }
  if (fields_.empty()) check_halo_fields(d, shapes, kMaxFields, opt.width, exec::Space::Host);  // throws
  const Field<T>& f0 = *fields_[0];
  ex_ = opt.exec ? *opt.exec : exec::Exec(f0.kind() == MemKind::Device ? exec::Space::Device : exec::Space::Host);
  const Int3 width = check_halo_fields(d, shapes, kMaxFields, opt.width, ex_.space);
  plan_ = make_halo_plan(d, f0.extent(), width, ncomp_total_, opt.faces_only);

  const bool dev = ex_.on_device();
  transport_ = resolve_transport(opt.transport, dev);
  staged_through_host_ = dev && transport_ == Transport::HostStaged;
  if (dev) {
    send_dev_ = Buffer<T>(size_t(plan_.send_elems), MemKind::Device, "halo send (device)");
    recv_dev_ = Buffer<T>(size_t(plan_.recv_elems), MemKind::Device, "halo recv (device)");
  }
  if (!dev || staged_through_host_) {
    const MemKind hk = dev ? MemKind::Pinned : MemKind::Host;
    send_host_ = Buffer<T>(size_t(plan_.send_elems), hk, "halo send (host)");
    recv_host_ = Buffer<T>(size_t(plan_.recv_elems), hk, "halo recv (host)");
  }
  send_req_.assign(plan_.remote.size(), MPI_REQUEST_NULL);
  recv_req_.assign(plan_.remote.size(), MPI_REQUEST_NULL);
  halo_check_mpi(MPI_Comm_dup(d.comm(), &comm_), "MPI_Comm_dup");
}

template <class T>
HaloExchange<T>::~HaloExchange() {
  if (in_flight_) wait_all_noexcept();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

template <class T>
void HaloExchange<T>::wait_all_noexcept() noexcept {
  MPI_Waitall(int(recv_req_.size()), recv_req_.data(), MPI_STATUSES_IGNORE);
  MPI_Waitall(int(send_req_.size()), send_req_.data(), MPI_STATUSES_IGNORE);
  in_flight_ = false;
}

template <class T>
void HaloExchange<T>::start() {
  TESSERA_REQUIRE(!in_flight_, "HaloExchange::start() called again before finish()");
  const detail::FieldSet<T> fs = detail::make_set(fields_);
  const bool dev = ex_.on_device();
  T* mpi_send = transport_ == Transport::CudaAware ? send_dev_.data() : send_host_.data();
  T* mpi_recv = transport_ == Transport::CudaAware ? recv_dev_.data() : recv_host_.data();
  T* pack_to = dev ? send_dev_.data() : send_host_.data();
  const auto& remote = plan_.remote;

  for (const HaloMessage& m : remote) {
    const int64_t vol = m.send_box.volume();
    exec::parallel_for(ex_, "domain::halo_pack", vol * ncomp_total_,
                       detail::PackOp<T>{fs, m.send_box, vol, pack_to + m.send_offset});
  }
  if (!remote.empty()) {
    if (staged_through_host_)
      copy_n(send_host_.data(), MemKind::Pinned, send_dev_.data(), MemKind::Device, size_t(plan_.send_elems),
             ex_.stream);
    // MPI reads the send buffers from this host thread; the fence also retires the previous
    // finish()'s unpacks when fence_on_finish is off, before MPI may overwrite the receive buffers.
    exec::fence(ex_);
  }
  // Receives before sends, so that a neighbour's message finds its receive already posted.
  for (size_t i = 0; i < remote.size(); ++i) {
    const HaloMessage& m = remote[i];
    halo_check_mpi(MPI_Irecv(mpi_recv + m.recv_offset, halo_message_bytes(m.cells * ncomp_total_, sizeof(T)),
                                MPI_BYTE, m.peer, dir_opposite(m.dir), comm_, &recv_req_[i]),
                      "MPI_Irecv");
  }
  for (size_t i = 0; i < remote.size(); ++i) {
    const HaloMessage& m = remote[i];
    halo_check_mpi(MPI_Isend(mpi_send + m.send_offset, halo_message_bytes(m.cells * ncomp_total_, sizeof(T)),
                                MPI_BYTE, m.peer, m.dir, comm_, &send_req_[i]),
                      "MPI_Isend");
  }
  // Periodic images of this rank need no message: copy them while the messages travel.
  for (const HaloMessage& m : plan_.self) {
    exec::parallel_for(ex_, "domain::halo_self_copy", m.cells * ncomp_total_,
                       detail::SelfCopyOp<T>{fs, m.recv_box, m.src_box, m.cells});
  }
  in_flight_ = true;
}

template <class T>
void HaloExchange<T>::finish() {
  TESSERA_REQUIRE(in_flight_, "HaloExchange::finish() called without start()");
  const detail::FieldSet<T> fs = detail::make_set(fields_);
  const bool dev = ex_.on_device();
  const T* unpack_from = dev ? recv_dev_.data() : recv_host_.data();
  const auto& remote = plan_.remote;
  // Unpack each message as soon as it arrives.
  for (size_t done = 0; done < remote.size(); ++done) {
    int i = MPI_UNDEFINED;
    halo_check_mpi(MPI_Waitany(int(recv_req_.size()), recv_req_.data(), &i, MPI_STATUS_IGNORE), "MPI_Waitany");
    if (i == MPI_UNDEFINED) break;
    const HaloMessage& m = remote[size_t(i)];
    const int64_t n = m.cells * ncomp_total_;
    if (staged_through_host_)
      copy_n(recv_dev_.data() + m.recv_offset, MemKind::Device, recv_host_.data() + m.recv_offset, MemKind::Pinned,
             size_t(n), ex_.stream);
    exec::parallel_for(ex_, "domain::halo_unpack", n, detail::UnpackOp<T>{fs, m.recv_box, m.cells,
                                                                        unpack_from + m.recv_offset});
  }
  halo_check_mpi(MPI_Waitall(int(send_req_.size()), send_req_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  if (fence_) exec::fence(ex_);
  in_flight_ = false;
}

template class HaloExchange<float>;
template class HaloExchange<double>;
template class HaloExchange<int32_t>;
template class HaloExchange<int64_t>;
template class HaloExchange<uint8_t>;
template class HaloExchange<uint16_t>;

}  // namespace tessera::domain
