// Rank grid, ownership, migration and ghost construction of a decomposed md run (see decomposition.hpp).
#include "tessera/md/decomposition.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// Row layout of a migrating atom (ids and ints travel as doubles: exact below 2^53).
constexpr int kRow = 16;
void pack_row(const HostAtoms& a, std::size_t i, std::vector<double>& out) {
  const double r[kRow] = {a.x[i],  a.y[i],  a.z[i],  a.vx[i], a.vy[i],          a.vz[i],          a.fx[i],          a.fy[i],
                          a.fz[i], a.pe[i], a.vir[i], double(a.type[i]), double(a.ix[i]), double(a.iy[i]), double(a.iz[i]),
                          double(a.id[i])};
  out.insert(out.end(), r, r + kRow);
  if (a.msd) out.push_back(a.rx0[i]), out.push_back(a.ry0[i]), out.push_back(a.rz0[i]);
}
void unpack_rows(const std::vector<double>& in, HostAtoms& a) {
  const std::size_t w = kRow + (a.msd ? 3 : 0);
  for (std::size_t o = 0; o + w <= in.size(); o += w) {
    const double* r = in.data() + o;
    a.x.push_back(r[0]), a.y.push_back(r[1]), a.z.push_back(r[2]);
    a.vx.push_back(r[3]), a.vy.push_back(r[4]), a.vz.push_back(r[5]);
    a.fx.push_back(r[6]), a.fy.push_back(r[7]), a.fz.push_back(r[8]);
    a.pe.push_back(r[9]), a.vir.push_back(r[10]);
    a.type.push_back(int(r[11])), a.ix.push_back(int(r[12])), a.iy.push_back(int(r[13])), a.iz.push_back(int(r[14]));
    a.id.push_back(int64_t(r[15]));
    if (a.msd) a.rx0.push_back(r[16]), a.ry0.push_back(r[17]), a.rz0.push_back(r[18]);
  }
}

