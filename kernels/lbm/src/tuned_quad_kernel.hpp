// Internal: the device code of the quad kernel (four x-consecutive cells per thread; tuned_pair_cuda.cpp
// launches it), in a header so that its warp logic (shuffles, funnels, masks, index arithmetic) is also
// compiled against the host emulation of a warp in test_lbm_tuned, like the pair kernel's
// (tuned_pair_kernel.hpp, whose wall_mask this uses). Include after tuned_pair_kernel.hpp and the CUDA
// headers (or the emulation's replacements, plus float4 and uint2).
//
// Why: the pair kernel's warps move 256-byte (fp32) or 128-byte (fp16) requests; the L2's link between its
// two partitions, the limit of these kernels (docs/performance.md, LBM item 15), is loaded more per byte by
// narrow requests (a copy kernel: 1.08 fabric cycles per DRAM cycle with 16-byte elements, 1.18 with 4-byte,
// 1.29 with 2-byte). Here a thread owns the padded cells c .. c + 3 (c a multiple of 4) of one plane's
// rows taken as one sequence (a quad may straddle two rows: its cells keep their own x and row), and
// moves the four values of a population with one 16-byte (fp32: float4) or 8-byte (fp16: four halves)
// access: 512- or 256-byte warp requests, a quarter of the memory instructions and index arithmetic per
// cell.
//
// Alignment: the slot stride n and the plane size pxy are multiples of 4 (the launcher checks), so every
// own-cell access is an aligned quad. In the odd AA step the neighbour x - c_q (reads) or x + c_q (writes)
// is off by off_q = c_x + c_y px + c_z pxy cells, which is s = off_q mod 4 = (c_x + c_y PXM) mod 4 cells
// off the quads (PXM = px mod 4, a template parameter: 0 or 2). A read takes the aligned quad that holds
// its first value and the next lane's quad (shuffle), and funnels the four values out of the two; lane 31
// loads the next warp's quad itself. A write funnels its four values with the previous lane's (shuffle)
// into the aligned target quad; lane 0 writes only its own part of that quad and lane 31 the part of its
// values that falls into the next warp's first quad. Where a quad's cells are not all written (ghost cells,
// walls, inactive cells, wall links), its values are written one by one under a 4-bit mask.
//
// Walls as in the pair kernel: a cell with a wall neighbour (no kNoWallNeighbour bit) reads its neighbours'
// flags once (wall_mask); its links from and into walls are left out of the shuffled streaming and done by
// the cell itself (Ladd's moving-wall term), so a warp never leaves the quad path. The collision is one call
// of the same collide() for each cell (without the Smagorinsky model: the launcher takes the quad kernel only
// for steps without it): the values are those of the one-cell and pair kernels bit for bit.
#pragma once
#include <cstdint>

