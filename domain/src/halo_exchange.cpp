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
  // Tags: a message carries its sender's direction, so the receive for ghost side `dir` expects the
  // opposite direction (see halo_plan.hpp).
  std::vector<WireMessage> wm;
  const int64_t sz = int64_t(sizeof(T));
  for (const HaloMessage& m : plan_.remote)
    wm.push_back({m.peer, m.dir, dir_opposite(m.dir), m.send_offset * sz, m.send_box.volume() * ncomp_total_ * sz,
                  m.recv_offset * sz, m.cells * ncomp_total_ * sz});
  wire_ = HaloTransport(d.comm(), opt.transport, ex_, std::move(wm), plan_.send_elems * sz, plan_.recv_elems * sz,
                        "domain::halo");
}

template <class T>
HaloExchange<T>::~HaloExchange() = default;

template <class T>
void HaloExchange<T>::start() {
  TESSERA_REQUIRE(!wire_.in_flight(), "HaloExchange::start() called again before finish()");
  const detail::FieldSet<T> fs = detail::make_set(fields_);
  T* pack_to = reinterpret_cast<T*>(wire_.send_buffer());
  // One fused pack kernel per neighbour over all fields of the exchange.
  for (const HaloMessage& m : plan_.remote) {
    const int64_t vol = m.send_box.volume();
    exec::parallel_for(ex_, "domain::halo_pack", vol * ncomp_total_,
                       detail::PackOp<T>{fs, m.send_box, vol, pack_to + m.send_offset});
  }
  wire_.post();
  // Periodic images of this rank need no message: copy them while the messages travel.
  for (const HaloMessage& m : plan_.self) {
    exec::parallel_for(ex_, "domain::halo_self_copy", m.cells * ncomp_total_,
                       detail::SelfCopyOp<T>{fs, m.recv_box, m.src_box, m.cells});
  }
}

template <class T>
void HaloExchange<T>::finish() {
  TESSERA_REQUIRE(wire_.in_flight(), "HaloExchange::finish() called without start()");
  const detail::FieldSet<T> fs = detail::make_set(fields_);
  const T* unpack_from = reinterpret_cast<const T*>(wire_.recv_buffer());
  // Unpack each message as soon as it arrives (one fused kernel per neighbour).
  for (int i = wire_.next_arrived(); i >= 0; i = wire_.next_arrived()) {
    const HaloMessage& m = plan_.remote[size_t(i)];
    exec::parallel_for(ex_, "domain::halo_unpack", m.cells * ncomp_total_,
                       detail::UnpackOp<T>{fs, m.recv_box, m.cells, unpack_from + m.recv_offset});
  }
  wire_.complete();
  if (fence_) exec::fence(ex_);
}

template class HaloExchange<float>;
template class HaloExchange<double>;
template class HaloExchange<int32_t>;
template class HaloExchange<int64_t>;
template class HaloExchange<uint8_t>;
template class HaloExchange<uint16_t>;

}  // namespace tessera::domain
