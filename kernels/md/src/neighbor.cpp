// Cell list and Verlet list (see neighbor.hpp for the algorithm). One source for host and device;
// only the key sort differs (CUB radix sort on the GPU, std::stable_sort on the host).
#include "tessera/md/neighbor.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <numeric>

#include "tessera/core/error.hpp"

#if TESSERA_CUDA_COMPILER
#include <cub/device/device_radix_sort.cuh>
#endif

namespace tessera::md {

namespace {

// Wrap into the box, update image counts, compute the cell key, reset the sort permutation.
struct WrapBin {
  ParticleView p;
  Box box;
  int nc0, nc1, nc2;
  int* key;
  int* idx;
  TESSERA_HD void operator()(int64_t i) const {
    p.ix[i] += box.wrap(p.x[i], 0);
    p.iy[i] += box.wrap(p.y[i], 1);
    p.iz[i] += box.wrap(p.z[i], 2);
    int c0 = int((p.x[i] - box.lo[0]) / box.L[0] * nc0);
    int c1 = int((p.y[i] - box.lo[1]) / box.L[1] * nc1);
    int c2 = int((p.z[i] - box.lo[2]) / box.L[2] * nc2);
    // Clamp: on a non-periodic (walled) axis a particle may sit marginally outside [lo, lo + L).
    c0 = c0 < 0 ? 0 : (c0 < nc0 ? c0 : nc0 - 1);
    c1 = c1 < 0 ? 0 : (c1 < nc1 ? c1 : nc1 - 1);
    c2 = c2 < 0 ? 0 : (c2 < nc2 ? c2 : nc2 - 1);
    key[i] = c0 + nc0 * (c1 + nc1 * c2);
    idx[i] = int(i);
  }
};

struct ClearCells {
  int* start;
  int* end;
  TESSERA_HD void operator()(int64_t c) const { start[c] = end[c] = 0; }
};

// Cell c holds the sorted particles [start[c], end[c]). Every cell gets its offsets, empty ones too
// (start = end = where its particles would be), so that the particles of a run of consecutive cells are
// one contiguous range [start[first], end[last]) (fill_fast walks stencil rows that way). Particle i
// writes the cells from its predecessor's cell (exclusive) to its own: together every cell exactly once.
struct MarkCells {
  const int* ks;
  int* start;
  int* end;
  int64_t n;
  int64_t ncells;
  TESSERA_HD void operator()(int64_t i) const {
    const int k = ks[i];
    const int kp = i == 0 ? -1 : ks[i - 1];
    for (int c = kp + 1; c <= k; ++c) start[c] = int(i);   // cells after the predecessor's, up to mine
    for (int c = kp < 0 ? 0 : kp; c < k; ++c) end[c] = int(i);  // the predecessor's cell and empty ones
    if (i == n - 1) {
      for (int64_t c = k + 1; c < ncells; ++c) start[c] = int(n);
      for (int64_t c = k; c < ncells; ++c) end[c] = int(n);
    }
  }
};

struct Fill {
  ParticleView p;
  Box box;
  int nc0, nc1, nc2;
  const int* key;
  const int* sorted;
  const int* start;
  const int* end;
  int* neigh;
  int* count;
  int64_t stride;
  int capacity;
  double range2;
  int reach;
  TESSERA_HD void operator()(int64_t i) const {
    const int k = key[i];
    const double xi = p.x[i], yi = p.y[i], zi = p.z[i];
    // With >= 2 reach + 1 cells on an axis visit c - reach .. c + reach (periodic); with fewer, every cell once.
    const StencilAxis s0{k % nc0, nc0, reach}, s1{(k / nc0) % nc1, nc1, reach}, s2{k / (nc0 * nc1), nc2, reach};
    int cnt = 0;
    for (int a2 = 0; a2 < s2.m(); ++a2) {
      const int d2 = s2.cell(a2);
      for (int a1 = 0; a1 < s1.m(); ++a1) {
        const int d1 = s1.cell(a1);
        for (int a0 = 0; a0 < s0.m(); ++a0) {
          const int c = s0.cell(a0) + nc0 * (d1 + nc1 * d2);
          for (int s = start[c]; s < end[c]; ++s) {
            const int j = sorted[s];
            if (j == int(i)) continue;
            const double dx = box.image(xi - p.x[j], 0);
            const double dy = box.image(yi - p.y[j], 1);
            const double dz = box.image(zi - p.z[j], 2);
            if (dx * dx + dy * dy + dz * dz < range2) {
              if (cnt < capacity) neigh[int64_t(cnt) * stride + i] = j;
              ++cnt;
            }
          }
        }
      }
    }
    count[i] = cnt;
  }
};

struct Snapshot {
  const double *x, *y, *z;
  double *x0, *y0, *z0;
  TESSERA_HD void operator()(int64_t i) const {
    x0[i] = x[i];
    y0[i] = y[i];
    z0[i] = z[i];
  }
};

struct Displacement2 {
  const double *x, *y, *z, *x0, *y0, *z0;
  Box box;
  TESSERA_HD double operator()(int64_t i) const {
    const double dx = box.image(x[i] - x0[i], 0), dy = box.image(y[i] - y0[i], 1), dz = box.image(z[i] - z0[i], 2);
    return dx * dx + dy * dy + dz * dz;
  }
};

struct CountAt {
  const int* c;
  TESSERA_HD int operator()(int64_t i) const { return c[i]; }
};

template <class T>
void ensure(Buffer<T>& b, std::size_t n, MemKind mk, const char* label) {
  if (b.size() < n || b.kind() != mk) b = Buffer<T>(n, mk, label);
}

struct Iota {
  int* a;
  TESSERA_HD void operator()(int64_t i) const { a[i] = int(i); }
};

#if TESSERA_CUDA_COMPILER
// The fill of a device-resident build (build_async), in float: positions packed as float4 after the
// wrap (and the reordering), and the periodic image of each stencil cell applied as a shift of +-L
// instead of a minimum image per candidate (axes with fewer than 3 cells keep the minimum image). The
// cut-off is widened by a margin that covers the float rounding of coordinates up to `extent`, so the
// list holds every pair the double-precision fill would (and perhaps a few beyond rc + skin, which the
// force kernels skip by their own cut-off test). Same cells, same order as Fill; along x the stencil
// cells of a row are walked as runs of consecutive cells (one range of particles each, MarkCells).
struct PackF4 {
  const double *x, *y, *z;
  float4* q;
  TESSERA_HD void operator()(int64_t i) const { q[i] = make_float4(float(x[i]), float(y[i]), float(z[i]), 0.f); }
};

constexpr int kFillThreads = 128;
struct FastAxis {  // one axis of fill_fast's stencil
  int nc;
  float L, w, lo;  // box length, cell width, box origin
  float invL;      // 1 / L (a multiplication: a float division is a called subroutine that costs registers)
  float invw;      // 1 / w
  int shift;       // periodic with a full stencil: images as shifts of +-L
  int image;       // periodic with fewer cells than the stencil: minimum image per candidate
};

// The cells at offsets -reach..reach of cell c (or all cells once when the axis is short), with the
// shift to apply to x_j and the distance `gap` from the particle (u: its coordinate minus its cell's
// lower face) to that cell's slab, for culling.
struct FastStep {
  int d;
  float shift, gap;
};
__device__ __forceinline__ FastStep fast_step(const FastAxis& ax, int c, int a, int reach, float u, float eps) {
  if (ax.nc < 2 * reach + 1) return FastStep{a, 0.f, 0.f};
  const int o = a - reach;
  int d = c + o;
  float s = 0.f;
  if (d < 0) d += ax.nc, s = ax.shift ? -ax.L : 0.f;
  else if (d >= ax.nc) d -= ax.nc, s = ax.shift ? ax.L : 0.f;
  float g = o > 0 ? float(o) * ax.w - u : (o < 0 ? u + float(-o - 1) * ax.w : 0.f);
  g = fmaxf(g - eps, 0.f);
  return FastStep{d, s, g};
}

// Image: some periodic axis is too short for the stencil and takes the minimum image per candidate (the
// common case, every axis long enough, compiles without that code).
//
// List entries are staged in shared memory and written out by the warp together. Entry k of particle i
// goes to neigh[k * stride + i]; lanes storing as they find pairs (each at its own k) touch one sector per
// lane, and ncu showed that L2 traffic (77 % of L2 throughput) as the fill's limit. Each lane keeps its
// entries [kb, cnt) in its own column of a ring (slot k mod kRing). After every stencil row, once some lane
// holds kTrigger or more, the warp writes out every lane's staged entries row by row (k from the lowest kb
// to the highest end), so the lanes holding entry k store it together. A lane that finds kRing entries
// before a flush writes the rest directly (`direct`: the first such k; all later ones in that stretch
// follow it), so nothing is lost when a row is unusually full.
// __launch_bounds__(.., 7): without a block count ptxas chose 56 registers and spilled; 7 blocks allow 73.
// kTrigger 16 (measured against 8 at c70b7eb): fewer flushes; one row adds ~5 entries per lane, so a lane
// rarely reaches the ring's 32 before the flush.
constexpr int kRing = 32, kTrigger = 16;
template <bool Image>
__global__ void __launch_bounds__(kFillThreads, 7) fill_fast(const float4* __restrict__ q, int64_t n, const int* __restrict__ key,
                                                         const int* __restrict__ sorted, const int* __restrict__ start,
                                                         const int* __restrict__ end, FastAxis X, FastAxis Y, FastAxis Z,
                                                         int reach, float eps, int* __restrict__ neigh, int* __restrict__ count,
                                                         int64_t stride, int capacity, float range2) {
  __shared__ int ring_all[kFillThreads / 32][kRing][32];
  int(*ring)[32] = ring_all[threadIdx.x / 32];
  const int lane = int(threadIdx.x & 31);
  const int64_t i = int64_t(blockIdx.x) * kFillThreads + threadIdx.x;
  const bool live = i < n;  // every lane walks the same rows (warp-wide flushes); lanes past n find nothing
  const int k = live ? key[i] : 0;
  const int c0 = k % X.nc, c1 = (k / X.nc) % Y.nc, c2 = k / (X.nc * Y.nc);
  const float4 qi = live ? q[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  const float ux = qi.x - (X.lo + float(c0) * X.w), uy = qi.y - (Y.lo + float(c1) * Y.w), uz = qi.z - (Z.lo + float(c2) * Z.w);
  int cnt = 0, kb = 0, direct = INT_MAX;  // staged: [kb, min(cnt, capacity, direct))
  // Candidate j at qj against particle i seen at (xi, yi, zi) (i's coordinates minus the stencil cell's
  // periodic shift).
  auto test = [&](int j, const float4& qj, float xi, float yi, float zi) {
    if (j == int(i)) return;
    float dx = xi - qj.x, dy = yi - qj.y, dz = zi - qj.z;
    if constexpr (Image) {
      if (X.image) dx -= X.L * rintf(dx * X.invL);
      if (Y.image) dy -= Y.L * rintf(dy * Y.invL);
      if (Z.image) dz -= Z.L * rintf(dz * Z.invL);
    }
    if (dx * dx + dy * dy + dz * dz < range2) {
      if (cnt < capacity) {
        if (cnt - kb < kRing && cnt < direct) {
          ring[cnt & (kRing - 1)][lane] = j;
        } else {
          direct = min(direct, cnt);
          neigh[int64_t(cnt) * stride + i] = j;
        }
      }
      ++cnt;
    }
  };
  // Every lane's staged entries out, row k by row k (whole warp).
  auto flush = [&]() {
    const int lim = min(min(cnt, capacity), direct);
    const bool has = live && lim > kb;
    const int lo = __reduce_min_sync(0xffffffffu, has ? kb : INT_MAX);
    const int hi = __reduce_max_sync(0xffffffffu, has ? lim : INT_MIN);
    for (int kk = lo; kk < hi; ++kk)
      if (kk >= kb && kk < lim) neigh[int64_t(kk) * stride + i] = ring[kk & (kRing - 1)][lane];
    kb = cnt;
    direct = INT_MAX;
  };
  for (int a2 = 0; a2 < StencilAxis{c2, Z.nc, reach}.m(); ++a2) {
    const FastStep sz = fast_step(Z, c2, a2, reach, uz, eps);
    const float gz2 = sz.gap * sz.gap;
    for (int a1 = 0; a1 < StencilAxis{c1, Y.nc, reach}.m(); ++a1) {
      const FastStep sy = fast_step(Y, c1, a1, reach, uy, eps);
      const float gyz2 = gz2 + sy.gap * sy.gap;
      if (live && gyz2 < range2) {
        const int row = X.nc * (sy.d + Y.nc * sz.d);
        const float yr = qi.y - sy.shift, zr = qi.z - sz.shift;
        // The row's cells c0 + o, o in [olo, ohi]: those the sphere of radius range (widened by eps) reaches
        // in this row, rx = sqrt(range^2 - gyz^2) on either side of the particle (rounded outwards: an extra
        // cell costs a few candidates, a missing one a pair). They are walked as at most three runs of
        // consecutive cells (wrapped below 0 and seen shifted by -L, inside, wrapped above nc - 1 and seen
        // shifted by +L), each one contiguous range of sorted particles. A short axis (fewer than
        // 2 reach + 1 cells) is one run over the row, with the minimum image per candidate.
        int sa = 0, ea = 0, sb, eb, sc = 0, ec = 0;
        if (X.nc < 2 * reach + 1) {
          sb = start[row], eb = end[row + X.nc - 1];
        } else {
          const float rem = range2 - gyz2;  // > 0; rsqrtf (a few ulp) is covered by the 1e-4 cell widths
          const float rx = rem * rsqrtf(rem) + eps;
          const int ohi = min(reach, int((ux + rx) * X.invw + 1e-4f));
          const int olo = -min(reach, int(fmaxf((rx - ux) * X.invw + 1.0001f, 0.f)));
          if (olo < -c0) sa = start[row + X.nc + c0 + olo], ea = end[row + X.nc + c0 + min(ohi, -c0 - 1)];
          const int blo = max(olo, -c0), bhi = min(ohi, X.nc - 1 - c0);
          sb = blo <= bhi ? start[row + c0 + blo] : 0;
          eb = blo <= bhi ? end[row + c0 + bhi] : 0;
          if (ohi > X.nc - 1 - c0) sc = start[row + max(olo, X.nc - c0) + c0 - X.nc], ec = end[row + c0 + ohi - X.nc];
        }
        const float sh = X.shift ? X.L : 0.f;
        for (int r = 0; r < 3; ++r) {
          int s = r == 0 ? sa : (r == 1 ? sb : sc);
          const int e = r == 0 ? ea : (r == 1 ? eb : ec);
          const float xr = r == 0 ? qi.x + sh : (r == 1 ? qi.x : qi.x - sh);
          // Four candidates per round with their loads issued first.
          for (; s + 3 < e; s += 4) {
            int j[4];
            float4 qj[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) j[u] = sorted ? sorted[s + u] : s + u;
#pragma unroll
            for (int u = 0; u < 4; ++u) qj[u] = q[j[u]];
#pragma unroll
            for (int u = 0; u < 4; ++u) test(j[u], qj[u], xr, yr, zr);
          }
          for (; s < e; ++s) {
            const int j = sorted ? sorted[s] : s;
            test(j, q[j], xr, yr, zr);
          }
        }
      }
      // The whole warp is here (the row loops have the same trip counts in every lane).
      if (__any_sync(0xffffffffu, live && min(cnt, capacity) - kb >= kTrigger)) flush();
    }
  }
  flush();
  if (live) count[i] = cnt;
}

// Largest count into *dmax (a running max); the last block to finish mirrors it to pinned host memory,
// so that the host can look at it without synchronising.
constexpr int kMaxBlocks = 264, kMaxThreads = 256;
__global__ void __launch_bounds__(kMaxThreads) max_count_kernel(const int* __restrict__ count, int64_t n, int* dmax,
                                                                 unsigned* done, volatile int* mirror, long long* builds,
                                                                 volatile long long* builds_mirror) {
  int m = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    m = max(m, count[i]);
  m = __reduce_max_sync(0xffffffffu, m);
  __shared__ int wmax[kMaxThreads / 32];
  __shared__ bool last;
  if ((threadIdx.x & 31) == 0) wmax[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kMaxThreads / 32; ++w) m = max(m, wmax[w]);
    atomicMax(dmax, m);
    __threadfence();
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
    *mirror = atomicAdd(dmax, 0);
    *done = 0;
    if (builds) *builds_mirror = ++*builds;  // this build counts (device-resident builds only)
  }
}
#endif

}  // namespace

void check_range(const Box& box, double range, const char* what) {
  for (int a = 0; a < 3; ++a)
    if (box.periodic[a] && !(2 * range <= box.L[a]))
      TESSERA_THROW(std::string(what) + ": cut-off + skin = " + std::to_string(range) + " is more than half the box (L[" +
                    std::to_string(a) + "] = " + std::to_string(box.L[a]) +
                    "); use a larger system or a shorter cut-off/skin (minimum image needs 2 (rc + skin) <= L)");
}

void NeighborList::set_cell_reach(int reach) {
  TESSERA_REQUIRE(reach == 1 || reach == 2, "neighbour list: cell reach must be 1 or 2");
  reach_ = reach;
}

NeighborList::NeighborList(exec::Space space, double rc, double skin, int initial_capacity)
    : space_(space), rc_(rc), skin_(skin), capacity_(initial_capacity) {
  TESSERA_REQUIRE(rc > 0 && skin >= 0, "neighbour list needs rc > 0 and skin >= 0");
  TESSERA_REQUIRE(initial_capacity > 0, "neighbour capacity must be positive");
}

void NeighborList::bin_and_sort(const exec::Exec& ex, Particles& p, const Box& box, bool reorder) {
  // Owned particles and ghosts are binned alike (a ghost is a neighbour candidate); only owned ones
  // get a list (fill). On one rank there are no ghosts.
  const int64_t n = p.total();
  const MemKind mk = default_memkind(space_);
  const double range = rc_ + skin_;
  for (int a = 0; a < 3; ++a) nc_[a] = std::max(1, int(std::floor(box.L[a] * reach_ / range)));
  const int64_t ncells = int64_t(nc_[0]) * nc_[1] * nc_[2];
  TESSERA_REQUIRE(ncells < (int64_t(1) << 31), "too many cells: raise rc + skin or shrink the box");
  ensure(key_, std::size_t(n), mk, "md::cell_key");
  ensure(key_sorted_, std::size_t(n), mk, "md::cell_key_sorted");
  ensure(sorted_, std::size_t(n), mk, "md::cell_order");
  ensure(count_, std::size_t(n), mk, "md::neigh_count");
  ensure(cell_start_, std::size_t(ncells), mk, "md::cell_start");
  ensure(cell_end_, std::size_t(ncells), mk, "md::cell_end");

  // count_ doubles as the unsorted index array for the sort (it is overwritten by fill() later).
  exec::parallel_for(ex, "md::wrap_bin", n, WrapBin{p.view(), box, nc_[0], nc_[1], nc_[2], key_.data(), count_.data()});
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    int bits = 1;
    while ((int64_t(1) << bits) < ncells) ++bits;
    std::size_t tmp_bytes = 0;
    auto st = static_cast<cudaStream_t>(ex.stream);
    TESSERA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, key_.data(), key_sorted_.data(),
                                                       count_.data(), sorted_.data(), int(n), 0, bits, st));
    ensure(sort_tmp_, tmp_bytes, MemKind::Device, "md::sort_tmp");
    TESSERA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_tmp_.data(), tmp_bytes, key_.data(), key_sorted_.data(),
                                                       count_.data(), sorted_.data(), int(n), 0, bits, st));