namespace tessera::lbm::detail {

// Four storage values of one population (cells c .. c + 3) as one aligned access. Element indices j are
// compile-time after unrolling.
template <class S>
struct QuadOps;

template <>
struct QuadOps<float> {
  using V = float4;
  __device__ static float get(const V& v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }
  __device__ static void set(V& v, int j, float x) {
    if (j == 0) v.x = x;
    else if (j == 1) v.y = x;
    else if (j == 2) v.z = x;
    else v.w = x;
  }
  // r[p] = p + t < 4 ? a[p + t] : b[p + t - 4], t = 1..3.
  __device__ static V funnel(const V& a, const V& b, int t) {
    V r;
    TESSERA_LBM_UNROLL
    for (int p = 0; p < 4; ++p) set(r, p, p + t < 4 ? get(a, p + t) : get(b, p + t - 4));
    return r;
  }
  // The next lane's elements 0 .. t-1 (the rest: this lane's), and the previous lane's elements 4-t .. 3.
  __device__ static V from_next(const V& v, int t) {
    V r = v;
    TESSERA_LBM_UNROLL
    for (int p = 0; p < t; ++p) set(r, p, __shfl_down_sync(0xffffffffu, get(v, p), 1));
    return r;
  }
  __device__ static V from_prev(const V& v, int t) {
    V r = v;
    TESSERA_LBM_UNROLL
    for (int p = 4 - t; p < 4; ++p) set(r, p, __shfl_up_sync(0xffffffffu, get(v, p), 1));
    return r;
  }
  __device__ static void put1(float* p, int j, const V& v) { p[j] = get(v, j); }
};

template <>
struct QuadOps<half_t> {
  using V = uint2;  // x: cells c, c + 1 (low 16 bits first); y: cells c + 2, c + 3
  __device__ static uint64_t u64(const V& v) { return uint64_t(v.x) | (uint64_t(v.y) << 32); }
  __device__ static V of(uint64_t u) {
    V r;
    r.x = uint32_t(u);
    r.y = uint32_t(u >> 32);
    return r;
  }
  __device__ static float get(const V& v, int j) {
    const uint32_t w = j < 2 ? v.x : v.y;
    return half_bits_to_float(uint16_t((j & 1) ? (w >> 16) : (w & 0xffffu)));
  }
  // Rounds as Storage<half_t>::store (round to nearest even).
  __device__ static void set(V& v, int j, float x) {
    const uint32_t h = float_to_half_bits(x);
    uint32_t& w = j < 2 ? v.x : v.y;
    w = (j & 1) ? ((w & 0xffffu) | (h << 16)) : ((w & 0xffff0000u) | h);
  }
  __device__ static V funnel(const V& a, const V& b, int t) {
    return of((u64(a) >> (16 * t)) | (u64(b) << (64 - 16 * t)));
  }
  __device__ static V from_next(const V& v, int t) {
    V r = v;
    r.x = __shfl_down_sync(0xffffffffu, v.x, 1);
    if (t > 2) r.y = __shfl_down_sync(0xffffffffu, v.y, 1);
    return r;
  }
  __device__ static V from_prev(const V& v, int t) {
    V r = v;
    r.y = __shfl_up_sync(0xffffffffu, v.y, 1);
    if (t > 2) r.x = __shfl_up_sync(0xffffffffu, v.x, 1);
    return r;
  }
  __device__ static void put1(half_t* p, int j, const V& v) {
    const uint32_t w = j < 2 ? v.x : v.y;
    p[j].bits = uint16_t((j & 1) ? (w >> 16) : (w & 0xffffu));
  }
};

struct QuadGeom {
  uint32_t n;      // padded cells (= stride between populations; a multiple of 4)
  uint32_t px;     // padded row pitch (even)
  uint32_t pxy;    // padded plane size (a multiple of 4)
  uint32_t quads;  // threads per plane
};

// The first padded cell of plane k's quads: the plane's row y = 1, rounded down to a multiple of 4.
__device__ inline uint32_t quad_base(const QuadGeom& g, uint32_t k) { return (g.pxy * (k + 1u) + g.px) & ~3u; }

// The quad of values v at element e (a multiple of 4), each written only where bit j of m is set.
template <class S, class V = typename QuadOps<S>::V>
__device__ inline void quad_put(S* __restrict__ f, uint32_t e, const V& v, uint32_t m) {
  if (m == 0xfu) {
    *reinterpret_cast<V*>(f + e) = v;
  } else if (m != 0u) {
    TESSERA_LBM_UNROLL
    for (int j = 0; j < 4; ++j)
      if ((m >> j) & 1u) QuadOps<S>::put1(f + e, j, v);
  }
}

// The update of thread t of plane k (lane = t mod 32); PXM = px mod 4; c_walls: the wall table. KF: the step
// has a force (uniform or per-cell); false drops the force terms (collide_cell's force-free form).
template <class L, class S, CollisionKind K, int PXM, bool KF = true>
__device__ inline void quad_update(S* __restrict__ f, const uint8_t* __restrict__ flags, const StepArgs<float>& a,
                                   const QuadGeom& g, const WallTable& c_walls, uint32_t t, uint32_t k,
                                   unsigned lane) {
  using O = QuadOps<S>;
  using V = typename O::V;
  constexpr int Q = L::Q;
  const uint32_t plane = g.pxy * (k + 1u);
  const uint32_t lo = plane + g.px, end = plane + g.pxy - g.px;  // rows y = 1 .. py - 2
  const uint32_t c0 = quad_base(g, k) + 4u * t;
  const bool valid = c0 < end;
  // Idle lanes past the plane's last row take the first quad after it (all the same one, nothing of their own
  // stored), so that the first of them writes the last live lane's values that fall into that quad.
  const uint32_t c = valid ? c0 : (end + 3u) & ~3u;
  const uint32_t r0 = (c - plane) / g.px;
  const uint32_t x0 = c - plane - r0 * g.px;
  const uint32_t fl4 = __ldg(reinterpret_cast<const uint32_t*>(flags + c));
  uint32_t up4 = 0;  // bit j: cell c + j is updated
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    const uint32_t cj = c + uint32_t(j);
    const uint32_t xj = x0 + uint32_t(j) >= g.px ? x0 + uint32_t(j) - g.px : x0 + uint32_t(j);
    const uint8_t fl = uint8_t(fl4 >> (8 * j));
    if (valid && cj >= lo && cj < end && xj != 0u && xj != g.px - 1u && is_fluid(fl)) up4 |= 1u << j;
  }
  if (!__any_sync(0xffffffffu, up4 != 0u)) return;  // warp-uniform

