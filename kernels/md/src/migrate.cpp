// Device-resident migration and ghost selection of a decomposed md run (see migrate.hpp). One source for
// host and device; only the compaction and the sort differ (CUB on the GPU, plain loops on the host).
#include "tessera/md/migrate.hpp"

#include <algorithm>
#include <numeric>

#include "tessera/core/error.hpp"

#if TESSERA_CUDA_COMPILER
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#endif

namespace tessera::md {

namespace {

template <class T>
void ensure(Buffer<T>& b, std::size_t n, MemKind mk, const char* label) {
  if (b.size() < n || b.kind() != mk) b = Buffer<T>(std::max<std::size_t>(n + n / 4, 1), mk, label);
}

struct Wrap {
  ParticleView p;
  Box box;
  TESSERA_HD void operator()(int64_t i) const {
    p.ix[i] += box.wrap(p.x[i], 0);
    p.iy[i] += box.wrap(p.y[i], 1);
    p.iz[i] += box.wrap(p.z[i], 2);
  }
};

struct MarkLeavers {
  const double* x;
  AxisSplit s;
  unsigned char* code;
  TESSERA_HD void operator()(int64_t i) const {
    int c = int(floor((x[i] - s.lo) / s.L * s.dims));
    c = c < 0 ? 0 : (c >= s.dims ? s.dims - 1 : c);
    if (c == s.me) {
      code[i] = 0;
      return;
    }
    const int up = s.periodic ? (c - s.me + s.dims) % s.dims : c - s.me;
    code[i] = up == 1 ? 2 : (up == s.dims - 1 || up == -1) ? 1 : 3;
  }
};

struct MarkFaces {
  const double* x;
  double lo, hi;
  unsigned char* code;
  TESSERA_HD void operator()(int64_t i) const {
    const double v = x[i];
    code[i] = (unsigned char)((v < lo ? 1 : 0) | (v >= hi ? 2 : 0));
  }
};

struct CodeAt {
  const unsigned char* code;
  TESSERA_HD int operator()(int64_t i) const { return int(code[i]); }
};

struct CodeIs {
  const unsigned char* code;
  unsigned char mask, value;
  TESSERA_HD bool operator()(int i) const { return (code[i] & mask) == value; }
};

struct PackAtoms {
  ParticleView p;
  const double *rx0, *ry0, *rz0;  // null without MSD references
  const int* idx;
  int64_t m;
  double* buf;
  TESSERA_HD void operator()(int64_t k) const {
    const int j = idx[k];
    double* b = buf + k;
    b[0] = p.x[j], b[m] = p.y[j], b[2 * m] = p.z[j];
    b[3 * m] = p.vx[j], b[4 * m] = p.vy[j], b[5 * m] = p.vz[j];
    b[6 * m] = p.fx[j], b[7 * m] = p.fy[j], b[8 * m] = p.fz[j];
    b[9 * m] = p.pe[j], b[10 * m] = p.vir[j];
    b[11 * m] = double(p.type[j]), b[12 * m] = double(p.ix[j]), b[13 * m] = double(p.iy[j]);
    b[14 * m] = double(p.iz[j]), b[15 * m] = double(p.id[j]);
    if (rx0) b[16 * m] = rx0[j], b[17 * m] = ry0[j], b[18 * m] = rz0[j];
  }
};

struct GatherAtoms {
  ParticleView s, d;
  const double *srx0, *sry0, *srz0;
  double *drx0, *dry0, *drz0;  // null without MSD references
  const int* sel;
  int64_t nsel;
  const double* r1;
  int64_t m1;
  const double* r2;
  int64_t m2;
  TESSERA_HD void operator()(int64_t i) const {
    if (i < nsel) {
      const int j = sel[i];
      d.x[i] = s.x[j], d.y[i] = s.y[j], d.z[i] = s.z[j];
      d.vx[i] = s.vx[j], d.vy[i] = s.vy[j], d.vz[i] = s.vz[j];
      d.fx[i] = s.fx[j], d.fy[i] = s.fy[j], d.fz[i] = s.fz[j];
      d.pe[i] = s.pe[j], d.vir[i] = s.vir[j];
      d.type[i] = s.type[j], d.ix[i] = s.ix[j], d.iy[i] = s.iy[j], d.iz[i] = s.iz[j], d.id[i] = s.id[j];
      if (drx0) drx0[i] = srx0[j], dry0[i] = sry0[j], drz0[i] = srz0[j];
      return;
    }
    const int64_t k0 = i - nsel;
    const bool first = k0 < m1;
    const double* b = first ? r1 + k0 : r2 + (k0 - m1);
    const int64_t m = first ? m1 : m2;
    d.x[i] = b[0], d.y[i] = b[m], d.z[i] = b[2 * m];
    d.vx[i] = b[3 * m], d.vy[i] = b[4 * m], d.vz[i] = b[5 * m];
    d.fx[i] = b[6 * m], d.fy[i] = b[7 * m], d.fz[i] = b[8 * m];
    d.pe[i] = b[9 * m], d.vir[i] = b[10 * m];
    d.type[i] = int(b[11 * m]), d.ix[i] = int(b[12 * m]), d.iy[i] = int(b[13 * m]), d.iz[i] = int(b[14 * m]);
    d.id[i] = int64_t(b[15 * m]);
    if (drx0) drx0[i] = b[16 * m], dry0[i] = b[17 * m], drz0[i] = b[18 * m];
  }
};

struct GatherValues {
  const double* src;
  const int* order;
  double* dst;
  TESSERA_HD void operator()(int64_t i) const { dst[i] = src[order[i]]; }
};

// key = (cell << id_bits) | id; the cell as ParticleDecomposition::sort always computed it.
struct CellIdKey {
  const double *x, *y, *z;
  const int64_t* id;
  Box lb;
  int nc0, nc1, nc2;
  int id_bits;
  uint64_t* key;
  int* iota;
  TESSERA_HD static int cell(double v, double lo, double L, int nc) {
    int c = int((v - lo) / L * nc);
    return c < 0 ? 0 : (c < nc ? c : nc - 1);
  }
  TESSERA_HD void operator()(int64_t i) const {
    const int c0 = cell(x[i], lb.lo[0], lb.L[0], nc0), c1 = cell(y[i], lb.lo[1], lb.L[1], nc1),
              c2 = cell(z[i], lb.lo[2], lb.L[2], nc2);
    const uint64_t c = (uint64_t(c2) * uint64_t(nc1) + uint64_t(c1)) * uint64_t(nc0) + uint64_t(c0);
    key[i] = id_bits >= 64 ? uint64_t(id[i]) : (c << id_bits) | uint64_t(id[i]);
    iota[i] = int(i);
  }
};

// Second pass of the two-pass sort: the cell of the atom at order[i] (keys stable-sorted by id before).
struct CellAt {
  const double *x, *y, *z;
  Box lb;
  int nc0, nc1, nc2;
  const int* order;
  uint64_t* key;
  TESSERA_HD void operator()(int64_t i) const {
    const int j = order[i];
    const int c0 = CellIdKey::cell(x[j], lb.lo[0], lb.L[0], nc0), c1 = CellIdKey::cell(y[j], lb.lo[1], lb.L[1], nc1),
              c2 = CellIdKey::cell(z[j], lb.lo[2], lb.L[2], nc2);
    key[i] = (uint64_t(c2) * uint64_t(nc1) + uint64_t(c1)) * uint64_t(nc0) + uint64_t(c0);
  }
};

struct PackGhosts {
  const double *x, *y, *z;
  const int* type;
  const int64_t* id;
  const int* idx;
  int64_t m;
  double sx, sy, sz;
  double* buf;
  TESSERA_HD void operator()(int64_t k) const {
    const int j = idx[k];
    buf[k] = x[j] + sx;
    buf[m + k] = y[j] + sy;
    buf[2 * m + k] = z[j] + sz;
    buf[3 * m + k] = double(type[j]);
    buf[4 * m + k] = double(id[j]);
  }
};

struct UnpackGhosts {
  ParticleView p;
  int64_t first, m;
  const double* buf;
  TESSERA_HD void operator()(int64_t k) const {
    const int64_t i = first + k;
    p.x[i] = buf[k], p.y[i] = buf[m + k], p.z[i] = buf[2 * m + k];
    p.type[i] = int(buf[3 * m + k]), p.id[i] = int64_t(buf[4 * m + k]);
    p.vx[i] = p.vy[i] = p.vz[i] = 0;  // never read for ghosts; zero so that the arrays are deterministic
    p.fx[i] = p.fy[i] = p.fz[i] = p.pe[i] = p.vir[i] = 0;
    p.ix[i] = p.iy[i] = p.iz[i] = 0;
  }
};

int bits_for(uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

#if TESSERA_CUDA_COMPILER
// Stable radix sort of (key, value) pairs over bits [0, end_bit) on the device.
void radix_pairs(const exec::Exec& ex, MigrateScratch& s, const uint64_t* kin, uint64_t* kout, const int* vin,
                 int* vout, int64_t n, int end_bit) {
  auto st = static_cast<cudaStream_t>(ex.stream);
  std::size_t bytes = 0;
  TESSERA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, vin, vout, int(n), 0, end_bit, st));
  ensure(s.tmp, bytes, MemKind::Device, "md::migrate_tmp");
  TESSERA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s.tmp.data(), bytes, kin, kout, vin, vout, int(n), 0, end_bit, st));
}
#endif

}  // namespace

