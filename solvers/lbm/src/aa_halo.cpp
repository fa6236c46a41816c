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
  // Messages to other ranks first (the transport carries [0, nremote_)), then those to this rank.
  int me = 0;
  MPI_Comm_rank(part.comm, &me);
  std::stable_partition(regions_.begin(), regions_.end(), [me](const Region& r) { return r.neighbor != me; });
  nremote_ = int(std::count_if(regions_.begin(), regions_.end(), [me](const Region& r) { return r.neighbor != me; }));
  // Message sizes per direction: what the sender packs (both sides move the same populations over
  // the same cells, so the receiver expects exactly that many bytes).
  const int64_t bytes = precision_bytes(s.precision());
  for (int fwd = 0; fwd < 2; ++fwd) {
    std::vector<domain::WireMessage> wm;
    std::vector<Placement> place(regions_.size());
    int64_t total = 0, self_total = 0;
    for (std::size_t i = 0; i < regions_.size(); ++i) {
      const Region& r = regions_[i];
      int64_t vals = 0;
      for (int q : r.q_rev) {
        int64_t lo[3], n[3];
        sub_box(r, s, q, fwd == 1, fwd == 0, lo, n);
        vals += n[0] * n[1] * n[2];
      }
      if (int(i) < nremote_) {
        // The message sent toward direction e arrives at the neighbour from its direction -e: tag by e.
        wm.push_back({r.neighbor, r.dir, 26 - r.dir, total, vals * bytes, total, vals * bytes});
        place[i] = {total, total};
        total += vals * bytes;
      } else {
        place[i].send_offset = self_total;
        self_total += vals * bytes;
      }
    }
    // A self message sent toward e is the one this rank receives from -e: unpack it from there.
    for (int i = nremote_; i < int(regions_.size()); ++i) {
      int from = -1;
      for (int j = nremote_; j < int(regions_.size()); ++j)
        if (regions_[size_t(j)].dir == 26 - regions_[size_t(i)].dir) from = j;
      TESSERA_REQUIRE(from >= 0, "AAHalo: a self message without its counterpart (internal error)");
      place[size_t(i)].recv_offset = place[size_t(from)].send_offset;
    }
    wire_[fwd] = domain::HaloTransport(part.comm, transport, ex, std::move(wm), total, total,
                                       fwd ? "lbm::halo_forward" : "lbm::halo_reverse");
    self_[fwd] = Buffer<unsigned char>(size_t(std::max<int64_t>(self_total, 1)), default_memkind(ex.space),
                                       "lbm::halo_self");
    build_table(pack_[fwd], s, ex, fwd == 1, true, place);
    build_table(unpack_[fwd], s, ex, fwd == 1, false, place);
    // The self unpacks as one launch: their segments sorted by where they read in self_ (they tile it,
    // as the self packs do, since every packed message is unpacked exactly once).
    Table& u = unpack_self_[fwd];
    u.h.assign(unpack_[fwd].h.begin() + unpack_[fwd].first[size_t(nremote_)], unpack_[fwd].h.end());
    std::sort(u.h.begin(), u.h.end(), [](const Segment& a, const Segment& b) { return a.start < b.start; });
    u.first = {0, int(u.h.size())};
    u.d = Buffer<Segment>(std::max<std::size_t>(u.h.size(), 1), default_memkind(ex.space), "lbm::halo_segments");
    if (!u.h.empty()) copy_n(u.d.data(), u.d.kind(), u.h.data(), MemKind::Host, u.h.size());
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
void AAHalo::build_table(Table& t, const LatticeState& s, const exec::Exec& ex, bool forward, bool pack,
                         const std::vector<Placement>& place) {
  const int64_t bytes = precision_bytes(s.precision());
  t.h.clear();
  t.first.assign(1, 0);
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = regions_[i];
    const int64_t off = pack ? place[i].send_offset : place[i].recv_offset;
    int64_t k = off / bytes;
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
    if (int(i) < nremote_) {
      const domain::WireMessage& m = wire_[forward ? 1 : 0].messages()[i];
      TESSERA_REQUIRE(k * bytes == off + (pack ? m.send_bytes : m.recv_bytes),
                      "AAHalo: message layout and segments disagree (internal error)");
    }
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
  for (int i = 0; i < nremote_; ++i) {
    const Region& r = regions_[size_t(i)];
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
  // Pack: every remote message in one launch (segments in buffer order, see build_table).
  copy_messages(ex, s, pack_[forward ? 1 : 0], 0, nremote_, w.send_buffer(), true);
  w.post();
}

void AAHalo::exchange_self(const exec::Exec& ex, LatticeState& s) {
  const int d = forward_ ? 1 : 0;
  const int n = int(regions_.size());
  if (nremote_ == n) return;
  copy_messages(ex, s, pack_[d], nremote_, n, self_[d].data(), true);
  copy_messages(ex, s, unpack_self_[d], 0, 1, self_[d].data(), false);
}

void AAHalo::finish(const exec::Exec& ex, LatticeState& s) {
  const bool forward = forward_;
  domain::HaloTransport& w = wire_[forward ? 1 : 0];
  TESSERA_REQUIRE(w.in_flight(), "AAHalo::finish() without start()");
  exchange_self(ex, s);
  // Unpack each message as it arrives, one launch per message.
  for (int i = w.next_arrived(); i >= 0; i = w.next_arrived())
    copy_messages(ex, s, unpack_[forward ? 1 : 0], i, i + 1, const_cast<unsigned char*>(w.recv_buffer()), false);
  w.complete();
}

}  // namespace tessera::lbm
