// The tuned CUDA COSMO horizontal diffusion (Xue 2000; formulas in hdiff.hpp). A warp covers 32
// adjacent points of a row (28 produce output) and a strip of R rows of one level: it loads the whole strip
// (R + 4 rows of `in`, R rows of the coefficient) into registers at once, then walks the rows, taking the
// x-neighbours of `in` and of the Laplacian from the neighbouring lanes by shuffles and the y-neighbours
// from its registers. It reads each input once from device memory per warp (the 2-column and 2-row halos
// shared with neighbouring warps come from L2) and writes the output once: the protocol's 3 x 8 B per
// point. The default ("flat") forms cut the strips' first rows of a level, ghost columns included, as one
// sequence into warps of 28 outputs, so that no warp is left with a few columns at the end of a row (see
// hdiff_strip). Launched with programmatic dependent launch (below). Measured on an H200
// (docs/performance.md, "COSMO stencils"), fraction of the copy bandwidth at 256^2 / 512^2 / 1024^2 x 80:
// flat, 5 rows, 8 warps per block 0.85 / 0.93 / 0.95; flat, 8 rows, 8 warps 0.84 / 0.95 / 0.97-0.99;
// flat, 12 rows, 4 warps 0.81 / 0.94 / 0.99; by x chunks (28-column warps per row, the form before)
// R = 8 0.81 / 0.88 / 0.93 and R = 16 0.76 / 0.89 / 0.94-0.96. Dropped on the way:
// the same warp marching up its strip with loads two rows ahead (0.66 / 0.77 / 0.82: one memory latency
// per two rows; deeper prefetch was slower), two columns per lane with 16-byte loads (0.63 / 0.79 / 0.84,
// and a few ulp off the portable path), the strips of a block passing their y halos through shared
// memory (0.76 / 0.87 / 0.92), a shared-memory tile per (32 x 8 cells, level) (0.49-0.53), the
// portable one-point-per-thread form (0.60-0.64), and evict-first stores of the output (no change).
// Those are burst figures (the benchmark protocol before 2026-12-04). In the sustained state (the card at
// its 700 W limit, SM clock ~1,400 MHz) the kernel is clock-bound: 0.72 / 0.79 / 0.84, and 0.78-0.80 /
// 0.87-0.89 / 0.93-0.94 since each face's flux is evaluated once (43c401d; docs/performance.md).
// The defaults since 2026-12-04 where nx and the ghost width are even are the wide forms (hdiff_strip_wide:
// two columns per lane, 16-byte loads, 60 outputs per warp): the earlier two-column attempt above was a
// marching form and evaluated the points differently; these give the same bits as the one-column strips
// and take 25-30 % fewer instructions per point, which is what the power limit rewards (+6-9 % sustained at
// 256^2 x 80, see hdiff_cuda below).
// The point formulas are HdiffPoint's static functions, so results are bit-identical to hdiff_portable
// on the device (tests/weather/test_cosmo_tuned.cpp).
#include "cosmo_cuda.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/cuda_check.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/knob.hpp"
#include "tessera/weather/hdiff.hpp"
#include "hdiff_wide_lane.hpp"
#include "pdl_launch.hpp"