void wrap_owned(const exec::Exec& ex, Particles& p, const Box& box) {
  exec::parallel_for(ex, "md::migrate_wrap", p.size(), Wrap{p.view(), box});
}

void mark_leavers(const exec::Exec& ex, Particles& p, const AxisSplit& s, unsigned char* code) {
  const double* x = s.axis == 0 ? p.x.data() : s.axis == 1 ? p.y.data() : p.z.data();
  exec::parallel_for(ex, "md::migrate_mark", p.size(), MarkLeavers{x, s, code});
}

void mark_faces(const exec::Exec& ex, Particles& p, int64_t n, int axis, double lo_edge, double hi_edge,
                unsigned char* code) {
  const double* x = axis == 0 ? p.x.data() : axis == 1 ? p.y.data() : p.z.data();
  exec::parallel_for(ex, "md::ghost_mark", n, MarkFaces{x, lo_edge, hi_edge, code});
}

int max_code(const exec::Exec& ex, const unsigned char* code, int64_t n) {
  return n > 0 ? exec::reduce_max<int>(ex, "md::migrate_max_code", n, CodeAt{code}) : 0;
}

int64_t select_code(const exec::Exec& ex, const unsigned char* code, int64_t n, unsigned char mask,
                    unsigned char value, int* out, MigrateScratch& s) {
  (void)s;  // device scratch
  if (n <= 0) return 0;
  const CodeIs pred{code, mask, value};
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    auto st = static_cast<cudaStream_t>(ex.stream);
    ensure(s.count, 1, MemKind::Device, "md::select_count");
    thrust::counting_iterator<int> first(0);
    std::size_t bytes = 0;
    TESSERA_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, first, out, s.count.data(), int(n), pred, st));
    ensure(s.tmp, bytes, MemKind::Device, "md::migrate_tmp");
    TESSERA_CUDA_CHECK(cub::DeviceSelect::If(s.tmp.data(), bytes, first, out, s.count.data(), int(n), pred, st));
    int m = 0;
    copy_n(&m, MemKind::Host, s.count.data(), MemKind::Device, 1, ex.stream);
    exec::fence(ex);
    return m;
