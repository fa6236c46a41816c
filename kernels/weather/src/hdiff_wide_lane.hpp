// The COSMO horizontal diffusion's wide forms (two columns per lane), the work of one lane: the kernel
// hdiff_strip_wide (hdiff_cuda.cpp) calls it with its thread and block indices and its programmatic-
// dependent-launch wait. In a header of its own so that a host test runs the same code on an emulated warp
// (tests/weather/test_hdiff_emulated.cpp, tests/warp_emulation.hpp): the lanes' index arithmetic,
// shuffles and votes against hdiff_portable, bit for bit, in a build without a GPU. Needs __device__,
// __ldg, __shfl_up_sync, __shfl_down_sync, __all_sync, double2 and make_double2 (CUDA, or the emulation).
#pragma once
#include <cstdint>
#include <type_traits>

#include "tessera/weather/grid.hpp"
#include "tessera/weather/hdiff.hpp"

namespace tessera::weather::detail {

constexpr int kOutW = 60;  // outputs per warp along x, wide forms

// Warps of the wide forms per level for strips of R rows: the strips' first rows as one sequence of band
// rows (ghost columns included), cut into warps of kOutW outputs up to the last interior position.
inline int64_t hdiff_wide_warps(const Grid& gr, int R) {
  const int64_t strips = (gr.ny + R - 1) / R;
  const int64_t last = (strips - 1) * gr.sx() + gr.nx - 1;  // the last output position of the sequence
  return last / kOutW + 1;
}

// Two columns per lane ("wide" forms, `strip<R>w<kWarps>`): the flat form with each lane taking two
// adjacent positions of a band row through 16-byte loads and stores, so a warp covers 64 positions and
// outputs 60 (lanes 1 .. 30): the x halo read again from L2 falls from 4/28 to 4/60 of a warp's columns,
// and a lane's addresses, bounds predicates and shuffles are shared by two points (the shuffles per point
// halve: the west column's east neighbour is the lane's own east column). Needs 16-byte aligned pairs:
// an even row pitch and an even ghost width (then every pair starts at an even index of an array that
// cudaMalloc aligned); hdiff_cuda takes the one-column form otherwise. Each point's lap5, limit and
// combine get the same arguments as in hdiff_strip (HdiffPoint), so the same bits.
// Split = true (`strip<R>w<kWarps>s`): the same points with less integer work per row. The positions are
// 32-bit within a level (the wide forms need a level of under 2^31 points) with the level's base added
// once; each row's address steps a pointer by the row pitch instead of forming the 64-bit index again; a
// warp whose lanes' strips are all whole (js + R <= ny: every warp but the last of a level when R does not
// divide ny) runs a body of its own, warp-uniform, that loads and stores without the per-row bounds tests
// (the split); and the coefficient field or the constant is a template argument (Field), so that the
// constant is not copied into the registers of the loaded rows. The loads and the arithmetic are the
// same, so the same bits. Split = false is the form measured in
// docs/performance.md ("COSMO stencils"; it reads `coeff` or takes coeff0 at run time, Field unused). An
// earlier `strip4w8l` (0a114f8, dropped) skipped the row tests per lane inside the one body: level with
// strip4w8. Static SASS (sm_90) of strip4w8s's whole-strip body: 439 instructions per lane (8 points)
// against strip4w8's 608, 137 of them integer work against 288.
// wait(): called once the lane's position is known and before anything is read (the kernel's programmatic-
// dependent-launch wait; nothing in the emulation).
template <int R, int kWarps, bool Split, bool Field, class Wait>
__device__ inline void hdiff_wide_lane(const Grid& G, const double* __restrict__ in, const double* __restrict__ coeff,
                                       double coeff0, double* __restrict__ out, int lane, int warp, int block,
                                       int level, Wait wait) {
  using Idx = std::conditional_t<Split, int, int64_t>;  // positions within a level (Split), or global
  const int sx = int(G.sx()), g = int(G.g);
  const int v0 = (block * kWarps + warp) * kOutW - 2 + g;  // lane 0's west position
  const int v = v0 + 2 * lane, b = v / sx;  // b: the band
  const Idx i = v - b * sx - g;  // this lane's west column (its east column: i + 1)
  const Idx js = Idx(b) * R, js0 = Idx(v0 / sx) * R, nx = Idx(G.nx), ny = Idx(G.ny);
  wait();
  if (js0 >= ny) return;  // the whole warp
  const Idx je = js + R < ny ? js + R : ny;
  const int64_t sx64 = sx, lvl = G.plane() * int64_t(level);
  const bool col_ok = i < nx + 2 && js < ny;
  const bool lane_out = lane >= 1 && lane <= kOutW / 2;
  const bool ok0 = lane_out && i >= 0 && i < nx, ok1 = lane_out && i + 1 >= 0 && i + 1 < nx;
  // The lane's first column and row in the level (G.idx), or the level's first ghost position where the
  // column is off the grid (16-byte aligned: even).
  const Idx at = col_ok ? (i + g) + Idx(sx) * (js + g) : Idx(sx) * g;
  const int64_t base = lvl + at;
  constexpr unsigned all = 0xffffffffu;
  auto east = [](double x) { return __shfl_down_sync(all, x, 1); };
  auto west = [](double x) { return __shfl_up_sync(all, x, 1); };
  // The strip's rows: js - 2 + m of `in` (m < R + 4) and js + m of the coefficient and the output (m < R).
  // Whole = true: every row exists (js + R <= ny), so only the lane's column tests remain.
  auto body = [&](auto whole_tag) {
    constexpr bool Whole = decltype(whole_tag)::value;
    double2 a[R + 4], cf[R];  // .x: the west column, .y: the east column
    if constexpr (Split) {
      // Whole strips: every lane loads, those off the grid (col_ok false: ghost columns beyond nx + 1 where
      // g > 2) from the level's first ghost position (`at`), whose rows -2 .. R + 1 exist when R <= ny;
      // their values reach no output (the seam argument of hdiff_strip: only ghost columns read them).
      const int rows = int(je - js);  // rows of the strip that exist (R when whole)
      const double* p = in + base - 2 * sx;  // row js - 2
#pragma unroll
      for (int m = 0; m < R + 4; ++m, p += sx)
        a[m] = Whole || (col_ok && m < rows + 4) ? __ldg(reinterpret_cast<const double2*>(p)) : make_double2(0.0, 0.0);
      if constexpr (Field) {
        const double* pc = coeff + base;
#pragma unroll
        for (int m = 0; m < R; ++m, pc += sx)
          cf[m] = (ok0 || ok1) && (Whole || m < rows) ? __ldg(reinterpret_cast<const double2*>(pc)) : make_double2(0.0, 0.0);
      }
    } else {
#pragma unroll
      for (int m = 0; m < R + 4; ++m)
        a[m] = col_ok && js - 2 + m <= je + 1 ? __ldg(reinterpret_cast<const double2*>(in + base + sx64 * (m - 2)))
                                              : make_double2(0.0, 0.0);
#pragma unroll
      for (int m = 0; m < R; ++m)
        cf[m] = coeff ? ((ok0 || ok1) && js + m < je ? __ldg(reinterpret_cast<const double2*>(coeff + base + sx64 * m))
                                                     : make_double2(0.0, 0.0))
                      : make_double2(coeff0, coeff0);
    }
    // The coefficient of row m's west / east point.
    auto cfx = [&](int m) {
      if constexpr (Split && !Field) return coeff0;
      else return cf[m].x;
    };
    auto cfy = [&](int m) {
      if constexpr (Split && !Field) return coeff0;
      else return cf[m].y;
    };
    // lap5(c, e, w, n, s) of both columns of row m: the west column's west neighbour is the west lane's
    // east column, the east column's east neighbour the east lane's west column.
    auto laps = [&](int m, double e1) {
      return make_double2(HdiffPoint::lap5(a[m].x, a[m].y, west(a[m].y), a[m + 1].x, a[m - 1].x),
                          HdiffPoint::lap5(a[m].y, e1, a[m].x, a[m + 1].y, a[m - 1].y));
    };
    const double2 lm1 = laps(1, east(a[1].x));
    double e0 = east(a[2].x);  // in east of the east column, row js
    double2 l0 = laps(2, e0);
    double2 fs = make_double2(HdiffPoint::limit(lm1.x, l0.x, a[1].x, a[2].x), HdiffPoint::limit(lm1.y, l0.y, a[1].y, a[2].y));
    double* po = out + base;  // row js (Split: stepped by the row pitch)
#pragma unroll
    for (int m = 0; m < R; ++m) {  // output row js + m: in at a[m + 2]
      const double e1 = east(a[m + 3].x);
      const double2 l1 = laps(m + 3, e1);
      const double fe0 = HdiffPoint::limit(l0.x, l0.y, a[m + 2].x, a[m + 2].y);
      const double fe1 = HdiffPoint::limit(l0.y, east(l0.x), a[m + 2].y, e0);
      const double fw0 = west(fe1);  // the west lane's east face: limit(l west, l0.x, in west, in)
      const double2 fn = make_double2(HdiffPoint::limit(l0.x, l1.x, a[m + 2].x, a[m + 3].x),
                                      HdiffPoint::limit(l0.y, l1.y, a[m + 2].y, a[m + 3].y));
      if ((Split && Whole) || js + m < je) {
        const double o0 = HdiffPoint::combine(a[m + 2].x, fe0, fw0, fn.x, fs.x, cfx(m));
        const double o1 = HdiffPoint::combine(a[m + 2].y, fe1, fe0, fn.y, fs.y, cfy(m));
        double* p = Split ? po : out + base + sx64 * m;
        if (ok0 && ok1) *reinterpret_cast<double2*>(p) = make_double2(o0, o1);
        else if (ok0) p[0] = o0;
        else if (ok1) p[1] = o1;
      }
      fs = fn, l0 = l1, e0 = e1;
      if constexpr (Split) po += sx;
    }
  };
  if constexpr (Split) {
    if (__all_sync(all, js + R <= ny)) body(std::true_type{});  // warp-uniform: the shuffles need every lane
    else body(std::false_type{});
  } else {
    body(std::false_type{});
  }
}

}  // namespace tessera::weather::detail