namespace tessera::weather::detail {
namespace {

constexpr int kOut = 28;  // outputs per warp along x

// Flat = false: block (x chunk of 28 columns, 4 strips stacked in y, level). Flat = true: the strips'
// first rows, ghost columns included, taken one after another as a single sequence per level ("band
// rows": band b's row js = b R, then band b + 1's), cut into chunks of 28 outputs; a warp may straddle the
// end of one band row and the start of the next (its lanes then have different js), so no warp is left
// with a few columns at the end of a row (at 256^2 ten warps of 28 cover a row, of which the tenth outputs
// 4 columns; flat: 9.3 warps per band row). Straddling is exact because the lanes at the seam are ghost
// columns (g >= 2): the values they exchange by shuffles across the seam feed no output.
template <int R, int kWarps, bool Flat>
__global__ void __launch_bounds__(32 * kWarps) hdiff_strip(Grid G, const double* __restrict__ in,
                                                               const double* __restrict__ coeff, double coeff0,
                                                               double* __restrict__ out) {
  const int lane = threadIdx.x;
  int64_t i, js, js0;  // this lane's column and first row; js0: lane 0's first row (the warp's lowest)
  if constexpr (Flat) {
    const int sx = int(G.sx()), g = int(G.g);
    const int v0 = (int(blockIdx.x) * kWarps + int(threadIdx.y)) * kOut - 2 + g;  // lane 0's position
    const int v = v0 + lane, b = v / sx;
    i = v - b * sx - g;
    js = int64_t(b) * R;
    js0 = int64_t(v0 / sx) * R;
  } else {
    i = int64_t(blockIdx.x) * kOut - 2 + lane;
    js = js0 = (int64_t(blockIdx.y) * kWarps + threadIdx.y) * R;
  }
  pdl_enter();  // programmatic dependent launch (pdl_launch.hpp; see launch_strip)
  if (js0 >= G.ny) return;  // the whole warp
  const int64_t je = js + R < G.ny ? js + R : G.ny;
  const int64_t sx = G.sx(), lvl = G.plane() * int64_t(Flat ? blockIdx.y : blockIdx.z);
  const bool col_ok = i < G.nx + 2 && js < G.ny;
  const bool out_ok = lane >= 2 && lane < 2 + kOut && i >= 0 && i < G.nx;
  const int64_t base = lvl + G.idx(col_ok ? i : 0, col_ok ? js : 0);
  constexpr unsigned all = 0xffffffffu;
  auto east = [](double v) { return __shfl_down_sync(all, v, 1); };
  auto west = [](double v) { return __shfl_up_sync(all, v, 1); };
  double a[R + 4], cf[R];  // a[m] = in(row js - 2 + m); cf[m] = coeff(row js + m)
#pragma unroll
  for (int m = 0; m < R + 4; ++m) a[m] = col_ok && js - 2 + m <= je + 1 ? __ldg(in + base + sx * (m - 2)) : 0.0;
#pragma unroll
  for (int m = 0; m < R; ++m)
    cf[m] = coeff ? (out_ok && js + m < je ? __ldg(coeff + base + sx * m) : 0.0) : coeff0;
  // Each face's limited flux is evaluated once: the west face's is the west lane's east one (a shuffle),
  // the south face's the previous row's north one (carried). The arguments are those HdiffPoint::update
  // passes for that face, so the values are the same bits; it halves the limiter's work per point, which
  // matters where the card runs at its power limit (docs/performance.md, the sustained state).
  const double lm1 = HdiffPoint::lap5(a[1], east(a[1]), west(a[1]), a[2], a[0]);
  double e0 = east(a[2]);
  double l0 = HdiffPoint::lap5(a[2], e0, west(a[2]), a[3], a[1]);
  double fs = HdiffPoint::limit(lm1, l0, a[1], a[2]);  // the south face of row js
#pragma unroll
  for (int m = 0; m < R; ++m) {  // output row js + m: in at a[m + 2]
    const double e1 = east(a[m + 3]);
    const double l1 = HdiffPoint::lap5(a[m + 3], e1, west(a[m + 3]), a[m + 4], a[m + 2]);
    const double fe = HdiffPoint::limit(l0, east(l0), a[m + 2], e0);
    const double fw = west(fe);  // limit(l0 west, l0, in west, in): the west lane's fe
    const double fn = HdiffPoint::limit(l0, l1, a[m + 2], a[m + 3]);
    if (out_ok && js + m < je) out[base + sx * m] = HdiffPoint::combine(a[m + 2], fe, fw, fn, fs, cf[m]);
    fs = fn, l0 = l1, e0 = e1;
  }
}

// Programmatic dependent launch (pdl_launch.hpp; see launch_strip): the wait, where the lane code asks for it.
struct PdlWait {
  __device__ void operator()() const { pdl_enter(); }
};

// The wide forms (hdiff_wide_lane.hpp): a block of kWarps warps, one grid row per level.
template <int R, int kWarps, bool Split = false, bool Field = true>
__global__ void __launch_bounds__(32 * kWarps) hdiff_strip_wide(Grid G, const double* __restrict__ in,
                                                                    const double* __restrict__ coeff, double coeff0,
                                                                    double* __restrict__ out) {
  hdiff_wide_lane<R, kWarps, Split, Field>(G, in, coeff, coeff0, out, int(threadIdx.x), int(threadIdx.y),
                                           int(blockIdx.x), int(blockIdx.y), PdlWait{});
}

template <int R, int kWarps, bool Flat>
void launch_strip(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                  double* out) {
  const int64_t strips = (gr.ny + R - 1) / R;
  dim3 grid;
  if constexpr (Flat) {  // warps over the band rows of a level (see hdiff_strip), one grid row per level
    const int64_t last = (strips - 1) * gr.sx() + gr.nx - 1;  // the last output position
    const int64_t warps = last / kOut + 1;
    TESSERA_REQUIRE(gr.plane() < (int64_t(1) << 31), "weather::hdiff_strip: a level of over 2^31 points");
    grid = dim3(unsigned((warps + kWarps - 1) / kWarps), unsigned(gr.nz));
  } else {
    TESSERA_REQUIRE((strips + kWarps - 1) / kWarps <= 65535, "weather::hdiff_strip: too many rows per rank");
    grid = dim3(unsigned((gr.nx + kOut - 1) / kOut), unsigned((strips + kWarps - 1) / kWarps), unsigned(gr.nz));
  }
  // Programmatic dependent launch on compute capability 9.0 and later: the launch may be scheduled while
  // the previous kernel in the stream drains; its blocks become resident and wait (griddepcontrol.wait)
  // until that kernel has completed and its writes are visible. Measured on an H200: +3.5 % at 256^2 x 80
  // in back-to-back launches (0.778 -> 0.805 of copy), +1-2 % at 512^2 and 1024^2.
  // TESSERA_HDIFF_PDL=0 turns it off (read per call).
  launch_maybe_pdl(pdl_wanted("TESSERA_HDIFF_PDL"), hdiff_strip<R, kWarps, Flat>, grid, dim3(32, kWarps), 0,
                   static_cast<cudaStream_t>(ex.stream), gr, in, coeff, coeff0, out);
  TESSERA_CUDA_CHECK_LAUNCH("weather::hdiff_strip");
  hdiff_note_form(Flat ? "flat" : "chunk");
}

// The wide forms (hdiff_strip_wide): the flat form's grid with 60 outputs per warp. Where the pairs would
// not be 16-byte aligned (an odd nx or ghost width, or a field that does not start on 16 bytes) the
// one-column flat form of the same shape runs.
bool hdiff_wide_fits(const Grid& gr, const double* in, const double* coeff, const double* out) {
  const auto a16 = [](const double* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return gr.nx % 2 == 0 && gr.g % 2 == 0 && a16(in) && a16(coeff) && a16(out);
}

template <int R, int kWarps, bool Split = false>
void launch_wide(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                 double* out) {
  if (!hdiff_wide_fits(gr, in, coeff, out)) return launch_strip<R, kWarps, true>(ex, gr, in, coeff, coeff0, out);
  const int64_t warps = hdiff_wide_warps(gr, R);
  TESSERA_REQUIRE(gr.plane() < (int64_t(1) << 31), "weather::hdiff_strip_wide: a level of over 2^31 points");
  const dim3 grid(unsigned((warps + kWarps - 1) / kWarps), unsigned(gr.nz));
  auto kernel = hdiff_strip_wide<R, kWarps, Split, true>;  // Field: the split forms take the constant at compile time
  if constexpr (Split)
    if (!coeff) kernel = hdiff_strip_wide<R, kWarps, Split, false>;
  launch_maybe_pdl(pdl_wanted("TESSERA_HDIFF_PDL"), kernel, grid, dim3(32, kWarps), 0,
                   static_cast<cudaStream_t>(ex.stream), gr, in, coeff, coeff0, out);
  TESSERA_CUDA_CHECK_LAUNCH("weather::hdiff_strip_wide");
  hdiff_note_form(Split ? "wide-split" : "wide");
}

}  // namespace

void hdiff_cuda(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                double* out) {
  TESSERA_REQUIRE(gr.g >= 2, "horizontal diffusion needs ghost width >= 2");
  TESSERA_REQUIRE(gr.nz <= 65535, "weather::hdiff_strip: at most 65535 levels per rank (one grid row per level)");
  if (gr.nx <= 0 || gr.ny <= 0 || gr.nz <= 0) return;
  // The shape by size (measured sustained on an H200, docs/performance.md, "COSMO stencils"): the wide
  // forms where they fit, strips of 4 rows in blocks of 8 warps below 2^23 points (many short-lived warps:
  // at 256^2 x 80 the launch is several waves; 0.816-0.860 of copy in four calls against 0.750-0.792
  // for the one-column strip5f8 in the same calls), of 6 rows below 2^25 (0.846-0.877 at 512^2 against
  // 0.845-0.855 for strip8f8), of 12 rows in blocks of 4 warps above (fewer y-halo rows read again from L2;
  // 0.894-0.953 at 1024^2 against 0.885-0.917 for strip12f). Where they do not fit, the one-column flat
  // shapes that were the defaults before (strip5f8, strip8f8, strip12f). Levels of 2^31 points or more
  // (32-bit positions in the flat forms) take the x-chunk form. TESSERA_HDIFF_KERNEL names one (read per
  // call: benchmarks and tests switch it).
  std::string kind = knob_value("TESSERA_HDIFF_KERNEL");
  if (kind.empty()) kind = "auto";
  using L = void (*)(const exec::Exec&, const Grid&, const double*, const double*, double, double*);
  static const std::pair<const char*, L> kinds[] = {
      {"strip8", launch_strip<8, 4, false>},   {"strip16", launch_strip<16, 4, false>},
      {"strip5f8", launch_strip<5, 8, true>},  {"strip6f8", launch_strip<6, 8, true>},
      {"strip8f", launch_strip<8, 4, true>},   {"strip8f8", launch_strip<8, 8, true>},
      {"strip12f", launch_strip<12, 4, true>}, {"strip16f", launch_strip<16, 4, true>},
      {"strip3w8", launch_wide<3, 8>},         {"strip4w4", launch_wide<4, 4>},
      {"strip4w8", launch_wide<4, 8>},         {"strip5w4", launch_wide<5, 4>},
      {"strip5w8", launch_wide<5, 8>},         {"strip6w4", launch_wide<6, 4>},
      {"strip6w8", launch_wide<6, 8>},         {"strip12w4", launch_wide<12, 4>},
      {"strip4w8s", launch_wide<4, 8, true>},  {"strip6w8s", launch_wide<6, 8, true>},
      {"strip12w4s", launch_wide<12, 4, true>}};
  L launch = nullptr;
  if (kind == "auto") {  // where the wide forms do not fit, the one-column shapes measured best before them
    const int64_t points = gr.nx * gr.ny * gr.nz;
    const bool wide = hdiff_wide_fits(gr, in, coeff, out);
    launch = gr.plane() >= (int64_t(1) << 31) ? launch_strip<16, 4, false>
             : points < (int64_t(1) << 23)    ? (wide ? launch_wide<4, 8> : launch_strip<5, 8, true>)
             : points < (int64_t(1) << 25)    ? (wide ? launch_wide<6, 8> : launch_strip<8, 8, true>)
                                              : (wide ? launch_wide<12, 4> : launch_strip<12, 4, true>);
  }
  for (const auto& [name, fn] : kinds)
    if (kind == name) launch = fn;
  if (!launch) {
    std::vector<std::string_view> names{"auto"};
    for (const auto& k : kinds) names.push_back(k.first);
    knob_refused("TESSERA_HDIFF_KERNEL", kind, names, "auto, the shape by size");
  }
  launch(ex, gr, in, coeff, coeff0, out);
}

}  // namespace tessera::weather::detail
#endif