#else
    exec::detail::no_device_backend("md::select_code");
#endif
  }
  int64_t m = 0;
  for (int64_t i = 0; i < n; ++i)
    if (pred(int(i))) out[m++] = int(i);
  return m;
}

void select_codes(const exec::Exec& ex, const unsigned char* code, int64_t n, int k, const unsigned char* mask,
                  const unsigned char* value, int* const* out, int64_t* count, MigrateScratch& s) {
  (void)s;  // device scratch
  TESSERA_REQUIRE(k >= 0 && k <= 4, "md::select_codes: at most four selections");
  for (int j = 0; j < k; ++j) count[j] = 0;
  if (n <= 0 || k == 0) return;
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    auto st = static_cast<cudaStream_t>(ex.stream);
    ensure(s.count, 4, MemKind::Device, "md::select_count");
    thrust::counting_iterator<int> first(0);
    std::size_t bytes = 0;
    for (int j = 0; j < k; ++j) {
      std::size_t b = 0;
      TESSERA_CUDA_CHECK(cub::DeviceSelect::If(nullptr, b, first, out[j], s.count.data() + j, int(n),
                                               CodeIs{code, mask[j], value[j]}, st));
      bytes = std::max(bytes, b);
    }
    ensure(s.tmp, bytes, MemKind::Device, "md::migrate_tmp");
    for (int j = 0; j < k; ++j)  // stream-ordered: the temporary storage is reused in turn
      TESSERA_CUDA_CHECK(cub::DeviceSelect::If(s.tmp.data(), bytes, first, out[j], s.count.data() + j, int(n),
                                               CodeIs{code, mask[j], value[j]}, st));
    int m[4] = {0, 0, 0, 0};
    copy_n(m, MemKind::Host, s.count.data(), MemKind::Device, std::size_t(k), ex.stream);
    exec::fence(ex);
    for (int j = 0; j < k; ++j) count[j] = m[j];
    return;
#else
    exec::detail::no_device_backend("md::select_codes");
#endif
  }
  for (int64_t i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j)
      if ((code[i] & mask[j]) == value[j]) out[j][count[j]++] = int(i);
}

