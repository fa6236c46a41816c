// Internal: the device code of the quad kernel (four x-consecutive cells per thread, even AA steps only;
// tuned_pair_cuda.cpp launches it), in a header so that it is also compiled against the host emulation of
// a warp in test_lbm_tuned, like the pair kernel's (tuned_pair_kernel.hpp). Include after the CUDA headers
// (or the emulation's replacements, with float4 and uint2).
//
// Why: in fp16 the one-cell kernel's warps move 64-byte requests (32 lanes x 2 bytes per population), and
// the link between the L2's two partitions, which limits these kernels, is loaded more per DRAM byte by
// narrow requests (docs/performance.md, LBM item 15: 1.6 fabric cycles per DRAM cycle for the fp16
// one-cell kernel, 1.2-1.3 for the fp32 kernels; a copy kernel 1.08 with 16-byte elements, 1.29 with
// 2-byte). Here a thread owns the padded cells c .. c + 3 (c a multiple of 4) of one plane's rows taken
// as one sequence (a quad may straddle two rows: its cells keep their own x and row) and moves the four
// values of a population with one 8-byte (fp16) or 16-byte (fp32) access: 256- or 512-byte warp requests.
//
// Even steps by default. In the even AA step every access is the cell's own (slot q read, slot opp(q) written),
// so with the slot stride n a multiple of 4 every access is an aligned quad. The odd step's neighbours are
// 1-3 cells off the quads (off_q = c_x + c_y px + c_z pxy); a form of this kernel that funnelled them
// through shuffles (two lanes' quads per value, the warps' end lanes loading and storing the part beyond
// the warp) was slower there than the one-cell kernel (ncu, fp16 256^3: 590 us against 554) and spilled
// for D3Q27 and fp32, so odd steps keep their kernel (docs/performance.md, LBM item 16). Where the rows
// are a multiple of 4 cells only the c_x = +-1 neighbours are off the quads (one cell); quad_update_odd
// below is that case's odd step (opt-in, TESSERA_LBM_QUAD_ODD=on: level for D3Q19 fp32, slower elsewhere
// at 168 registers; item 17). Walls, inactive cells and ghost cells are not updated (written under a 4-bit
// mask); the even step needs no wall handling.
// The collision is one call of the same collide() for each cell: the values are those of the one-cell and
// pair kernels bit for bit.
#pragma once
#include <cstdint>

#include "tuned_ld_hint.hpp"
#include "tuned_slot.hpp"

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
  __device__ static void put1(float* p, int j, const V& v) { p[j] = get(v, j); }
  // Raw storage elements (the odd step moves them between lanes unchanged).
  using E = float;
  __device__ static E raw(const V& v, int j) { return get(v, j); }
  __device__ static E raw_at(const float* p) { return *p; }
  __device__ static void put_raw(float* p, E e) { *p = e; }
  __device__ static V shift_up(const V& v, E b) { return V{b, v.x, v.y, v.z}; }    // b, v0, v1, v2
  __device__ static V shift_down(const V& v, E a) { return V{v.y, v.z, v.w, a}; }  // v1, v2, v3, a
};

template <>
struct QuadOps<half_t> {
  using V = uint2;  // x: cells c, c + 1 (low 16 bits first); y: cells c + 2, c + 3
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
  __device__ static void put1(half_t* p, int j, const V& v) {
    const uint32_t w = j < 2 ? v.x : v.y;
    p[j].bits = uint16_t((j & 1) ? (w >> 16) : (w & 0xffffu));
  }
  // Raw storage elements: the half's 16 bits in the low bits of a word.
  using E = uint32_t;
  __device__ static E raw(const V& v, int j) {
    const uint32_t w = j < 2 ? v.x : v.y;
    return (j & 1) ? (w >> 16) : (w & 0xffffu);
  }
  __device__ static E raw_at(const half_t* p) { return p->bits; }
  __device__ static void put_raw(half_t* p, E e) { p->bits = uint16_t(e); }
  __device__ static V shift_up(const V& v, E b) { return V{(v.x << 16) | b, (v.x >> 16) | (v.y << 16)}; }
  __device__ static V shift_down(const V& v, E a) { return V{(v.x >> 16) | (v.y << 16), (v.y >> 16) | (a << 16)}; }
};

struct QuadGeom {
  uint32_t n;      // padded cells (= stride between populations; a multiple of 4)
  uint32_t px;     // padded row pitch
  uint32_t pxy;    // padded plane size
  uint32_t quads;  // threads per plane
};

