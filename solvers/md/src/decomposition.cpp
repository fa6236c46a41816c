// Rank grid, ownership, migration and ghost construction of a decomposed md run (see decomposition.hpp).
#include "tessera/md/decomposition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "tessera/core/error.hpp"

namespace tessera::md {

void HostAtoms::clear() {
  for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &pe, &vir, &rx0, &ry0, &rz0, &x0, &y0, &z0}) v->clear();
  for (auto* v : {&type, &ix, &iy, &iz}) v->clear();
  id.clear();
}

void HostAtoms::push(const HostAtoms& o, int64_t i) {
  const auto k = std::size_t(i);
  x.push_back(o.x[k]), y.push_back(o.y[k]), z.push_back(o.z[k]);
  vx.push_back(o.vx[k]), vy.push_back(o.vy[k]), vz.push_back(o.vz[k]);
  fx.push_back(o.fx[k]), fy.push_back(o.fy[k]), fz.push_back(o.fz[k]);
  pe.push_back(o.pe[k]), vir.push_back(o.vir[k]);
  if (msd) rx0.push_back(o.rx0[k]), ry0.push_back(o.ry0[k]), rz0.push_back(o.rz0[k]);
  if (!o.x0.empty()) x0.push_back(o.x0[k]), y0.push_back(o.y0[k]), z0.push_back(o.z0[k]);
  type.push_back(o.type[k]), ix.push_back(o.ix[k]), iy.push_back(o.iy[k]), iz.push_back(o.iz[k]);
  id.push_back(o.id[k]);
}

namespace {
void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) TESSERA_THROW(fmt::format("md decomposition: {} failed (MPI error {})", what, rc));
}

// The factorisation of p into dims with sub-boxes >= gc wide on split axes and the least sub-box
// surface (the ghost volume per rank); {0,0,0} when none exists.
std::array<int, 3> choose_dims(int p, const Box& box, double gc) {
  std::array<int, 3> best{0, 0, 0};
  double best_s = 0;
  for (int a = 1; a <= p; ++a) {
    if (p % a) continue;
    for (int b = 1; b <= p / a; ++b) {
      if ((p / a) % b) continue;
      const int d[3] = {a, b, p / a / b};
      bool ok = true;
      double w[3];
      for (int k = 0; k < 3; ++k) {
        w[k] = box.L[k] / d[k];
        if (d[k] > 1 && w[k] < gc) ok = false;
      }
      if (!ok) continue;
      const double s = w[0] * w[1] + w[1] * w[2] + w[0] * w[2];
      if (best[0] == 0 || s < best_s * (1 - 1e-12)) best = {d[0], d[1], d[2]}, best_s = s;
    }
  }
  return best;
}

void wrap_all(HostAtoms& a, const Box& box) {
  for (std::size_t i = 0; i < std::size_t(a.size()); ++i) {
    a.ix[i] += box.wrap(a.x[i], 0);
    a.iy[i] += box.wrap(a.y[i], 1);
    a.iz[i] += box.wrap(a.z[i], 2);
  }
}
}  // namespace

ParticleDecomposition::ParticleDecomposition(MPI_Comm comm, const Box& box, double ghost_cut, const exec::Exec& ex,
                                             domain::Transport transport, bool msd)
    : gc_(ghost_cut), msd_(msd), ex_(ex) {
  check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  for (int a = 0; a < 3; ++a) periodic_[a] = box.periodic[a];
  const auto d = choose_dims(size_, box, gc_);
  if (d[0] == 0) {
    std::string ok;  // the rank counts up to twice this one that do work
    for (int p = 1; p <= 2 * size_; ++p)
      if (choose_dims(p, box, gc_)[0] != 0) ok += (ok.empty() ? "" : ", ") + std::to_string(p);
    TESSERA_THROW(fmt::format("md: {} ranks cannot split the box {:.4g} x {:.4g} x {:.4g} into sub-boxes at least the "
                              "ghost cut-off {:.4g} wide (max(pair cut-off + neighbor.skin, FENE R0)): run on one of "
                              "{} ranks, or simulate a larger system",
                              size_, box.L[0], box.L[1], box.L[2], gc_, ok));
  }
  dims_ = d;
  coords_ = {rank_ % dims_[0], (rank_ / dims_[0]) % dims_[1], rank_ / (dims_[0] * dims_[1])};
  transport_ = domain::resolve_transport(transport, ex_.on_device(), size_);
  if (transport_ == domain::Transport::Nccl && !domain::gpus_distinct(comm_)) {
    if (transport == domain::Transport::Nccl)
      TESSERA_THROW(fmt::format("md: parallel.transport 'nccl' needs one GPU per rank, but some of the {} ranks share a "
                                "GPU: run one rank per GPU, or set parallel.transport to host, cuda_aware or auto",
                                size_));
    transport_ = domain::mpi_cuda_aware() ? domain::Transport::CudaAware : domain::Transport::HostStaged;
  }
  init_transport();
}

