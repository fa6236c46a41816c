// COSMO horizontal diffusion: fourth-order (bi-Laplacian) diffusion with a flux limiter, per level.
//
// The monotone flux-limited fourth-order diffusion of Xue (2000, Mon. Wea. Rev. 128, 2853-2864,
// eqs. 2-5), the "horizontal diffusion" stencil of the COSMO dynamical core (Doms & Baldauf, COSMO
// Scientific Documentation Part I, sec. 5; used as a benchmark by Gysi et al. 2015, SC'15 "MODESTO"):
//   lap(i,j) = in(i+1,j) + in(i-1,j) + in(i,j+1) + in(i,j-1) - 4 in(i,j)
//   flx(i+1/2) = lap(i+1) - lap(i),   set to 0 where flx (in(i+1) - in(i)) >= 0  (not down-gradient)
//   fly(j+1/2) = lap(j+1) - lap(j),   likewise
//   out = in - coeff (flx(i+1/2) - flx(i-1/2) + fly(j+1/2) - fly(j-1/2))
// For a Fourier mode the limiter is inactive and out = in (1 - coeff s^2), s = 4 sin^2(k dx / 2) in 1-D,
// i.e. del^4 damping ~ K dt / dx^4 = coeff. (The GridTools benchmark writes lap with the opposite sign,
// which turns the same memory pattern into anti-diffusion; we keep the physical sign. It also limits
// with "> 0", which lets a flux cross a face with zero gradient next to a step and undershoot by
// coeff; ">= 0" removes that, as Xue's condition intends.) Stable and
// monotone for coeff <= 1/64 in 2-D (checkerboard: s^2 = 64). Needs ghost width 2.
#pragma once
#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

struct HdiffPoint {
  Grid gr;
  const double* in;
  // The point formulas, shared with the tuned CUDA kernel (hdiff_cuda.cpp) so that both evaluate the same
  // expressions in the same order (bit-identical results on the device).
  TESSERA_HD static double lap5(double c, double e, double w, double n, double s) { return (e + w) + (n + s) - 4.0 * c; }
  // Limited flux through the face between a (lower index) and b (upper index), lap values la, lb.
  TESSERA_HD static double limit(double la, double lb, double ina, double inb) {
    const double f = lb - la;
    return f * (inb - ina) >= 0.0 ? 0.0 : f;
  }
  TESSERA_HD static double combine(double c, double fe, double fw, double fn, double fs, double coeff) {
    return c - coeff * ((fe - fw) + (fn - fs));
  }
  TESSERA_HD double lap(int64_t i, int64_t j, int64_t k) const {
    return lap5(in[gr.idx(i, j, k)], in[gr.idx(i + 1, j, k)], in[gr.idx(i - 1, j, k)], in[gr.idx(i, j + 1, k)],
                in[gr.idx(i, j - 1, k)]);
  }
  TESSERA_HD double update(int64_t i, int64_t j, int64_t k, double coeff) const {
    const double c = in[gr.idx(i, j, k)];
    const double lc = lap(i, j, k), le = lap(i + 1, j, k), lw = lap(i - 1, j, k), ln = lap(i, j + 1, k),
                 ls = lap(i, j - 1, k);
    const double fe = limit(lc, le, c, in[gr.idx(i + 1, j, k)]);
    const double fw = limit(lw, lc, in[gr.idx(i - 1, j, k)], c);
    const double fn = limit(lc, ln, c, in[gr.idx(i, j + 1, k)]);
    const double fs = limit(ls, lc, in[gr.idx(i, j - 1, k)], c);
    return combine(c, fe, fw, fn, fs, coeff);
  }
};

// Fused fast path: out = hdiff(in) on the interior of every level. coeff: per-point field of the same
// layout, or nullptr to use coeff0 everywhere. On the device (CUDA builds) this runs the
// whole-strip warp kernel (hdiff_cuda.cpp), bit-identical to hdiff_portable on the device; elsewhere
// hdiff_portable.
void hdiff_fused(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                 double* out);
// The form the last call of hdiff_fused ran: "portable" (the host), "wide" (the two-column strips),
// "wide-split" (the same with less integer work: the `strip<R>w<W>s` shapes of TESSERA_HDIFF_KERNEL),
// "flat" (the one-column strips over the band rows) or "chunk" (the x-chunk strips). For tests (that a
// form under test really ran, not its fallback) and benchmark records.
const char* hdiff_last_form();
// The portable one-point-per-thread form of the same update (HdiffPoint::update), on either back end.
void hdiff_portable(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                    double* out);

// Reference: lap, flx, fly in separate passes through scratch arrays of gr.size3() elements each.
struct HdiffScratch {
  Buffer<double> lap, flx, fly;
  HdiffScratch(const Grid& gr, MemKind mk);
};
void hdiff_reference(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                     HdiffScratch& w, double* out);

}  // namespace tessera::weather