// The geometry of grid g (host side: the launcher and the host emulation in test_lbm_tuned). Per plane the
// quads cover rows 1 .. ny from the row-1 start rounded down to a multiple of 4 (at most 3 cells before).
inline QuadGeom make_quad_geom(const GridLayout& g) {
  QuadGeom q;
  q.n = uint32_t(g.cells());
  q.px = uint32_t(g.px());
  q.pxy = uint32_t(g.px() * g.py());
  q.quads = uint32_t((uint64_t(q.px) * uint64_t(g.ny) + 3u + 3u) / 4u);
  return q;
}

// The first padded cell of plane k's quads: the plane's row y = 1, rounded down to a multiple of 4.
__device__ inline uint32_t quad_base(const QuadGeom& g, uint32_t k) { return (g.pxy * (k + 1u) + g.px) & ~3u; }

// The quad of values v at element e (a multiple of 4), each written only where bit j of m is set: the whole
// quad in one store, or its cells one by one, as independent conditions so that each store is one predicated
// instruction rather than a branch per link where a warp's quads differ (at the rows' ends; as pair_update's
// put, docs/performance.md, LBM item 50).
template <class S, class V = typename QuadOps<S>::V>
__device__ inline void quad_put(S* __restrict__ f, uint32_t e, const V& v, uint32_t m) {
  if (m == 0xfu) *reinterpret_cast<V*>(f + e) = v;
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j)
    if (m != 0xfu && ((m >> j) & 1u)) QuadOps<S>::put1(f + e, j, v);
}

// Which cells of the quad at padded cell c of plane k an even step updates (bit j: cell c + j): those in
// [lo, end) (rows of the plane: by default rows 1 .. py - 2, quad_even_mask), off the x ghost columns, and
// fluid. 0 for a quad at or past end.
__device__ inline uint32_t quad_even_mask_in(const QuadGeom& g, const uint8_t* __restrict__ flags, uint32_t c, uint32_t k,
                                            uint32_t lo, uint32_t end) {
  const uint32_t plane = g.pxy * (k + 1u);
  if (c >= end) return 0u;
  const uint32_t r0 = (c - plane) / g.px;
  const uint32_t x0 = c - plane - r0 * g.px;
  const uint32_t fl4 = __ldg(reinterpret_cast<const uint32_t*>(flags + c));
  uint32_t up4 = 0;
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    const uint32_t cj = c + uint32_t(j);
    const uint32_t xj = x0 + uint32_t(j) >= g.px ? x0 + uint32_t(j) - g.px : x0 + uint32_t(j);
    if (cj >= lo && cj < end && xj != 0u && xj != g.px - 1u && is_fluid(uint8_t(fl4 >> (8 * j)))) up4 |= 1u << j;
  }
  return up4;
}
__device__ inline uint32_t quad_even_mask(const QuadGeom& g, const uint8_t* __restrict__ flags, uint32_t c, uint32_t k) {
  const uint32_t plane = g.pxy * (k + 1u);
  return quad_even_mask_in(g, flags, c, k, plane + g.px, plane + g.pxy - g.px);  // rows y = 1 .. py - 2
}

// A quad's load: hinted when H (tuned_ld_hint.hpp); with CG (the fused steps, tuned_fused_cuda.cpp) cached in
// the L2 only (ld.global.cg), so that no L1 line of this multiprocessor from earlier in the launch is read.
template <bool H, bool CG, class T>
__device__ inline T ld_quad(const T* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (CG) return __ldcg(p);
#endif
  return ld_pop<H>(p);
}

// The even-step update of the quad at padded cell c (a multiple of 4) of plane k, for its cells in [lo, end)
// (quad_even_mask_in). KF: the step has a force (uniform or per-cell); false drops the force terms
// (collide_cell's force-free form). H: the loads carry the L2 128-byte hint (tuned_ld_hint.hpp). SP
// (TESSERA_LBM_SPECULATE, tuned_ld_hint.hpp): the loads of a quad before `end` are issued before its flags have
// arrived (a quad at or past end loads nothing); a quad none of whose cells is updated drops them. CG: loads
// cached in the L2 only (ld_quad).
template <class L, class S, CollisionKind K, bool KF = true, bool H = false, bool SP = false, bool CG = false>
__device__ inline void quad_even_at(const SlotPtrs<S>& sp, const uint8_t* __restrict__ flags, const StepArgs<float>& a,
                                    const QuadGeom& g, uint32_t c, uint32_t k, uint32_t lo, uint32_t end) {
  using O = QuadOps<S>;
  using V = typename O::V;
  constexpr int Q = L::Q;
  V v[Q];
  const auto load = [&] {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) v[q] = ld_quad<H, CG>(reinterpret_cast<const V*>(sp.p[q] + c));
  };
  if constexpr (SP) {
    if (c >= end) return;  // (quad_even_mask_in's end)
    load();
  }
  const uint32_t up4 = quad_even_mask_in(g, flags, c, k, lo, end);
  if (up4 == 0u) return;
  if constexpr (!SP) load();

  const uint32_t n = g.n;
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    float x[Q];
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) x[q] = O::get(v[q], j);
    if constexpr (KF) {
      float F[3] = {a.Fx, a.Fy, a.Fz};
      if (a.force) {
        TESSERA_LBM_UNROLL
        for (int d = 0; d < 3; ++d) F[d] += slot(a.force, d, n)[c + uint32_t(j)];
      }
      collide<L, K, float>(x, a.relax, F[0], F[1], F[2]);
    } else {
      collide<L, K, float, false>(x, a.relax, 0.f, 0.f, 0.f);
    }
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) O::set(v[q], j, x[q]);
  }
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) quad_put<S>(sp.p[opposite(q)], c, v[q], up4);
}