void pack_atoms(const exec::Exec& ex, Particles& p, const int* idx, int64_t m, bool msd, double* buf) {
  if (m <= 0) return;
  const bool r = msd;
  TESSERA_REQUIRE(!r || p.has_reference(), "md::pack_atoms: MSD references missing");
  exec::parallel_for(ex, "md::migrate_pack", m,
                     PackAtoms{p.view(), r ? p.rx0.data() : nullptr, r ? p.ry0.data() : nullptr,
                               r ? p.rz0.data() : nullptr, idx, m, buf});
}

void gather_atoms(const exec::Exec& ex, Particles& src, const int* sel, int64_t nsel, const double* r1, int64_t m1,
                  const double* r2, int64_t m2, bool msd, Particles& dst) {
  const int64_t n = nsel + m1 + m2;
  TESSERA_REQUIRE(dst.size() == n, "md::gather_atoms: destination has the wrong owned count");
  const bool r = msd;
  TESSERA_REQUIRE(!r || nsel == 0 || src.has_reference(), "md::gather_atoms: source MSD references missing");
  TESSERA_REQUIRE(!r || dst.rx0.size() == std::size_t(n), "md::gather_atoms: destination MSD references unsized");
  exec::parallel_for(ex, "md::migrate_gather", n,
                     GatherAtoms{src.view(), dst.view(), r ? src.rx0.data() : nullptr, r ? src.ry0.data() : nullptr,
                                 r ? src.rz0.data() : nullptr, r ? dst.rx0.data() : nullptr,
                                 r ? dst.ry0.data() : nullptr, r ? dst.rz0.data() : nullptr, sel, nsel, r1, m1, r2,
                                 m2});
}

