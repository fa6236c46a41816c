#include "tessera/lbm/solver/aa_halo.hpp"

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::lbm {

namespace {

// Fused pack / unpack: one launch moves every (region, population) segment of a message range
// between the populations and the transport buffer. Thread t handles buffer element t: a binary search
// over the segments' starts finds its box, and the element order inside a box is x fastest.
template <class E>
struct SegmentCopy {
  E* pops;
  E* buf;                        // the whole send / receive buffer, in elements
  const AAHalo::Segment* seg;
  int first, last;               // the launch's segments [first, last)
  int64_t t0;                    // its first element
  int64_t n, px, py;             // padded cells, padded extents
  const uint8_t* flags;
  bool pack;
  TESSERA_HD void operator()(int64_t idx) const {
    const int64_t t = t0 + idx;
    int lo = first, hi = last - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (seg[mid].start <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
    const AAHalo::Segment& g = seg[lo];
    int64_t r = t - g.start;
    const int64_t i = r % g.n[0];
    r /= g.n[0];
    const int64_t j = r % g.n[1], k = r / g.n[1];
    const int64_t c = (g.lo[0] + i) + px * ((g.lo[1] + j) + py * (g.lo[2] + k));
    // Reverse unpack: a ghost slot whose source cell is a wall or solid was never written; keep the
    // bounced-back value that this rank's own update left in the slot.
    if (g.check_flags && !is_fluid(flags[c - g.src_off])) return;
    if (pack)
      buf[t] = pops[g.slot * n + c];
    else
      pops[g.slot * n + c] = buf[t];
  }
};

template <class E>
void segment_copy(const exec::Exec& ex, LatticeState& s, unsigned char* buf, const AAHalo::Segment* seg, int first,
                  int last, int64_t t0, int64_t count, bool pack) {
  const GridLayout& g = s.grid();
  const SegmentCopy<E> f{static_cast<E*>(s.pops()), reinterpret_cast<E*>(buf), seg, first, last, t0, g.cells(),
                         g.px(), g.py(), s.flags(), pack};
  if (!ex.on_device() && count < (int64_t(1) << 16)) {
    // Small halos on the host: a plain loop beats waking an OpenMP team.
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  exec::parallel_for(ex, pack ? "lbm::halo_pack" : "lbm::halo_unpack", count, f);
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
    build_table(pack_[fwd], s, ex, fwd == 1, true);
    build_table(unpack_[fwd], s, ex, fwd == 1, false);
  }
}

// The segments of every message, in the order the message carries them:
//   pack, toward the neighbour at e, for every q of q_rev(e) (c_q = e on the non-zero axes), increasing:
//     forward: slot opp(q) of my boundary slab e (it becomes the neighbour's ghost region -e)
//     reverse: slot q of my ghost region e (it belongs to the neighbour's boundary slab -e)
//   unpack, from the neighbour at e, which sent its list for direction -e, i.e. q with c_q = -e, which
//   is opp() of my q_fwd(e) entries in the same increasing order:
//     forward: into my ghost region e, slot opp(q);   reverse: into my boundary slab e, slot q
// (the sender's box in global cells, seen from here: its ghost side is my boundary side).
void AAHalo::build_table(Table& t, const LatticeState& s, const exec::Exec& ex, bool forward, bool pack) {
  const domain::HaloTransport& w = wire_[forward ? 1 : 0];
  const int64_t bytes = precision_bytes(s.precision());
  t.h.clear();
  t.first.assign(1, 0);
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = regions_[i];
    const domain::WireMessage& m = w.messages()[i];
    int64_t k = (pack ? m.send_offset : m.recv_offset) / bytes;
    for (int qq : pack ? r.q_rev : r.q_fwd) {
      const int q = pack ? qq : opposite(qq);
      Segment g{};
      sub_box(r, s, q, forward, pack ? !forward : forward, g.lo, g.n);
      g.start = k;
      g.slot = forward ? opposite(q) : q;
      g.check_flags = !pack && !forward;
      g.src_off = s.grid().offset(lattice_c(s.lattice(), q, 0), lattice_c(s.lattice(), q, 1),
                                  lattice_c(s.lattice(), q, 2));
      const int64_t cells = g.n[0] * g.n[1] * g.n[2];
      if (cells > 0) t.h.push_back(g);
      k += cells;
    }
    TESSERA_REQUIRE(k * bytes == (pack ? m.send_offset + m.send_bytes : m.recv_offset + m.recv_bytes),
                    "AAHalo: message layout and segments disagree (internal error)");
    t.first.push_back(int(t.h.size()));
  }
  t.d = Buffer<Segment>(std::max<std::size_t>(t.h.size(), 1), default_memkind(ex.space), "lbm::halo_segments");
  if (!t.h.empty()) copy_n(t.d.data(), t.d.kind(), t.h.data(), MemKind::Host, t.h.size());
}

// Messages [m0, m1) of a table in one launch.
void AAHalo::copy_messages(const exec::Exec& ex, LatticeState& s, const Table& t, int m0, int m1, unsigned char* buf,
                           bool pack) {
  const int first = t.first[size_t(m0)], last = t.first[size_t(m1)];
  if (first == last) return;
  const Segment& a = t.h[size_t(first)];
  const Segment& b = t.h[size_t(last - 1)];
  const int64_t t0 = a.start, count = b.start + b.n[0] * b.n[1] * b.n[2] - a.start;
  switch (precision_bytes(s.precision())) {
    case 8: segment_copy<uint64_t>(ex, s, buf, t.d.data(), first, last, t0, count, pack); break;
    case 4: segment_copy<uint32_t>(ex, s, buf, t.d.data(), first, last, t0, count, pack); break;
    default: segment_copy<uint16_t>(ex, s, buf, t.d.data(), first, last, t0, count, pack); break;
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
  // Pack: every message in one launch (segments in buffer order, see build_table).
  copy_messages(ex, s, pack_[forward ? 1 : 0], 0, int(regions_.size()), w.send_buffer(), true);
  w.post();
}

void AAHalo::finish(const exec::Exec& ex, LatticeState& s) {
  const bool forward = forward_;
  domain::HaloTransport& w = wire_[forward ? 1 : 0];
  TESSERA_REQUIRE(w.in_flight(), "AAHalo::finish() without start()");
  // Unpack each message as it arrives, one launch per message.
  for (int i = w.next_arrived(); i >= 0; i = w.next_arrived())
    copy_messages(ex, s, unpack_[forward ? 1 : 0], i, i + 1, const_cast<unsigned char*>(w.recv_buffer()), false);
  w.complete();
}

}  // namespace tessera::lbm