#else
    exec::detail::no_device_backend("md::cell_sort");
#endif
  } else {
    const int* k = key_.data();
    std::iota(sorted_.begin(), sorted_.begin() + n, 0);
    std::stable_sort(sorted_.begin(), sorted_.begin() + n, [k](int a, int b) { return k[a] < k[b]; });
    for (int64_t i = 0; i < n; ++i) key_sorted_[std::size_t(i)] = k[sorted_[std::size_t(i)]];
  }
  reordered_ = reorder;
  if (reorder) {
    // Particles into cell order: afterwards particle s sits in cell key_sorted_[s] and the cell order is
    // the identity.
    p.permute_in_place(ex, sorted_.data());
    exec::parallel_for(ex, "md::cell_order_identity", n, Iota{sorted_.data()});
  }
  if (n == 0) exec::parallel_for(ex, "md::clear_cells", ncells, ClearCells{cell_start_.data(), cell_end_.data()});
  exec::parallel_for(ex, "md::mark_cells", n, MarkCells{key_sorted_.data(), cell_start_.data(), cell_end_.data(), n, ncells});
}

int NeighborList::fill(const exec::Exec& ex, Particles& p, const Box& box) {
  const int64_t n = p.size();  // owned particles only
  const double range = rc_ + skin_;
  ensure(neigh_, std::size_t(n) * std::size_t(capacity_), default_memkind(space_), "md::neigh");
  stride_ = n;
  exec::parallel_for(ex, "md::neigh_fill", n,
                     Fill{p.view(), box, nc_[0], nc_[1], nc_[2], reordered_ ? key_sorted_.data() : key_.data(), sorted_.data(), cell_start_.data(),
                          cell_end_.data(), neigh_.data(), count_.data(), n, capacity_, range * range, reach_});
  return n > 0 ? exec::reduce_max<int>(ex, "md::neigh_max", n, CountAt{count_.data()}) : 0;
}