void gather_values(const exec::Exec& ex, const double* src, const int* order, int64_t n, double* dst) {
  exec::parallel_for(ex, "md::gather_values", n, GatherValues{src, order, dst});
}

void cell_id_order(const exec::Exec& ex, Particles& p, const Box& lb, const int nc[3], int id_bits, int* order,
                   MigrateScratch& s) {
  const int64_t n = p.size();
  if (n <= 0) return;
  const MemKind mk = default_memkind(ex.space);
  const uint64_t ncells = uint64_t(nc[0]) * uint64_t(nc[1]) * uint64_t(nc[2]);
  const int cell_bits = bits_for(ncells - 1);
  const bool one_pass = cell_bits + id_bits <= 64;
  ensure(s.key, std::size_t(n), mk, "md::sort_key");
  ensure(s.iota, std::size_t(n), mk, "md::sort_iota");
  // Two passes (ids, then cells, both stable) when (cell, id) does not fit 64 bits: key = id first.
  exec::parallel_for(ex, "md::sort_keys", n,
                     CellIdKey{p.x.data(), p.y.data(), p.z.data(), p.id.data(), lb, nc[0], nc[1], nc[2],
                               one_pass ? id_bits : 64, s.key.data(), s.iota.data()});
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    ensure(s.key_sorted, std::size_t(n), mk, "md::sort_key_sorted");
    if (one_pass) {
      radix_pairs(ex, s, s.key.data(), s.key_sorted.data(), s.iota.data(), order, n, std::max(1, cell_bits + id_bits));
      return;
    }
    ensure(s.order, std::size_t(n), mk, "md::sort_order");
    radix_pairs(ex, s, s.key.data(), s.key_sorted.data(), s.iota.data(), s.order.data(), n, std::max(1, id_bits));
    exec::parallel_for(ex, "md::sort_cells", n,
                       CellAt{p.x.data(), p.y.data(), p.z.data(), lb, nc[0], nc[1], nc[2], s.order.data(),
                              s.key.data()});
    radix_pairs(ex, s, s.key.data(), s.key_sorted.data(), s.order.data(), order, n, std::max(1, cell_bits));
    return;
#else
    exec::detail::no_device_backend("md::cell_id_order");
#endif
  }
  // Host: one comparison sort on (cell, id); ids are unique, so the order is total.
  std::vector<uint64_t> cells(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const auto k = std::size_t(i);
    const uint64_t c0 = uint64_t(CellIdKey::cell(p.x[k], lb.lo[0], lb.L[0], nc[0]));
    const uint64_t c1 = uint64_t(CellIdKey::cell(p.y[k], lb.lo[1], lb.L[1], nc[1]));
    const uint64_t c2 = uint64_t(CellIdKey::cell(p.z[k], lb.lo[2], lb.L[2], nc[2]));
    cells[k] = (c2 * uint64_t(nc[1]) + c1) * uint64_t(nc[0]) + c0;
  }
  std::iota(order, order + n, 0);
  const int64_t* id = p.id.data();
  std::sort(order, order + n, [&](int a, int b) {
    const uint64_t ca = cells[std::size_t(a)], cb = cells[std::size_t(b)];
    return ca != cb ? ca < cb : id[a] < id[b];
  });
}

void pack_ghosts(const exec::Exec& ex, Particles& p, const int* idx, int64_t m, const double shift[3], double* buf) {
  if (m <= 0) return;
  exec::parallel_for(ex, "md::ghost_build_pack", m,
                     PackGhosts{p.x.data(), p.y.data(), p.z.data(), p.type.data(), p.id.data(), idx, m, shift[0],
                                shift[1], shift[2], buf});
}

void unpack_ghosts(const exec::Exec& ex, Particles& p, int64_t first, int64_t m, const double* buf) {
  if (m <= 0) return;
  exec::parallel_for(ex, "md::ghost_build_unpack", m, UnpackGhosts{p.view(), first, m, buf});
}

}  // namespace tessera::md