// The even-step update of thread t of plane k: its quad of the plane's rows 1 .. py - 2 (quad_even_at).
template <class L, class S, CollisionKind K, bool KF = true, bool H = false, bool SP = false>
__device__ inline void quad_update_even(const SlotPtrs<S>& sp, const uint8_t* __restrict__ flags, const StepArgs<float>& a,
                                        const QuadGeom& g, uint32_t t, uint32_t k) {
  const uint32_t plane = g.pxy * (k + 1u);
  quad_even_at<L, S, K, KF, H, SP>(sp, flags, a, g, quad_base(g, k) + 4u * t, k, plane + g.px, plane + g.pxy - g.px);
}

// The odd-step update of thread t of plane k (lane = t mod 32). Needs rows of a multiple of 4 cells
// (px % 4 == 0: tuned_quad_odd_used), so that no quad straddles two rows and every neighbour quad along y
// and z is aligned; only the links with c_x != 0 are one cell off the quads. The pair kernel's odd step
// (tuned_pair_kernel.hpp) with four cells: each population is one aligned quad load (slot opp(q) at
// c - (0, c_y, c_z)) and one aligned quad store (slot q at c + (0, c_y, c_z)); for c_x = +-1 the value that
// lies in the neighbour lane's quad comes through one shuffle, and the warp's end lanes load or store the
// one value beyond the warp themselves. A cell with a wall neighbour (no kNoWallNeighbour bit) reads its
// neighbours' flags; its links from walls take the cell's own slot plus the wall term, and its links into
// walls are bounced back into its own slots right after its collision (no other cell uses or writes
// those slots on this step), so the values are the pair kernel's bit for bit. Needs wall_mask
// (tuned_pair_kernel.hpp).
template <class L, class S, CollisionKind K, bool KF = true>
__device__ inline void quad_update_odd(S* __restrict__ f, const SlotPtrs<S>& sp, const uint8_t* __restrict__ flags,
                                       const StepArgs<float>& a,
                                       const QuadGeom& g, const WallTable& walls, uint32_t t, uint32_t k,
                                       unsigned lane) {
  using O = QuadOps<S>;
  using V = typename O::V;
  using E = typename O::E;
  constexpr int Q = L::Q;
  constexpr unsigned kAll = 0xffffffffu;
  const uint32_t plane = g.pxy * (k + 1u);
  const uint32_t end = plane + g.pxy - g.px;  // ghost row y = py - 1
  const uint32_t c0 = quad_base(g, k) + 4u * t;
  const bool valid = c0 < end;
  const uint32_t c = valid ? c0 : end - 4u;  // lanes past the plane's last row: the last quad, idle
  const uint32_t x0 = (c - plane) % g.px;
  const uint32_t fl4 = __ldg(reinterpret_cast<const uint32_t*>(flags + c));
  uint32_t up4 = 0;  // bit j: cell c + j is updated
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    const uint32_t xj = x0 + uint32_t(j);
    if (valid && xj != 0u && xj != g.px - 1u && is_fluid(uint8_t(fl4 >> (8 * j)))) up4 |= 1u << j;
  }
  if (!__any_sync(kAll, up4 != 0u)) return;  // warp-uniform
  uint32_t wm[4] = {0u, 0u, 0u, 0u};  // bit q: the cell at c + j + c_q is a wall
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j)
    if (((up4 >> j) & 1u) && !(uint8_t(fl4 >> (8 * j)) & kStreamFree))
      wm[j] = wall_mask<L>(flags, a.grid, c + uint32_t(j));
  const uint32_t n = g.n;

  V u[Q];  // per population the values of cells c .. c + 3 (arriving, then post-collision)
  u[0] = *reinterpret_cast<const V*>(f + c);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < Q; ++q) {
    const int cx = L::c(q, 0);
    const int32_t yz = int32_t(L::c(q, 1)) * int32_t(g.px) + int32_t(L::c(q, 2)) * int32_t(g.pxy);
    const S* e = slot_back(sp.p[opposite(q)], c, uint32_t(yz));  // slot opp(q), quad at c - (0, c_y, c_z)
    const V v = *reinterpret_cast<const V*>(e);
    if (cx == 0) {
      u[q] = v;
    } else if (cx == 1) {  // from x - 1: (e - 1, e, e + 1, e + 2)
      E b = __shfl_up_sync(kAll, O::raw(v, 3), 1);
      if (lane == 0u && (up4 & 1u)) b = O::raw_at(e - 1);
      u[q] = O::shift_up(v, b);
    } else {  // from x + 1: (e + 1, .., e + 4)
      E b = __shfl_down_sync(kAll, O::raw(v, 0), 1);
      if (lane == 31u && (up4 & 8u)) b = O::raw_at(e + 4);
      u[q] = O::shift_down(v, b);
    }
  }

  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    const uint32_t cj = c + uint32_t(j);
    float x[Q];
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) x[q] = O::get(u[q], j);
    if (wm[j]) {  // links from a wall (x - c_q is a wall, bit opp(q)): the cell's own slot q + term
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; ++q)
        if ((wm[j] >> opposite(q)) & 1u)
          x[q] = through_storage<S>(
              Storage<S>::load(sp.p[q][cj]) +
              wall_term<L, float>(q, walls, flags[int64_t(cj) - a.grid.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))]));
    }
    if constexpr (KF) {
      float F[3] = {a.Fx, a.Fy, a.Fz};
      if (a.force) {
        TESSERA_LBM_UNROLL
        for (int d = 0; d < 3; ++d) F[d] += slot(a.force, d, n)[cj];
      }
      collide<L, K, float>(x, a.relax, F[0], F[1], F[2]);
    } else {
      collide<L, K, float, false>(x, a.relax, 0.f, 0.f, 0.f);
    }
    if (wm[j]) {  // links into a wall: bounce back into the cell's own slot opp(q)
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; ++q)
        if ((wm[j] >> q) & 1u)
          sp.p[opposite(q)][cj] = Storage<S>::store(
              through_storage<S>(x[q]) -
              wall_term<L, float>(q, walls, flags[int64_t(cj) + a.grid.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))]));
    }
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) O::set(u[q], j, x[q]);
  }

  // Which neighbour lanes' end cells stream (for the shuffled stores): lane - 1's cell 3, lane + 1's cell 0.
  const uint32_t b3 = __ballot_sync(kAll, (up4 & 8u) != 0u), b0 = __ballot_sync(kAll, (up4 & 1u) != 0u);
  const bool below_up = lane != 0u && ((b3 >> (lane - 1u)) & 1u);
  const bool above_up = lane != 31u && ((b0 >> (lane + 1u)) & 1u);
  const uint32_t wm_below = __shfl_up_sync(kAll, wm[3], 1), wm_above = __shfl_down_sync(kAll, wm[0], 1);
  quad_put<S>(f, c, u[0], up4);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < Q; ++q) {
    const int cx = L::c(q, 0);
    const int32_t yz = int32_t(L::c(q, 1)) * int32_t(g.px) + int32_t(L::c(q, 2)) * int32_t(g.pxy);
    S* e = sp.p[q] + (c + uint32_t(yz));  // slot q, quad at c + (0, c_y, c_z)
    uint32_t s = up4;  // bit j: cell c + j streams along q (updated, no wall there)
    TESSERA_LBM_UNROLL
    for (int j = 0; j < 4; ++j)
      if ((wm[j] >> q) & 1u) s &= ~(1u << j);
    if (cx == 0) {
      quad_put<S>(e, 0u, u[q], s);
    } else if (cx == 1) {  // cells c - 1 .. c + 2 -> the quad at e (c - 1 from lane - 1), c + 3 -> e + 4
      const E b = __shfl_up_sync(kAll, O::raw(u[q], 3), 1);
      const bool bs = below_up && !((wm_below >> q) & 1u);
      quad_put<S>(e, 0u, O::shift_up(u[q], b), ((s << 1) & 0xeu) | (bs ? 1u : 0u));
      if (lane == 31u && (s & 8u)) O::put_raw(e + 4, O::raw(u[q], 3));
    } else {  // cells c + 1 .. c + 4 (c + 4 from lane + 1) -> the quad at e, c -> e - 1
      const E b = __shfl_down_sync(kAll, O::raw(u[q], 0), 1);
      const bool bs = above_up && !((wm_above >> q) & 1u);
      quad_put<S>(e, 0u, O::shift_down(u[q], b), (s >> 1) | (bs ? 8u : 0u));
      if (lane == 0u && (s & 1u)) O::put_raw(e - 1, O::raw(u[q], 0));
    }
  }
}

}  // namespace tessera::lbm::detail