ParticleDecomposition::~ParticleDecomposition() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

int ParticleDecomposition::neighbor(int a, int dir) const {
  auto c = coords_;
  c[std::size_t(a)] += dir;
  if (c[std::size_t(a)] < 0 || c[std::size_t(a)] >= dims_[std::size_t(a)]) {
    if (!periodic_[a]) return MPI_PROC_NULL;
    c[std::size_t(a)] = (c[std::size_t(a)] + dims_[std::size_t(a)]) % dims_[std::size_t(a)];
  }
  return c[0] + dims_[0] * (c[1] + dims_[1] * c[2]);
}

int ParticleDecomposition::coord_of(double x, const Box& box, int a) const {
  const int d = dims_[std::size_t(a)];
  const int c = int(std::floor((x - box.lo[a]) / box.L[a] * d));
  return c < 0 ? 0 : (c >= d ? d - 1 : c);  // a walled axis: atoms marginally outside stay with the end ranks
}

Box ParticleDecomposition::list_box(const Box& box) const {
  Box b = box;
  for (int a = 0; a < 3; ++a)
    if (dims_[std::size_t(a)] > 1) {
      b.lo[a] = sub_lo(box, a) - gc_;
      b.L[a] = sub_hi(box, a) - sub_lo(box, a) + 2 * gc_;
      b.periodic[a] = false;
    }
  return b;
}

void ParticleDecomposition::select(HostAtoms& a, const Box& box) {
  wrap_all(a, box);
  int64_t max_id = 0;
  for (int64_t id : a.id) {
    if (id < 0 || id >= (int64_t(1) << 53))
      TESSERA_THROW(fmt::format("md: atom id {} is outside [0, 2^53): decomposed runs need non-negative ids that a "
                                "double holds exactly; renumber the atoms of the input file",
                                id));
    max_id = std::max(max_id, id);
  }
  id_bits_ = 1;
  while (id_bits_ < 63 && (max_id >> id_bits_) != 0) ++id_bits_;
  HostAtoms keep;
  keep.msd = a.msd;
  for (int64_t i = 0; i < a.size(); ++i) {
    const auto k = std::size_t(i);
    if (coord_of(a.x[k], box, 0) == coords_[0] && coord_of(a.y[k], box, 1) == coords_[1] &&
        coord_of(a.z[k], box, 2) == coords_[2])
      keep.push(a, i);
  }
  a = std::move(keep);
}

namespace {
template <class T>
void ensure(Buffer<T>& b, int64_t n, MemKind mk, const char* label) {
  if (b.size() < std::size_t(n) || b.kind() != mk) b = Buffer<T>(std::size_t(std::max<int64_t>(n + n / 4, 1)), mk, label);
}
// Grow keeping the first `keep` entries.
template <class T>
void ensure_keep(Buffer<T>& b, int64_t n, int64_t keep, MemKind mk, const char* label) {
  if (b.size() >= std::size_t(n) && b.kind() == mk) return;
  Buffer<T> nb(std::size_t(std::max<int64_t>(n + n / 4, 1)), mk, label);
  if (keep > 0) copy_n(nb.data(), mk, b.data(), b.kind(), std::size_t(keep));
  b = std::move(nb);
}
}  // namespace

namespace {
using steady = std::chrono::steady_clock;
double ms_since(steady::time_point t) { return std::chrono::duration<double, std::milli>(steady::now() - t).count(); }
}  // namespace