  // Odd step: bit q of wm[j]: the cell at c + j + c_q is a wall (cells with a wall neighbour only).
  uint32_t wm[4] = {0u, 0u, 0u, 0u};
  if (a.odd) {
    TESSERA_LBM_UNROLL
    for (int j = 0; j < 4; ++j)
      if (((up4 >> j) & 1u) && !((fl4 >> (8 * j)) & kNoWallNeighbour)) wm[j] = wall_mask<L>(flags, a.grid, c + uint32_t(j));
  }
  const bool walls = __any_sync(0xffffffffu, (wm[0] | wm[1] | wm[2] | wm[3]) != 0u);  // warp-uniform

  const uint32_t n = g.n;
  V v[Q];
  if (!a.odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) v[q] = *reinterpret_cast<const V*>(f + (uint32_t(q) * n + c));
  } else {
    v[0] = *reinterpret_cast<const V*>(f + c);
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; ++q) {
      const int s = (4 - ((L::c(q, 0) + L::c(q, 1) * PXM) & 3)) & 3;  // the read at c - off_q: s cells past a quad
      const int32_t off = int32_t(L::c(q, 0)) + int32_t(L::c(q, 1)) * int32_t(g.px) + int32_t(L::c(q, 2)) * int32_t(g.pxy);
      const uint32_t e = uint32_t(opposite(q)) * n + c - uint32_t(off) - uint32_t(s);  // aligned
      const V own = *reinterpret_cast<const V*>(f + e);
      if (s == 0) {
        v[q] = own;
      } else {
        V nxt = O::from_next(own, s);
        if (lane == 31u && up4 != 0u) nxt = *reinterpret_cast<const V*>(f + e + 4u);
        v[q] = O::funnel(own, nxt, s);
      }
    }
  }

  float F[3] = {a.Fx, a.Fy, a.Fz};
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    float x[Q];
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) x[q] = O::get(v[q], j);
    const uint32_t cj = c + uint32_t(j);
    if (walls && wm[j]) {  // links from a wall (x - c_q is a wall, bit opp(q)): the cell's own slot q + term
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; ++q)
        if ((wm[j] >> opposite(q)) & 1u)
          x[q] = Storage<S>::load(f[uint32_t(q) * n + cj]) +
                 wall_term<L, float>(q, c_walls, flags[int64_t(cj) - a.grid.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))]);
    }
    if constexpr (KF) {
      float Fj[3] = {F[0], F[1], F[2]};
      if (a.force)
        TESSERA_LBM_UNROLL
        for (int d = 0; d < 3; ++d) Fj[d] += a.force[uint32_t(d) * n + cj];
      collide<L, K, float, true, false>(x, a.relax, Fj[0], Fj[1], Fj[2]);
    } else {
      collide<L, K, float, false, false>(x, a.relax, 0.f, 0.f, 0.f);
    }
    if (walls && wm[j]) {  // links into a wall: bounce back into the cell's own slot opp(q)
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; ++q)
        if ((wm[j] >> q) & 1u)
          f[uint32_t(opposite(q)) * n + cj] = Storage<S>::store(
              x[q] - wall_term<L, float>(q, c_walls, flags[int64_t(cj) + a.grid.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))]));
    }
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) O::set(v[q], j, x[q]);
  }

  if (!a.odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) quad_put<S>(f, uint32_t(opposite(q)) * n + c, v[q], up4);
    return;
  }
  quad_put<S>(f, c, v[0], up4);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < Q; ++q) {
    // The cells whose link q streams (bit j), then the write at c + off_q: s cells past a quad.
    uint32_t m = up4;
    if (walls)
      m &= ~(((wm[0] >> q) & 1u) | (((wm[1] >> q) & 1u) << 1) | (((wm[2] >> q) & 1u) << 2) | (((wm[3] >> q) & 1u) << 3));
    const int s = (L::c(q, 0) + L::c(q, 1) * PXM) & 3;
    const int32_t off = int32_t(L::c(q, 0)) + int32_t(L::c(q, 1)) * int32_t(g.px) + int32_t(L::c(q, 2)) * int32_t(g.pxy);
    const uint32_t e = uint32_t(q) * n + c + uint32_t(off) - uint32_t(s);  // aligned
    if (s == 0) {
      quad_put<S>(f, e, v[q], m);
    } else {
      // Target quad e: positions 0 .. s-1 from the previous lane's cells 4-s .. 3, s .. 3 from cells 0 .. 3-s.
      const V prev = O::from_prev(v[q], s);
      uint32_t mp = __shfl_up_sync(0xffffffffu, m, 1);
      if (lane == 0u) mp = 0u;  // the previous warp's lane 31 writes those positions
      quad_put<S>(f, e, O::funnel(prev, v[q], 4 - s), ((m << s) | (mp >> (4 - s))) & 0xfu);
      if (lane == 31u) quad_put<S>(f, e + 4u, O::funnel(v[q], v[q], 4 - s), m >> (4 - s));  // into the next warp's quad
    }
  }
}

}  // namespace tessera::lbm::detail
