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
// Even steps only. In the even AA step every access is the cell's own (slot q read, slot opp(q) written),
// so with the slot stride n a multiple of 4 every access is an aligned quad. The odd step's neighbours are
// 1-3 cells off the quads (off_q = c_x + c_y px + c_z pxy); a form of this kernel that funnelled them
// through shuffles (two lanes' quads per value, the warps' end lanes loading and storing the part beyond
// the warp) was slower there than the one-cell kernel (ncu, fp16 256^3: 590 us against 554) and spilled
// for D3Q27 and fp32, so odd steps keep their kernel (docs/performance.md, LBM item 16). Walls, inactive
// cells and ghost cells are not updated (written under a 4-bit mask); the even step needs no wall handling.
// The collision is one call of the same collide() for each cell: the values are those of the one-cell and
// pair kernels bit for bit.
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
  __device__ static void put1(float* p, int j, const V& v) { p[j] = get(v, j); }
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

// The even-step update of thread t of plane k. KF: the step has a force (uniform or per-cell); false drops
// the force terms (collide_cell's force-free form).
template <class L, class S, CollisionKind K, bool KF = true>
__device__ inline void quad_update_even(S* __restrict__ f, const uint8_t* __restrict__ flags, const StepArgs<float>& a,
                                        const QuadGeom& g, uint32_t t, uint32_t k) {
  using O = QuadOps<S>;
  using V = typename O::V;
  constexpr int Q = L::Q;
  const uint32_t plane = g.pxy * (k + 1u);
  const uint32_t lo = plane + g.px, end = plane + g.pxy - g.px;  // rows y = 1 .. py - 2
  const uint32_t c = quad_base(g, k) + 4u * t;
  if (c >= end) return;
  const uint32_t r0 = (c - plane) / g.px;
  const uint32_t x0 = c - plane - r0 * g.px;
  const uint32_t fl4 = __ldg(reinterpret_cast<const uint32_t*>(flags + c));
  uint32_t up4 = 0;  // bit j: cell c + j is updated
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    const uint32_t cj = c + uint32_t(j);
    const uint32_t xj = x0 + uint32_t(j) >= g.px ? x0 + uint32_t(j) - g.px : x0 + uint32_t(j);
    if (cj >= lo && cj < end && xj != 0u && xj != g.px - 1u && is_fluid(uint8_t(fl4 >> (8 * j)))) up4 |= 1u << j;
  }
  if (up4 == 0u) return;

  const uint32_t n = g.n;
  V v[Q];
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) v[q] = *reinterpret_cast<const V*>(f + (uint32_t(q) * n + c));
  TESSERA_LBM_UNROLL
  for (int j = 0; j < 4; ++j) {
    float x[Q];
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) x[q] = O::get(v[q], j);
    if constexpr (KF) {
      float F[3] = {a.Fx, a.Fy, a.Fz};
      if (a.force) {
        TESSERA_LBM_UNROLL
        for (int d = 0; d < 3; ++d) F[d] += a.force[uint32_t(d) * n + c + uint32_t(j)];
      }
      collide<L, K, float>(x, a.relax, F[0], F[1], F[2]);
    } else {
      collide<L, K, float, false>(x, a.relax, 0.f, 0.f, 0.f);
    }
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) O::set(v[q], j, x[q]);
  }
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) quad_put<S>(f, uint32_t(opposite(q)) * n + c, v[q], up4);
}

}  // namespace tessera::lbm::detail