// Count first, then the payload: send `out` to dest, receive from src.
std::vector<double> sendrecv(MPI_Comm comm, const std::vector<double>& out, int dest, int src, int tag) {
  long long ns = (long long)out.size(), nr = 0;
  check_mpi(MPI_Sendrecv(&ns, 1, MPI_LONG_LONG, dest, tag, &nr, 1, MPI_LONG_LONG, src, tag, comm, MPI_STATUS_IGNORE),
            "MPI_Sendrecv (count)");
  TESSERA_REQUIRE(ns < (1LL << 31) && nr < (1LL << 31), "md decomposition: message over 2^31 values; use more ranks");
  std::vector<double> in(static_cast<std::size_t>(nr));
  check_mpi(MPI_Sendrecv(out.data(), int(ns), MPI_DOUBLE, dest, tag + 1, in.data(), int(nr), MPI_DOUBLE, src, tag + 1,
                         comm, MPI_STATUS_IGNORE),
            "MPI_Sendrecv (payload)");
  return in;
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
                                             domain::Transport transport)
    : gc_(ghost_cut), ex_(ex) {
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

void ParticleDecomposition::select(HostAtoms& a, const Box& box) const {
  wrap_all(a, box);
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

void ParticleDecomposition::migrate(HostAtoms& a, const Box& box) {
  wrap_all(a, box);
  for (int ax = 0; ax < 3; ++ax) {
    const int d = dims_[std::size_t(ax)], me = coords_[std::size_t(ax)];
    if (d == 1) continue;
    HostAtoms keep;
    keep.msd = a.msd;
    std::vector<double> to_low, to_high;
    for (int64_t i = 0; i < a.size(); ++i) {
      const auto k = std::size_t(i);
      const double x = ax == 0 ? a.x[k] : ax == 1 ? a.y[k] : a.z[k];
      const int c = coord_of(x, box, ax);
      if (c == me) {
        keep.push(a, i);
        continue;
      }
      const int up = periodic_[ax] ? (c - me + d) % d : c - me;
      if (up == 1) pack_row(a, k, to_high);
      else if (up == d - 1 || up == -1) pack_row(a, k, to_low);
      else
        TESSERA_THROW(fmt::format("md: atom id {} moved across more than one sub-box along {} between two neighbour-list "
                                  "builds (the time step is far too large, or the system blew up)",
                                  a.id[k], "xyz"[ax]));
    }
    a = std::move(keep);
    unpack_rows(sendrecv(comm_, to_low, neighbor(ax, -1), neighbor(ax, +1), 100 + 4 * ax), a);
    unpack_rows(sendrecv(comm_, to_high, neighbor(ax, +1), neighbor(ax, -1), 102 + 4 * ax), a);
  }
}

void ParticleDecomposition::sort(HostAtoms& a, const Box& box, double range) const {
  const Box lb = list_box(box);
  int nc[3];
  for (int k = 0; k < 3; ++k) nc[k] = std::max(1, int(std::floor(lb.L[k] / range)));
  const auto n = std::size_t(a.size());
  std::vector<int64_t> key(n);
  const std::vector<double>* pos[3] = {&a.x, &a.y, &a.z};
  for (std::size_t i = 0; i < n; ++i) {
    int64_t kk = 0;
    for (int k = 2; k >= 0; --k) {
      int c = int(((*pos[k])[i] - lb.lo[k]) / lb.L[k] * nc[k]);
      c = c < 0 ? 0 : (c < nc[k] ? c : nc[k] - 1);
      kk = kk * nc[k] + c;
    }
    key[i] = kk;
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(),
            [&](std::size_t p, std::size_t q) { return key[p] != key[q] ? key[p] < key[q] : a.id[p] < a.id[q]; });
  HostAtoms s;
  s.msd = a.msd;
  for (std::size_t i : order) s.push(a, int64_t(i));
  a = std::move(s);
}

void ParticleDecomposition::build_ghosts(const HostAtoms& a, const Box& box, HostGhosts& g) {
  stages_.clear();
  g = HostGhosts{};
  const int64_t nown = a.size();
  auto coord = [&](int64_t i, int ax) {
    const auto k = std::size_t(i);
    if (i < nown) return ax == 0 ? a.x[k] : ax == 1 ? a.y[k] : a.z[k];
    const auto j = std::size_t(i - nown);
    return ax == 0 ? g.x[j] : ax == 1 ? g.y[j] : g.z[j];
  };
  for (int ax = 0; ax < 3; ++ax) {
    if (dims_[std::size_t(ax)] == 1) continue;
    // Both directions of an axis send from the same candidates (owned + ghosts of earlier axes), so an
    // atom received from one side is not sent straight back (LAMMPS' swap order).
    const int64_t ncand = nown + g.size();
    const double lo = sub_lo(box, ax), hi = sub_hi(box, ax);
    std::vector<Stage> two;
    for (int dir : {-1, +1}) {
      Stage s;
      s.axis = ax, s.dir = dir;
      s.dest = neighbor(ax, dir), s.src = neighbor(ax, -dir);
      const int edge = dir < 0 ? 0 : dims_[std::size_t(ax)] - 1;
      s.shift = (periodic_[ax] && coords_[std::size_t(ax)] == edge) ? -dir : 0;
      if (s.dest != MPI_PROC_NULL)
        for (int64_t i = 0; i < ncand; ++i) {
          const double x = coord(i, ax);
          if (dir < 0 ? x < lo + gc_ : x >= hi - gc_) s.idx.push_back(int(i));
        }
      two.push_back(std::move(s));
    }
    for (Stage& s : two) {
      std::vector<double> out;
      out.reserve(s.idx.size() * 5);
      const double sh = s.shift * box.L[ax];
      for (int i : s.idx) {
        double x[3] = {coord(i, 0), coord(i, 1), coord(i, 2)};
        x[ax] += sh;
        const bool own = i < nown;
        const auto k = std::size_t(own ? i : i - nown);
        out.insert(out.end(), {x[0], x[1], x[2], double(own ? a.type[k] : g.type[k]), double(own ? a.id[k] : g.id[k])});
      }
      const std::vector<double> in = sendrecv(comm_, out, s.dest, s.src, 200 + 4 * ax + (s.dir > 0 ? 2 : 0));
      s.recv_first = nown + g.size();
      s.nrecv = int64_t(in.size() / 5);
      for (std::size_t o = 0; o + 5 <= in.size(); o += 5) {
        g.x.push_back(in[o]), g.y.push_back(in[o + 1]), g.z.push_back(in[o + 2]);
        g.type.push_back(int(in[o + 3])), g.id.push_back(int64_t(in[o + 4]));
      }
      stages_.push_back(std::move(s));
    }
  }
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
