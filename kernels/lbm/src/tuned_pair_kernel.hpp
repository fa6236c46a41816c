// Internal: the device code of the pair kernel (tuned_pair_cuda.cpp), in a header so that the warp logic
// (shuffles, masks, index arithmetic) can also be compiled against a host emulation of a warp. Include
// after the CUDA headers (or the emulation's replacements of __shfl_*_sync, __ballot_sync, __any_sync,
// __all_sync, __ldg, __half2, __half22float2, __floats2half2_rn, float2, make_float2 and __device__).
#pragma once
#include <cstdint>
#include <cstring>

#include "tessera/lbm/stream_collide.hpp"
#include "tuned_slot.hpp"

namespace tessera::lbm::detail {

// Two storage values of one population (cells x0, x0 + 1) as one aligned access.
template <class S>
struct PairOps;

template <>
struct PairOps<float> {
  using V = float2;
  __device__ static void unpack(V v, float& lo, float& hi) { lo = v.x, hi = v.y; }
  __device__ static V pack(float lo, float hi) { return make_float2(lo, hi); }
  __device__ static float lo_of(V v) { return v.x; }
  __device__ static float hi_of(V v) { return v.y; }
  // The neighbour lane's high (low) value, as float.
  __device__ static float hi_from_below(V v) { return __shfl_up_sync(0xffffffffu, v.y, 1); }
  __device__ static float lo_from_above(V v) { return __shfl_down_sync(0xffffffffu, v.x, 1); }
};

template <>
struct PairOps<half_t> {
  using V = uint32_t;  // low 16 bits: cell x0, high 16 bits: cell x0 + 1
  __device__ static void unpack(V v, float& lo, float& hi) {
    __half2 h;
    std::memcpy(&h, &v, 4);
    const float2 r = __half22float2(h);
    lo = r.x, hi = r.y;
  }
  __device__ static V pack(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);  // round to nearest even, each half: = Storage::store
    V v;
    std::memcpy(&v, &h, 4);
    return v;
  }
  __device__ static float lo_of(V v) { return half_bits_to_float(uint16_t(v & 0xffffu)); }
  __device__ static float hi_of(V v) { return half_bits_to_float(uint16_t(v >> 16)); }
  __device__ static float hi_from_below(V v) { return hi_of(__shfl_up_sync(0xffffffffu, v, 1)); }
  __device__ static float lo_from_above(V v) { return lo_of(__shfl_down_sync(0xffffffffu, v, 1)); }
};

