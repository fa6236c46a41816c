#include "tessera/lbm/solver/aa_halo.hpp"

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::lbm {

namespace {

// Copies slot q of a box of cells to / from a contiguous buffer (elements of type E).
template <class E>
struct BoxCopy {
  E* pops;
  E* buf;
  int64_t n;          // padded cells
  int64_t px, py;     // padded extents
  int64_t lo0, lo1, lo2, n0, n1;
  int q;
  int64_t base;       // element offset in buf
  bool pack;
  const uint8_t* flags;  // unpack only: skip cells whose population came from a non-fluid cell
  int64_t src_off;       // offset from the cell to that source cell
  TESSERA_HD void operator()(int64_t i, int64_t j, int64_t k) const {
    const int64_t c = (lo0 + i) + px * ((lo1 + j) + py * (lo2 + k));
    const int64_t b = base + i + n0 * (j + n1 * k);
    if (flags && !is_fluid(flags[c - src_off])) return;
    if (pack)
      buf[b] = pops[q * n + c];
    else
      pops[q * n + c] = buf[b];
  }
};

template <class E>
void box_copy(const exec::Exec& ex, LatticeState& s, unsigned char* buf, const int64_t lo[3], const int64_t n[3],
              int q, int64_t elem_offset, bool pack, const uint8_t* flags, int64_t src_off) {
  const GridLayout& g = s.grid();
  BoxCopy<E> f{static_cast<E*>(s.pops()), reinterpret_cast<E*>(buf), g.cells(), g.px(), g.py(), lo[0], lo[1], lo[2],
               n[0], n[1], q, elem_offset, pack, flags, src_off};
  if (!ex.on_device() && n[0] * n[1] * n[2] < (int64_t(1) << 16)) {
    // Small halo slabs on the host: a plain loop beats waking an OpenMP team per slot.
    for (int64_t k = 0; k < n[2]; ++k)
      for (int64_t j = 0; j < n[1]; ++j)
        for (int64_t i = 0; i < n[0]; ++i) f(i, j, k);
    return;
  }
  exec::parallel_for(ex, pack ? "lbm::halo_pack" : "lbm::halo_unpack", exec::Range3{n[0], n[1], n[2]}, f);
}

void box_copy_any(const exec::Exec& ex, LatticeState& s, unsigned char* buf, const int64_t lo[3], const int64_t n[3],
                  int q, int64_t elem_offset, bool pack, const uint8_t* flags = nullptr, int64_t src_off = 0) {
  switch (precision_bytes(s.precision())) {
    case 8: box_copy<uint64_t>(ex, s, buf, lo, n, q, elem_offset, pack, flags, src_off); break;
    case 4: box_copy<uint32_t>(ex, s, buf, lo, n, q, elem_offset, pack, flags, src_off); break;
    default: box_copy<uint16_t>(ex, s, buf, lo, n, q, elem_offset, pack, flags, src_off); break;
  }
}

int lattice_c(LatticeKind k, int q, int a) {
  switch (k) {
    case LatticeKind::D2Q9: return D2Q9::c(q, a);
    case LatticeKind::D3Q19: return D3Q19::c(q, a);
    default: return D3Q27::c(q, a);
  }
}

}  // namespace

AAHalo::AAHalo(const Partition& part, const LatticeState& s, const exec::Exec& ex, domain::Transport transport) {
  const GridLayout& g = s.grid();
  const int64_t ext[3] = {g.nx, g.ny, g.nz};
  const int gh[3] = {1, 1, g.gz};
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int e[3] = {dx, dy, dz};
        if ((dx | dy | dz) == 0 || (dz != 0 && g.gz == 0)) continue;
        const int nb = part.neighbor[size_t(dir_index3(dx, dy, dz))];
        if (nb == MPI_PROC_NULL) continue;
        Region r{};
        r.dir = dir_index3(dx, dy, dz);
        r.neighbor = nb;
        for (int a = 0; a < 3; ++a) {
          // padded coordinates: ghosts at 0 and ext+1 (z: only with gz), interior [gh, ext+gh)
          if (e[a] < 0) {
            r.lo[a] = 0, r.n[a] = 1, r.blo[a] = gh[a];
          } else if (e[a] > 0) {
            r.lo[a] = ext[a] + gh[a], r.n[a] = 1, r.blo[a] = ext[a] + gh[a] - 1;
          } else {
            r.lo[a] = gh[a], r.n[a] = ext[a], r.blo[a] = gh[a];
          }
        }
        for (int q = 1; q < s.q(); ++q) {
          bool fwd = true, rev = true;
          for (int a = 0; a < 3; ++a)
            if (e[a] != 0) {
              fwd = fwd && lattice_c(s.lattice(), q, a) == -e[a];
              rev = rev && lattice_c(s.lattice(), q, a) == e[a];
            }
          if (fwd) r.q_fwd.push_back(opposite(q));
          if (rev) r.q_rev.push_back(q);
        }
        if (r.q_fwd.empty()) continue;  // e.g. D3Q19 corners
        regions_.push_back(r);
      }
  // Message sizes per direction: what the sender packs (both sides move the same populations over
  // the same cells, so the receiver expects exactly that many bytes).
  const int64_t bytes = precision_bytes(s.precision());
  for (int fwd = 0; fwd < 2; ++fwd) {
    std::vector<domain::WireMessage> wm;
    int64_t total = 0;
    for (const Region& r : regions_) {
      int64_t vals = 0;
      for (int q : r.q_rev) {
        int64_t lo[3], n[3];
        sub_box(r, s, q, fwd == 1, fwd == 0, lo, n);
        vals += n[0] * n[1] * n[2];
      }
      // The message sent toward direction e arrives at the neighbour from its direction -e: tag by e.
      wm.push_back({r.neighbor, r.dir, 26 - r.dir, total, vals * bytes, total, vals * bytes});
      total += vals * bytes;
    }
    wire_[fwd] = domain::HaloTransport(part.comm, transport, ex, std::move(wm), total, total,
                                       fwd ? "lbm::halo_forward" : "lbm::halo_reverse");
  }
}