void ParticleDecomposition::migrate(Particles& p, const Box& box) {
  const auto t0 = steady::now();
  ++stats_.rebuilds;
  const MemKind mk = default_memkind(ex_.space);
  const int w = atom_row_width(msd_);
  if (spare_.ntypes() == 0) spare_ = Particles(p.space(), 0, p.mass());
  p.set_counts(p.size(), 0);  // the ghosts of the last build are dropped
  wrap_owned(ex_, p, box);
  for (int ax = 0; ax < 3; ++ax) {
    const int d = dims_[std::size_t(ax)];
    if (d == 1) continue;
    const int64_t n = p.size();
    ensure(code_, n, mk, "md::migrate_code");
    AxisSplit sp;
    sp.axis = ax, sp.lo = box.lo[ax], sp.L = box.L[ax], sp.dims = d, sp.me = coords_[std::size_t(ax)];
    sp.periodic = periodic_[ax];
    mark_leavers(ex_, p, sp, code_.data());
    // Low-bound, high-bound and kept indices in one pass of selections (one host synchronisation).
    ensure(sel_, 3 * n, mk, "md::migrate_sel");
    int* low = sel_.data();
    int* high = low + n;
    int* kept = high + n;
    const unsigned char masks[3] = {0xff, 0xff, 0xff}, values[3] = {1, 2, 0};
    int* const outs[3] = {low, high, kept};
    int64_t cnt[3];
    select_codes(ex_, code_.data(), n, 3, masks, values, outs, cnt, scratch_);
    const int64_t nlow = cnt[0], nhigh = cnt[1], nkeep = cnt[2];
    if (nlow + nhigh + nkeep != n) {
      // Rare and fatal (code 3): find one offender on the host to name it.
      std::vector<unsigned char> c(static_cast<std::size_t>(n));
      std::vector<int64_t> id(static_cast<std::size_t>(n));
      copy_n(c.data(), MemKind::Host, code_.data(), mk, c.size());
      copy_n(id.data(), MemKind::Host, p.id.data(), p.id.kind(), id.size());
      const auto k = std::size_t(std::find(c.begin(), c.end(), (unsigned char)3) - c.begin());
      TESSERA_THROW(fmt::format("md: atom id {} moved across more than one sub-box along {} between two neighbour-list "
                                "builds (the time step is far too large, or the system blew up)",
                                id[k < c.size() ? k : 0], "xyz"[ax]));
    }
    ensure(m_send_, int64_t(w) * (nlow + nhigh), mk, "md::migrate_send");
    pack_atoms(ex_, p, low, nlow, msd_, m_send_.data());
    pack_atoms(ex_, p, high, nhigh, msd_, m_send_.data() + int64_t(w) * nlow);
    // Message 0 goes to the low neighbour (its sender here is the high one), message 1 the reverse.
    Msg m[2] = {{neighbor(ax, -1), m_send_.data(), w * nlow, neighbor(ax, +1), nullptr, 0, 100 + 4 * ax},
                {neighbor(ax, +1), m_send_.data() + int64_t(w) * nlow, w * nhigh, neighbor(ax, -1), nullptr, 0,
                 102 + 4 * ax}};
    exchange_counts(m, 2);
    ensure(m_recv_, m[0].nr + m[1].nr, mk, "md::migrate_recv");
    m[0].recv = m_recv_.data(), m[1].recv = m_recv_.data() + m[0].nr;
    transfer(m, 2);
    const int64_t r0 = m[0].nr / w, r1 = m[1].nr / w;
    spare_.set_counts(nkeep + r0 + r1, 0);
    if (msd_)
      for (auto* b : {&spare_.rx0, &spare_.ry0, &spare_.rz0})
        *b = Buffer<double>(std::size_t(nkeep + r0 + r1), mk, "md::msd_reference");
    gather_atoms(ex_, p, kept, nkeep, m[0].recv, r0, m[1].recv, r1, msd_, spare_);
    std::swap(p, spare_);
    stats_.migrated += nlow + nhigh;
  }
  exec::fence(ex_);
  stats_.migrate_ms += ms_since(t0);
}

void ParticleDecomposition::sort(Particles& p, const Box& box, double range, Buffer<int>* order_out) {
  const auto t0 = steady::now();
  const MemKind mk = default_memkind(ex_.space);
  if (spare_.ntypes() == 0) spare_ = Particles(p.space(), 0, p.mass());
  const Box lb = list_box(box);
  int nc[3];
  for (int k = 0; k < 3; ++k) nc[k] = std::max(1, int(std::floor(lb.L[k] / range)));
  const int64_t n = p.size();
  ensure(sel_, n, mk, "md::migrate_sel");
  cell_id_order(ex_, p, lb, nc, id_bits_, sel_.data(), scratch_);
  spare_.set_counts(n, 0);
  if (msd_)
    for (auto* b : {&spare_.rx0, &spare_.ry0, &spare_.rz0}) *b = Buffer<double>(std::size_t(n), mk, "md::msd_reference");
  gather_atoms(ex_, p, sel_.data(), n, nullptr, 0, nullptr, 0, msd_, spare_);
  if (order_out) {
    *order_out = Buffer<int>(std::size_t(std::max<int64_t>(n, 1)), mk, "md::sort_order");
    if (n > 0) copy_n(order_out->data(), mk, sel_.data(), mk, std::size_t(n), ex_.stream);
  }
  std::swap(p, spare_);
  exec::fence(ex_);
  stats_.sort_ms += ms_since(t0);
}