// Cache modes of the pair accesses (tuning; bits): 1 = loads with the L2 prefetch-size hint of 256 bytes
// (PTX ld.global.L2::256B, sm_80+: the L2 fetches the whole 256-byte block around the access), 2 = stores
// evict-first (st.global.cs), 4 = loads cached in L2 only (ld.global.cg), 8 = loads with the 128-byte hint
// (ld.global.L2::128B, as tuned_ld_hint.hpp; without 1 and 4), 16 = plain loads the compiler keeps where they
// are written (asm volatile: the SP form's loads ahead of the flags; without 1, 4 and 8). 0 = plain accesses.
template <int M>
__device__ inline float2 ld_pair(const float2* p) {
#if defined(__CUDA_ARCH__)
  float2 v;
  if constexpr ((M & 5) == 1) {
    asm volatile("ld.global.L2::256B.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
    return v;
  } else if constexpr ((M & 5) == 5) {
    asm volatile("ld.global.cg.L2::256B.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
    return v;
  } else if constexpr ((M & 5) == 4) {
    return __ldcg(p);
  } else if constexpr ((M & 8) != 0) {
    asm volatile("ld.global.L2::128B.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p) : "memory");
    return v;
  } else if constexpr ((M & 16) != 0) {
    asm volatile("ld.global.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p) : "memory");
    return v;
  }
#endif
  return *p;
}
template <int M>
__device__ inline uint32_t ld_pair(const uint32_t* p) {
#if defined(__CUDA_ARCH__)
  uint32_t v;
  if constexpr ((M & 5) == 1) {
    asm volatile("ld.global.L2::256B.b32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
  } else if constexpr ((M & 5) == 5) {
    asm volatile("ld.global.cg.L2::256B.b32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
  } else if constexpr ((M & 5) == 4) {
    return __ldcg(reinterpret_cast<const unsigned int*>(p));
  } else if constexpr ((M & 8) != 0) {
    asm volatile("ld.global.L2::128B.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
  } else if constexpr ((M & 16) != 0) {
    asm volatile("ld.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
  }
#endif
  return *p;
}
// One storage value (the odd step's single-lane loads at a warp's ends, the wall path's own slots), with the
// pair loads' L2-only mode where M has bit 4 (the fused steps, tuned_fused_cuda.cpp: no stale L1 line of a
// value another multiprocessor wrote earlier in the same launch).
template <int M, class S>
__device__ inline S ld_one(const S* p) {
#if defined(__CUDA_ARCH__)
  if constexpr ((M & 5) == 4) {
    static_assert(sizeof(S) == 4 || sizeof(S) == 2);
    S v;
    if constexpr (sizeof(S) == 4) {
      const unsigned int u = __ldcg(reinterpret_cast<const unsigned int*>(p));
      std::memcpy(&v, &u, 4);
    } else {
      const unsigned short u = __ldcg(reinterpret_cast<const unsigned short*>(p));
      std::memcpy(&v, &u, 2);
    }
    return v;
  }
#endif
  return *p;
}
template <int M, class V>
__device__ inline void st_pair(V* p, V v) {
#if defined(__CUDA_ARCH__)
  if constexpr ((M & 2) != 0) {
    if constexpr (sizeof(V) == 8)
      __stcs(reinterpret_cast<float2*>(p), v);
    else
      __stcs(reinterpret_cast<unsigned int*>(p), v);
    return;
  }
#endif
  *p = v;
}

// Thread t of plane k (blockIdx.y) owns the cells base + 2t and base + 2t + 1, base = the plane's first
// cell at y = 1 (padded), rounded down to a multiple of `align` cells: with align = 64, every warp's pair
// accesses of the local slots are whole 128-byte (fp16) or 256-byte (fp32) blocks; the cells before the
// first row (ghost row y = 0) are idle lanes. The planes' rows are contiguous, so a warp may span rows.
// Bit q set: the lattice neighbour x + c_q of padded cell c is a wall.
template <class L>
__device__ inline uint32_t wall_mask(const uint8_t* __restrict__ flags, const GridLayout& g, uint32_t c) {
  uint32_t m = 0;
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q)
    if (flag_kind(flags[int64_t(c) + g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))]) == kWall) m |= 1u << q;
  return m;
}
// The same for a face cell (flag_face(fl) != 0, flags.hpp: its wall neighbours are the cells across its
// face), from its own flag: the links into the wall are the opposites of face_links. FC (the caller's
// form): without it, or for a cell without a face, wall_mask.
template <class L, bool FC>
__device__ inline uint32_t wall_mask_of(const uint8_t* __restrict__ flags, const GridLayout& g, uint32_t c, uint8_t fl) {
  if constexpr (FC) {
    const int face = flag_face(fl);
    if (face != 0) {
      uint32_t m = 0;
      TESSERA_LBM_UNROLL
      for (int k = 1; k <= 6; ++k) m = face == k ? face_into_links<L>(k) : m;
      return m;
    }
  }
  return wall_mask<L>(flags, g, c);
}

struct PairGeom {
  uint32_t n;      // padded cells (= stride between populations)
  uint32_t px;     // padded row pitch (even)
  uint32_t pxy;    // padded plane size
  uint32_t align;  // base alignment in cells (even; 1 << k)
  uint32_t pairs;  // threads per plane: (px * ny + align) / 2 rounded up
  uint32_t per = 0;  // the fused steps' periodic axes on one rank (bits x = 1, y = 2, z = 4; pair_update's PER)
};

// The geometry of grid g with base alignment `align` (host side: the launcher and the host emulation in
// test_lbm_tuned).
inline PairGeom make_pair_geom(const GridLayout& g, uint32_t align) {
  PairGeom pg;
  pg.n = uint32_t(g.cells());
  pg.px = uint32_t(g.px());
  pg.pxy = uint32_t(g.px() * g.py());
  pg.align = align;
  pg.pairs = uint32_t((uint64_t(pg.px) * uint64_t(g.ny) + pg.align + 1u) / 2u);
  return pg;
}

// The first padded cell of plane k's pairs (PairGeom: the plane's row y = 1, rounded down to align).
__device__ inline uint32_t pair_base(const PairGeom& g, uint32_t k) {
  return (g.pxy * (k + 1u) + g.px) & ~(g.align - 1u);
}

// The interior rows [y0, y1) of a plane that a launch updates (the fused steps' slabs, tuned_fused_cuda.cpp);
// y1 = 0: every row.
struct PairRows {
  uint32_t y0 = 0, y1 = 0;
};

// The pair of cells that thread t of plane k updates (rows: as pair_update's).
struct PairCell {
  uint32_t c;   // padded index of the pair's first cell (even; clamped into the plane for an idle lane)
  uint32_t y;   // its padded row within the plane
  uint32_t x0;  // its padded x
  bool row;     // the pair is in the rows updated (else the lane is idle)
};
__device__ inline PairCell pair_cell(const PairGeom& g, uint32_t t, uint32_t k, PairRows rows) {
  const uint32_t plane = g.pxy * (k + 1u);
  const uint32_t first = plane + g.px * (1u + rows.y0);  // the first cell of the first row updated
  const uint32_t base = rows.y1 != 0u ? first & ~(g.align - 1u) : pair_base(g, k);
  const uint32_t end = rows.y1 != 0u ? plane + g.px * (1u + rows.y1) : plane + g.pxy - g.px;  // (ghost row y = py - 1)
  const bool valid = base + 2u * t < end;
  PairCell p;
  p.c = valid ? base + 2u * t : end - 2u;
  p.y = (p.c - plane) / g.px;
  p.x0 = p.c - plane - p.y * g.px;
  p.row = valid && p.c >= first;  // lanes before the first row (alignment), past the last: idle
  return p;
}

// The update of thread t of plane k (lane = t mod 32); c_pair_walls: the wall table. KF: the step has a
// force (uniform or per-cell); false drops the force terms (collide_cell's force-free form).
// SP (TESSERA_LBM_SPECULATE, tuned_ld_hint.hpp): every lane issues its pair loads before the flags have
// arrived (the addresses are inside the slot arrays for every lane: an idle lane's pair is clamped to the
// plane, as the loads of an active warp's idle lanes already are); a warp with no cell to update runs
// through with every store masked. The single-lane loads at the warp's ends still wait for the flags.
// FC (TESSERA_LBM_FACE_CELLS=on; D3Q19, and D3Q27 in the fused steps): a face cell's walls come from its own
// flag (wall_mask_of), not from its neighbours' flags, so its links from the wall wait for one load less.
// XE (the fused steps' face form, with FC; TESSERA_LBM_FUSED_XFACE=early, the default): a cell on a face
// normal to x (flag_face 1 or 2: the first and last cell of every row of a closed box) loads its links from
// the wall, its own slots, and the wall's flag across the face before the pair loads are unpacked, so its
// warp waits for one round of loads instead of two (the other wall cells keep the path after the
// unpacking), and after its collision bounces its links into that wall with the same flag. One such cell
// per pair (the upper one if both are).
template <class L>
constexpr int links_from_minus_x() {
  int n = 0;
  for (int q = 1; q < L::Q; ++q) n += L::c(q, 0) == 1 ? 1 : 0;
  return n;
}
// PER (the fused steps on one rank with periodic axes, g.per; tuned_fused_cuda.cpp): the even step writes the
// forward exchange itself. Each interior cell on a periodic side stores its slots into its images in the
// ghost layer, the cell displaced by -n or +n along each such axis it touches (edges and corners too): slot
// s wherever c_s points out of the box along every displaced axis, which covers every ghost slot the odd
// step reads (AA: the odd step of interior cell c touches slot q at c + e_q). A fluid cell stores each
// post-collision value into its images as it stores it into its own slot (image_put, in the store loop, so
// no value lives longer than its own store); any other interior cell copies its slots as they are
// (store_images). So a ghost holds what the solver's forward self-exchange (AAHalo) copies there and the odd
// step reads the same values; the reverse exchange after the odd step is the caller's. The ghost cells'
// other slots are read by no one. (Forms tried on an H100, 2026-12-06: all images after the stores from the
// values in registers spilled 32-228 bytes; read back from memory after the update, no spills, but the
// Taylor-Green box 10-12 % slower than the first, likely because each boundary thread waits for its own stores.)
// The images of cell `cell`'s slot s (PER): im, bit a: the cell is at n_a - 1 on periodic axis a (its image
// is at -1: slots with c_s,a = -1); bit 3 + a: at 0 (image at n_a: c_s,a = +1). O.o[a]: n_a times axis a's
// stride (image_offsets). Every combination of the axes that apply (edges, corners) is an image; put(img)
// for each.
struct ImageOffsets {
  uint32_t o[3];
};
template <class L, class F>
__device__ inline void for_images(int s, uint32_t cell, uint32_t im, const ImageOffsets& O, F&& put) {
  uint32_t m = 0;
  TESSERA_LBM_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int ca = L::c(s, a);
    if (ca != 0) m |= ((im >> (ca < 0 ? a : 3 + a)) & 1u) << a;
  }
  for (uint32_t sub = m; sub != 0u; sub = (sub - 1u) & m) {
    uint32_t img = cell;
    TESSERA_LBM_UNROLL
    for (int a = 0; a < 3; ++a)
      if ((sub >> a) & 1u) img = L::c(s, a) > 0 ? img + O.o[a] : img - O.o[a];
    put(img);
  }
}
// A fluid cell's post-collision value v of slot s, into the slot's images.
template <class L, class S>
__device__ inline void image_put(S* slot, int s, uint32_t cell, float v, uint32_t im, const ImageOffsets& O) {
  for_images<L>(s, cell, im, O, [&](uint32_t img) { slot[img] = Storage<S>::store(v); });
}
// A cell that keeps its slots (not fluid): each slot copied as it is into its images.
template <class L, class S>
__device__ inline void store_images(const SlotPtrs<S>& sp, uint32_t cell, uint32_t im, const ImageOffsets& O) {
  if (im == 0u) return;
  TESSERA_LBM_UNROLL
  for (int q = 0; q < L::Q; ++q) for_images<L>(q, cell, im, O, [&](uint32_t img) { sp.p[q][img] = sp.p[q][cell]; });
}
__device__ inline ImageOffsets image_offsets(const GridLayout& gl, const PairGeom& g) {
  return {{uint32_t(gl.nx), uint32_t(gl.ny) * g.px, uint32_t(gl.nz) * g.pxy}};
}
// image_put's im for the interior cell at (xi, yi, k) (periodic axes per; 0 if it has no image).
__device__ inline uint32_t image_sides(const GridLayout& gl, uint32_t per, uint32_t xi, uint32_t yi, uint32_t k) {
  const uint32_t at[3] = {xi, yi, k}, n[3] = {uint32_t(gl.nx), uint32_t(gl.ny), uint32_t(gl.nz)};
  uint32_t im = 0;
  TESSERA_LBM_UNROLL
  for (int a = 0; a < 3; ++a)
    if ((per >> a) & 1u) im |= (at[a] + 1u == n[a] ? 1u << a : 0u) | (at[a] == 0u ? 8u << a : 0u);
  return im;
}

// (GCC, compiling the host emulation in tests/lbm/test_tuned.cpp, cannot see that XE's wx is read only where
// it was written: both under xf != 0.)
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <class L, class S, CollisionKind K, int M, bool KF = true, bool SP = false, bool FC = false, bool XE = false,
          bool PER = false>
__device__ inline void pair_update(S* __restrict__ f, const SlotPtrs<S>& sp, const uint8_t* __restrict__ flags,
                                   const StepArgs<float>& a,
                                   const PairGeom& g, const WallTable& c_pair_walls, uint32_t t, uint32_t k,
                                   unsigned lane, PairRows rows = {}) {
  using P = PairOps<S>;
  using V = typename P::V;
  constexpr int Q = L::Q;
  const PairCell pc = pair_cell(g, t, k, rows);
  const uint32_t c = pc.c, y = pc.y, x0 = pc.x0;
  const bool row = pc.row;
  const uint32_t fl2 = __ldg(reinterpret_cast<const uint16_t*>(flags + c));
  // The pair of slot q (even step) or of slot opp(q) at c - (0, c_y, c_z) (odd step; q = 0: slot 0 at c).
  const auto pair_at = [&](int q) {
    if (!a.odd) return reinterpret_cast<const V*>(sp.p[q] + c);
    if (q == 0) return reinterpret_cast<const V*>(f + c);
    const int32_t yz = int32_t(L::c(q, 1)) * int32_t(g.px) + int32_t(L::c(q, 2)) * int32_t(g.pxy);
    return reinterpret_cast<const V*>(slot_back(sp.p[opposite(q)], c, uint32_t(yz)));
  };
  V pre[SP ? Q : 1];
  if constexpr (SP) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) pre[q] = ld_pair<(M & 13) ? M : (M | 16)>(pair_at(q));
  }
  const auto get = [&](int q) {
    if constexpr (SP) return pre[q];
    else return ld_pair<M>(pair_at(q));
  };
  const uint8_t fl_lo = uint8_t(fl2 & 0xffu), fl_hi = uint8_t(fl2 >> 8);
  const bool up_lo = row && x0 != 0u && is_fluid(fl_lo);
  const bool up_hi = row && x0 + 1u != g.px - 1u && is_fluid(fl_hi);
  // PER, even step: the interior cells that keep their slots (not fluid) copy them into their images.
  const auto keep_images = [&]() {
    if constexpr (PER) {
      if (row && x0 != 0u && !up_lo) store_images<L, S>(sp, c, image_sides(a.grid, g.per, x0 - 1u, y - 1u, k),
                                                          image_offsets(a.grid, g));
      if (row && x0 + 1u != g.px - 1u && !up_hi) store_images<L, S>(sp, c + 1u, image_sides(a.grid, g.per, x0, y - 1u, k),
                                                                      image_offsets(a.grid, g));
    }
  };
  // Warp-uniform. The SP form runs on (its stores are masked as every idle lane's are): ptxas sank its
  // loads below this exit, back behind the flags.
  if constexpr (!SP)
    if (!__any_sync(0xffffffffu, up_lo || up_hi)) {
      if (!a.odd) keep_images();
      return;
    }

  // Odd step: a cell with a wall neighbour (no kNoWallNeighbour bit) reads its neighbours' flags into wm
  // (bit q: the cell at x + c_q is a wall); the shuffled streaming skips those links and the cell bounces
  // them back itself, so a warp never leaves the pair path. The flags are read after the population loads
  // are issued, so that both are in flight together (the walled box +1.8 % / +0.4 % at 256^3 / 512^3 over
  // reading them first; docs/performance.md, LBM item 27).
  uint32_t wm_lo = 0, wm_hi = 0;
  // Which neighbour lanes update their cells (for the shuffled stores).
  const uint32_t b_hi = __ballot_sync(0xffffffffu, up_hi), b_lo = __ballot_sync(0xffffffffu, up_lo);
  const bool below_hi = lane != 0u && ((b_hi >> (lane - 1u)) & 1u);    // lane - 1 updates its x0 + 1
  const bool above_lo = lane != 31u && ((b_lo >> (lane + 1u)) & 1u);   // lane + 1 updates its x0

  // XE: xf, the x face (1 or 2) of the pair's cell that takes its wall links early (xf_hi: the upper cell),
  // 0 if none; wx[j]: its own slot q (face 1) or opp(q) (face 2) for the j-th link q with c_x = +1; wfl: the
  // wall's flag across the face (every wall neighbour of a face cell has the same id).
  int xf = 0;
  bool xf_hi = false;
  float wx[XE ? links_from_minus_x<L>() : 1];
  uint8_t wfl = 0;
  if constexpr (XE) {
    if (a.odd) {
      const int f_lo = up_lo ? flag_face(fl_lo) : 0, f_hi = up_hi ? flag_face(fl_hi) : 0;
      xf_hi = f_hi == 1 || f_hi == 2;
      xf = xf_hi ? f_hi : (f_lo == 1 || f_lo == 2 ? f_lo : 0);
      if (xf != 0) {
        const uint32_t cf = c + (xf_hi ? 1u : 0u);
        wfl = flags[xf == 1 ? cf - 1u : cf + 1u];
        int j = 0;
        TESSERA_LBM_UNROLL
        for (int q = 1; q < Q; ++q)
          if (L::c(q, 0) == 1) {
            wx[j] = Storage<S>::load(ld_one<M>((xf == 1 ? sp.p[q] : sp.p[opposite(q)]) + cf));
            ++j;
          }
      }
    }
  }

  const uint32_t n = g.n;
  float lo[Q], hi[Q];
  if (!a.odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q) P::unpack(get(q), lo[q], hi[q]);
  } else {
    P::unpack(get(0), lo[0], hi[0]);
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; ++q) {
      const int cx = L::c(q, 0);
      const S* e = reinterpret_cast<const S*>(pair_at(q));  // slot opp(q), pair at x0 - (0, c_y, c_z)
      const V v = get(q);
      if (cx == 0) {
        P::unpack(v, lo[q], hi[q]);
      } else if (cx == 1) {  // from x - 1: (x0 - 1, x0)
        float below = P::hi_from_below(v);
        if (lane == 0u && up_lo) below = Storage<S>::load(ld_one<M>(e - 1));
        lo[q] = below;
        hi[q] = P::lo_of(v);
      } else {  // from x + 1: (x0 + 1, x0 + 2)
        float above = P::lo_from_above(v);
        if (lane == 31u && up_hi) above = Storage<S>::load(ld_one<M>(e + 2));
        lo[q] = P::hi_of(v);
        hi[q] = above;
      }
    }
    if (up_lo && !(fl_lo & kStreamFree)) wm_lo = wall_mask_of<L, FC>(flags, a.grid, c, fl_lo);
    if (up_hi && !(fl_hi & kStreamFree)) wm_hi = wall_mask_of<L, FC>(flags, a.grid, c + 1u, fl_hi);
    // The links from a wall still to load: XE's early cell has them (wx) and is left out here.
    const uint32_t ld_lo = XE && xf != 0 && !xf_hi ? 0u : wm_lo, ld_hi = XE && xf_hi ? 0u : wm_hi;
    if (ld_lo | ld_hi) {  // links from a wall (x - c_q is a wall, bit opp(q)): the cell's own slot q + term
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; ++q) {
        const int64_t o = a.grid.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
        if ((ld_lo >> opposite(q)) & 1u)
          lo[q] = through_storage<S>(Storage<S>::load(ld_one<M>(sp.p[q] + c)) +
                                     wall_term<L, float>(q, c_pair_walls, flags[int64_t(c) - o]));
        if ((ld_hi >> opposite(q)) & 1u)
          hi[q] = through_storage<S>(Storage<S>::load(ld_one<M>(sp.p[q] + (c + 1u))) +
                                     wall_term<L, float>(q, c_pair_walls, flags[int64_t(c) + 1 - o]));
      }
    }
    if constexpr (XE) {
      if (xf != 0) {  // the same values for the early cell: own slot + term, rounded through the storage
        int j = 0;
        TESSERA_LBM_UNROLL
        for (int q = 1; q < Q; ++q)
          if (L::c(q, 0) == 1) {
            if (xf == 1) {  // face 1: link q from the wall at x - 1
              const float v = through_storage<S>(wx[j] + wall_term<L, float>(q, c_pair_walls, wfl));
              if (xf_hi) hi[q] = v;
              else lo[q] = v;
            } else {  // face 2: link opp(q) from the wall at x + 1
              const float v = through_storage<S>(wx[j] + wall_term<L, float>(opposite(q), c_pair_walls, wfl));
              if (xf_hi) hi[opposite(q)] = v;
              else lo[opposite(q)] = v;
            }
            ++j;
          }
      }
    }
  }

  if constexpr (KF) {
    float Flo[3] = {a.Fx, a.Fy, a.Fz}, Fhi[3] = {a.Fx, a.Fy, a.Fz};
    if (a.force) {
      TESSERA_LBM_UNROLL
      for (int d = 0; d < 3; ++d) {
        Flo[d] += slot(a.force, d, n)[c];
        Fhi[d] += slot(a.force, d, n)[c + 1u];
      }
    }
    collide<L, K, float>(lo, a.relax, Flo[0], Flo[1], Flo[2]);
    collide<L, K, float>(hi, a.relax, Fhi[0], Fhi[1], Fhi[2]);
  } else {  // the step has no force: collide_cell's force-free form (the one-cell kernel's values)
    collide<L, K, float, false>(lo, a.relax, 0.f, 0.f, 0.f);
    collide<L, K, float, false>(hi, a.relax, 0.f, 0.f, 0.f);
  }

  // A pair store at e (an even element) of the values (vlo, vhi), each written only where its flag is set.
  // Three independent conditions, so that each store is one predicated instruction: the nested form (pair
  // store, else the single ones) compiled to a branch and a reconvergence per link, and every warp diverged
  // there for the links with c_x != 0 of the odd step (lane 0 has no lane below, lane 31 none above), so it
  // ran both sides of each (docs/performance.md, LBM item 50).
  auto put = [&](S* e, float vlo, float vhi, bool wlo, bool whi) {
    if (wlo && whi) st_pair<M>(reinterpret_cast<V*>(e), P::pack(vlo, vhi));
    if (wlo && !whi) e[0] = Storage<S>::store(vlo);
    if (whi && !wlo) e[1] = Storage<S>::store(vhi);
  };
  if (!a.odd) {
    if constexpr (!PER) {
      TESSERA_LBM_UNROLL
      for (int q = 0; q < Q; ++q) put(sp.p[opposite(q)] + c, lo[q], hi[q], up_lo, up_hi);
    } else {  // each value into its own slot and its images (image_put), then the cells that kept theirs
      const uint32_t yi = y - 1u, im_lo = up_lo ? image_sides(a.grid, g.per, x0 - 1u, yi, k) : 0u,
                     im_hi = up_hi ? image_sides(a.grid, g.per, x0, yi, k) : 0u;
      const ImageOffsets O = image_offsets(a.grid, g);
      TESSERA_LBM_UNROLL
      for (int q = 0; q < Q; ++q) {
        put(sp.p[opposite(q)] + c, lo[q], hi[q], up_lo, up_hi);
        if ((im_lo | im_hi) != 0u) {
          image_put<L, S>(sp.p[opposite(q)], opposite(q), c, lo[q], im_lo, O);
          image_put<L, S>(sp.p[opposite(q)], opposite(q), c + 1u, hi[q], im_hi, O);
        }
      }
      keep_images();
    }
  } else {
    put(f + c, lo[0], hi[0], up_lo, up_hi);
    const uint32_t wm_hi_below = __shfl_up_sync(0xffffffffu, wm_hi, 1);
    const uint32_t wm_lo_above = __shfl_down_sync(0xffffffffu, wm_lo, 1);
    TESSERA_LBM_UNROLL
    for (int q = 1; q < Q; ++q) {
      const int cx = L::c(q, 0);
      const int32_t yz = int32_t(L::c(q, 1)) * int32_t(g.px) + int32_t(L::c(q, 2)) * int32_t(g.pxy);
      S* e = sp.p[q] + (c + uint32_t(yz));  // slot q, pair at x0 + (0, c_y, c_z)
      const bool s_lo = up_lo && !((wm_lo >> q) & 1u), s_hi = up_hi && !((wm_hi >> q) & 1u);  // streams
      if (cx == 0) {
        put(e, lo[q], hi[q], s_lo, s_hi);
      } else if (cx == 1) {  // x0 - 1 -> x0 (from lane - 1), x0 -> x0 + 1, x0 + 1 -> x0 + 2 (next pair)
        const float below = __shfl_up_sync(0xffffffffu, hi[q], 1);
        put(e, below, lo[q], below_hi && !((wm_hi_below >> q) & 1u), s_lo);
        if (lane == 31u && s_hi) e[2] = Storage<S>::store(hi[q]);
      } else {  // x0 -> x0 - 1 (previous pair), x0 + 1 -> x0, x0 + 2 -> x0 + 1 (from lane + 1)
        const float above = __shfl_down_sync(0xffffffffu, lo[q], 1);
        put(e, hi[q], above, s_hi, above_lo && !((wm_lo_above >> q) & 1u));
        if (lane == 0u && s_lo) e[-1] = Storage<S>::store(lo[q]);
      }
    }
    // The links into a wall still to bounce: XE's early cell bounces its own below and is left out here.
    // (The same masks as ld_lo / ld_hi before the collision, formed again rather than kept live across it.)
    const uint32_t bo_lo = XE && xf != 0 && !xf_hi ? 0u : wm_lo, bo_hi = XE && xf_hi ? 0u : wm_hi;
    if (bo_lo | bo_hi) {  // links into a wall: bounce back into the cell's own slot opp(q)
      TESSERA_LBM_UNROLL
      for (int q = 1; q < Q; ++q) {
        const int64_t o = a.grid.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
        if ((bo_lo >> q) & 1u)
          sp.p[opposite(q)][c] =
              Storage<S>::store(through_storage<S>(lo[q]) - wall_term<L, float>(q, c_pair_walls, flags[int64_t(c) + o]));
        if ((bo_hi >> q) & 1u)
          sp.p[opposite(q)][c + 1u] =
              Storage<S>::store(through_storage<S>(hi[q]) -
                                wall_term<L, float>(q, c_pair_walls, flags[int64_t(c) + 1 + o]));
      }
    }
    if constexpr (XE) {
      // The early cell's links into its face's wall (face 1: c_x = -1, face 2: c_x = +1; wall_mask_of's
      // face_into_links) with that wall's flag wfl, which every one of its wall neighbours has: the values
      // of the loop above, without a flag load per link or a test of every link of the lattice (on an H100
      // that loop, run by one or two lanes of every warp holding a row's end, took 9 % of the walled fp16
      // fused launch's warp samples; docs/performance.md, LBM item 48).
      if (xf != 0) {
        const uint32_t cf = c + (xf_hi ? 1u : 0u);
        TESSERA_LBM_UNROLL
        for (int q = 1; q < Q; ++q)
          if (L::c(q, 0) != 0 && (L::c(q, 0) == -1) == (xf == 1))
            sp.p[opposite(q)][cf] = Storage<S>::store(through_storage<S>(xf_hi ? hi[q] : lo[q]) -
                                                      wall_term<L, float>(q, c_pair_walls, wfl));
      }
    }
  }
}
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC diagnostic pop
#endif

}  // namespace tessera::lbm::detail