int64_t AAHalo::values_per_exchange(bool forward) const {
  int64_t v = 0;
  for (const Region& r : regions_) v += int64_t(forward ? r.q_fwd.size() : r.q_rev.size()) * r.n[0] * r.n[1] * r.n[2];
  return v;
}


// The cells of region r that carry population q (c_q = e on the region's non-zero axes). Along an
// axis where e_a = 0 and c_q,a != 0 one end of the range is dropped: there the population would come
// from (reverse) or go to (forward) a ghost cell of another region, which the edge and corner regions
// handle. Without this, a ghost value that no cell wrote would overwrite a bounced-back population.
void AAHalo::sub_box(const Region& r, const LatticeState& s, int q, bool forward, bool ghost_side, int64_t lo[3],
                     int64_t n[3]) const {
  const int e[3] = {r.dir % 3 - 1, (r.dir / 3) % 3 - 1, r.dir / 9 - 1};
  for (int a = 0; a < 3; ++a) {
    lo[a] = ghost_side ? r.lo[a] : r.blo[a];
    n[a] = r.n[a];
    const int c = lattice_c(s.lattice(), q, a);
    if (e[a] != 0 || c == 0) continue;
    n[a] -= 1;
    if ((!forward && c > 0) || (forward && c < 0)) lo[a] += 1;
  }
}

std::array<std::array<bool, 2>, 3> AAHalo::exchanging_sides() const {
  std::array<std::array<bool, 2>, 3> sides{};
  for (const Region& r : regions_) {
    const int e[3] = {r.dir % 3 - 1, (r.dir / 3) % 3 - 1, r.dir / 9 - 1};
    for (int a = 0; a < 3; ++a)
      if (e[a] != 0) sides[size_t(a)][e[a] < 0 ? 0 : 1] = true;
  }
  return sides;
}

void AAHalo::start(const exec::Exec& ex, LatticeState& s, bool forward) {
  TESSERA_REQUIRE(!wire_[0].in_flight() && !wire_[1].in_flight(), "AAHalo::start() twice without finish()");
  forward_ = forward;
  domain::HaloTransport& w = wire_[forward ? 1 : 0];
  // Pack. The message toward the neighbour at e carries, for every q with c_q = e on the non-zero
  // axes (q_rev of region e, increasing q):
  //   forward: slot opp(q) of my boundary slab e (it becomes the neighbour's ghost region -e)
  //   reverse: slot q of my ghost region e (it belongs to the neighbour's boundary slab -e)
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = regions_[i];
    const domain::WireMessage& m = w.messages()[i];
    int64_t k = 0;
    for (int q : r.q_rev) {
      int64_t lo[3], n[3];
      sub_box(r, s, q, forward, !forward, lo, n);
      box_copy_any(ex, s, w.send_buffer() + m.send_offset, lo, n, forward ? opposite(q) : q, k, true);
      k += n[0] * n[1] * n[2];
    }
  }
  w.post();
}

void AAHalo::finish(const exec::Exec& ex, LatticeState& s) {
  const bool forward = forward_;
  domain::HaloTransport& w = wire_[forward ? 1 : 0];
  TESSERA_REQUIRE(w.in_flight(), "AAHalo::finish() without start()");
  // Unpack region e as its message arrives: the neighbour at e sent its list for direction -e, i.e.
  // q with c_q = -e, which is opp() of my q_fwd(e) entries, in the same increasing order.
  //   forward: into my ghost region e, slot opp(q);   reverse: into my boundary slab e, slot q
  for (int i = w.next_arrived(); i >= 0; i = w.next_arrived()) {
    const Region& r = regions_[size_t(i)];
    unsigned char* in = const_cast<unsigned char*>(w.recv_buffer()) + w.messages()[size_t(i)].recv_offset;
    int64_t k = 0;
    for (int slot_fwd : r.q_fwd) {
      const int q = opposite(slot_fwd);  // c_q = -e: the sender's q
      int64_t lo[3], n[3];
      // The sender's box in global cells, seen from here: its ghost side is my boundary side.
      sub_box(r, s, q, forward, forward, lo, n);
      // Reverse: a ghost slot whose source cell is a wall or solid was never written; keep the
      // bounced-back value that this rank's own update left in the slot.
      const int64_t src = s.grid().offset(lattice_c(s.lattice(), q, 0), lattice_c(s.lattice(), q, 1),
                                          lattice_c(s.lattice(), q, 2));
      box_copy_any(ex, s, in, lo, n, forward ? opposite(q) : q, k, false, forward ? nullptr : s.flags(), src);
      k += n[0] * n[1] * n[2];
    }
  }
  w.complete();
}

}  // namespace tessera::lbm