void NeighborList::build(const exec::Exec& ex, Particles& p, const Box& box) {
  const auto t0 = std::chrono::steady_clock::now();
  check_range(box, rc_ + skin_, "neighbour list");
  const int64_t n = p.size();
  bin_and_sort(ex, p, box);
  if (ex.on_device() && d_max_count_.size() > 0) {  // device-resident builds in use: their running max
    d_max_count_.zero();                               // restarts from this build's count
    h_max_count_[0] = 0;
  }
  int mx = fill(ex, p, box);
  if (mx > capacity_) {  // overflow: grow with head-room and rebuild; nothing was lost, only not stored
    capacity_ = mx + mx / 4 + 8;
    ++stats_.regrows;
    mx = fill(ex, p, box);
    TESSERA_REQUIRE(mx <= capacity_, "neighbour list still overflows after regrowth");
  }
  stats_.max_count = mx;
  const MemKind mk = default_memkind(space_);
  ensure(x0_, std::size_t(n), mk, "md::x0");
  ensure(y0_, std::size_t(n), mk, "md::y0");
  ensure(z0_, std::size_t(n), mk, "md::z0");
  exec::parallel_for(ex, "md::neigh_snapshot", n,
                     Snapshot{p.x.data(), p.y.data(), p.z.data(), x0_.data(), y0_.data(), z0_.data()});
  exec::fence(ex);
  ++stats_.builds;
  stats_.build_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void NeighborList::build_async(const exec::Exec& ex, Particles& p, const Box& box, bool reorder, bool counted) {
  const int64_t n = p.size();
  TESSERA_REQUIRE(ex.on_device() && stats_.builds > 0 && stride_ == n && p.ghosts() == 0 && x0_.size() >= std::size_t(n),
                  "md: a device-resident list build needs a build() of the same particles on the device first");
#if TESSERA_CUDA_COMPILER
  device_builds_ = true;
  if (d_max_count_.size() == 0) {  // first device-resident build (Simulation makes it outside any graph)
    d_max_count_ = Buffer<int>(1, MemKind::Device, "md::max_count");
    d_done_ = Buffer<unsigned>(1, MemKind::Device, "md::max_count_done");
    h_max_count_ = Buffer<int>(1, MemKind::Pinned, "md::max_count_mirror");
    d_builds_ = Buffer<long long>(1, MemKind::Device, "md::device_builds");
    h_builds_ = Buffer<long long>(1, MemKind::Pinned, "md::device_builds_mirror");
    d_max_count_.zero();
    d_done_.zero();
    d_builds_.zero();
    h_max_count_[0] = 0;
    h_builds_[0] = 0;
  }
  const double range = rc_ + skin_;
  check_range(box, range, "neighbour list");
  bin_and_sort(ex, p, box, reorder);
  // Float positions for the fill (neighbour candidates may be ghosts in general: pack all of them).
  const int64_t nt = p.total();
  // Allocated by the first build_async, which Simulation makes outside any graph (rebuild()).
  ensure(pos4_, std::size_t(nt), MemKind::Device, "md::pos_f4");
  float4* q = reinterpret_cast<float4*>(pos4_.data());
  exec::parallel_for(ex, "md::pack_f4", nt, PackF4{p.x.data(), p.y.data(), p.z.data(), q});
  // Margin: float coordinates of magnitude up to `extent` are off by <= extent * 2^-24 each; a separation
  // (two coordinates and a shift) by a few of those per axis. 8 * 2^-24 * extent per axis, sqrt(3) over
  // the three, with room to spare: range * (1 + 1e-6) + 1e-6 * extent.
  double extent = 0;
  for (int a = 0; a < 3; ++a) extent = std::max(extent, std::abs(box.lo[a]) + box.L[a] + skin_);
  const double wide = range * (1 + 1e-6) + 1e-6 * extent;
  FastAxis ax[3];
  for (int a = 0; a < 3; ++a) {
    const bool full = nc_[a] >= 2 * reach_ + 1;
    ax[a] = FastAxis{nc_[a], float(box.L[a]), float(box.L[a] / nc_[a]), float(box.lo[a]), float(1.0 / box.L[a]),
                     float(nc_[a] / box.L[a]), box.periodic[a] && full, box.periodic[a] && !full};
  }
  const auto st = static_cast<cudaStream_t>(ex.stream);
  const bool image = ax[0].image || ax[1].image || ax[2].image;
  (image ? fill_fast<true> : fill_fast<false>)<<<unsigned((n + kFillThreads - 1) / kFillThreads), kFillThreads, 0, st>>>(
      q, n, reordered_ ? key_sorted_.data() : key_.data(), reordered_ ? nullptr : sorted_.data(), cell_start_.data(),
      cell_end_.data(), ax[0], ax[1], ax[2], reach_, float(2e-6 * extent), neigh_.data(), count_.data(), n, capacity_,
      float(wide * wide));
  TESSERA_CUDA_CHECK_LAUNCH("md::neigh_fill_fast");
  const unsigned grid = unsigned(std::min<int64_t>(kMaxBlocks, (n + kMaxThreads - 1) / kMaxThreads));
  max_count_kernel<<<grid, kMaxThreads, 0, st>>>(
      count_.data(), n, d_max_count_.data(), d_done_.data(), h_max_count_.data(), counted ? d_builds_.data() : nullptr,
      h_builds_.data());
  TESSERA_CUDA_CHECK_LAUNCH("md::neigh_max_async");
  exec::parallel_for(ex, "md::neigh_snapshot", n,
                     Snapshot{p.x.data(), p.y.data(), p.z.data(), x0_.data(), y0_.data(), z0_.data()});
#else
  (void)box, (void)reorder, (void)counted;
  exec::detail::no_device_backend("md::build_async");
#endif
}

const NeighborStats& NeighborList::stats() const {
  stats_view_ = stats_;
  if (h_builds_.size() > 0) stats_view_.builds += static_cast<const volatile long long*>(h_builds_.data())[0];
  stats_view_.max_count = max_count_seen();
  return stats_view_;
}

int NeighborList::max_count_seen() const {
  if (h_max_count_.size() == 0) return stats_.max_count;
  const int seen = static_cast<const volatile int*>(h_max_count_.data())[0];
  return std::max(stats_.max_count, seen);
}

CellView NeighborList::cells() const {
  return CellView{reordered_ ? key_sorted_.data() : key_.data(), sorted_.data(), cell_start_.data(), cell_end_.data(),
                  nc_[0], nc_[1], nc_[2], reach_};
}

bool NeighborList::needs_rebuild(const exec::Exec& ex, Particles& p, const Box& box) const {
  const int64_t n = p.size();
  if (stats_.builds == 0 || x0_.size() < std::size_t(n) || stride_ != n) return true;
  const double d2 = exec::reduce_max<double>(
      ex, "md::max_disp", n,
      Displacement2{p.x.data(), p.y.data(), p.z.data(), x0_.data(), y0_.data(), z0_.data(), box});
  return d2 > 0.25 * skin_ * skin_;
}

std::vector<std::vector<int>> brute_force_neighbors(const HostParticles& h, const Box& box, double range) {
  const int64_t n = h.size();
  std::vector<std::vector<int>> out(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double dx = box.image(h.x[i] - h.x[j], 0), dy = box.image(h.y[i] - h.y[j], 1),
                   dz = box.image(h.z[i] - h.z[j], 2);
      if (dx * dx + dy * dy + dz * dz < range * range) out[std::size_t(i)].push_back(int(j));
    }
  return out;
}

}  // namespace tessera::md