void ParticleDecomposition::build_ghosts(Particles& p, const Box& box) {
  const auto t0 = steady::now();
  const MemKind mk = default_memkind(ex_.space);
  stages_.clear();
  const int64_t nown = p.size();
  p.set_counts(nown, 0);
  int64_t nidx = 0;  // entries of d_idx_ in use
  for (int ax = 0; ax < 3; ++ax) {
    if (dims_[std::size_t(ax)] == 1) continue;
    // Both directions of an axis send from the same candidates (owned + ghosts of earlier axes), so an
    // atom received from one side is not sent straight back (LAMMPS' swap order).
    const int64_t ncand = p.total();
    ensure(code_, ncand, mk, "md::migrate_code");
    ensure_keep(d_idx_, nidx + 2 * ncand, nidx, mk, "md::ghost_send_idx");  // both directions at most
    mark_faces(ex_, p, ncand, ax, sub_lo(box, ax) + gc_, sub_hi(box, ax) - gc_, code_.data());
    Stage st[2];
    Msg m[2];
    // Both directions' indices in one pass of selections: low-face ones straight into the plan, high-face
    // ones into sel_ (copied behind them once the low count is known; an atom may be near both faces).
    ensure(sel_, ncand, mk, "md::migrate_sel");
    const unsigned char bits[2] = {1, 2};
    int* const outs[2] = {d_idx_.data() + nidx, sel_.data()};
    int64_t cnt[2];
    select_codes(ex_, code_.data(), ncand, 2, bits, bits, outs, cnt, scratch_);
    int64_t nsend_axis = 0;
    for (int k = 0; k < 2; ++k) {
      const int dir = k == 0 ? -1 : +1;
      Stage& s = st[k];
      s.axis = ax, s.dir = dir;
      s.dest = neighbor(ax, dir), s.src = neighbor(ax, -dir);
      const int edge = dir < 0 ? 0 : dims_[std::size_t(ax)] - 1;
      s.shift = (periodic_[ax] && coords_[std::size_t(ax)] == edge) ? -dir : 0;
      s.send_off = nidx;
      s.nsend = s.dest == MPI_PROC_NULL ? 0 : cnt[k];
      if (k == 1 && s.nsend > 0) copy_n(d_idx_.data() + nidx, mk, outs[1], mk, std::size_t(s.nsend), ex_.stream);
      nidx += s.nsend;
      nsend_axis += s.nsend;
    }
    ensure(m_send_, kGhostRow * nsend_axis, mk, "md::migrate_send");
    int64_t off = 0;
    for (int k = 0; k < 2; ++k) {
      Stage& s = st[k];
      double shift[3] = {0, 0, 0};
      shift[ax] = s.shift * box.L[ax];
      double* buf = m_send_.data() + off;
      pack_ghosts(ex_, p, d_idx_.data() + s.send_off, s.nsend, shift, buf);
      m[k] = Msg{s.dest, buf, kGhostRow * s.nsend, s.src, nullptr, 0, 200 + 4 * ax + (s.dir > 0 ? 2 : 0)};
      off += kGhostRow * s.nsend;
    }
    exchange_counts(m, 2);
    ensure(m_recv_, m[0].nr + m[1].nr, mk, "md::migrate_recv");
    m[0].recv = m_recv_.data(), m[1].recv = m_recv_.data() + m[0].nr;
    transfer(m, 2);
    int64_t first = p.total();
    const int64_t nr0 = m[0].nr / kGhostRow, nr1 = m[1].nr / kGhostRow;
    p.set_counts(nown, p.ghosts() + nr0 + nr1);
    for (int k = 0; k < 2; ++k) {
      Stage& s = st[k];
      s.nrecv = k == 0 ? nr0 : nr1;
      s.recv_first = first;
      unpack_ghosts(ex_, p, first, s.nrecv, m[k].recv);
      first += s.nrecv;
      stages_.push_back(s);
    }
  }
  int64_t nsend = 0, nrecv = 0;
  for (const Stage& s : stages_) nsend += s.nsend, nrecv += s.nrecv;
  ensure(d_send_, 3 * nsend, mk, "md::ghost_send");
  ensure(d_recv_, 3 * nrecv, mk, "md::ghost_recv");
  exec::fence(ex_);
  stats_.ghosts_ms += ms_since(t0);
}

std::vector<double> ParticleDecomposition::sum(const std::vector<double>& local) const {
  const std::size_t k = local.size();
  std::vector<double> all(k * std::size_t(size_));
  check_mpi(MPI_Allgather(local.data(), int(k), MPI_DOUBLE, all.data(), int(k), MPI_DOUBLE, comm_), "MPI_Allgather");
  std::vector<double> s(k, 0.0);
  for (int r = 0; r < size_; ++r)
    for (std::size_t j = 0; j < k; ++j) s[j] += all[std::size_t(r) * k + j];
  return s;
}

bool ParticleDecomposition::any(bool local) const {
  int v = local ? 1 : 0, out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_LOR, comm_), "MPI_Allreduce");
  return out != 0;
}

int64_t ParticleDecomposition::total(int64_t local) const {
  long long v = local, out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, comm_), "MPI_Allreduce");
  return int64_t(out);
}

}  // namespace tessera::md
