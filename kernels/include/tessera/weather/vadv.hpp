// COSMO vertical advection: implicit (Crank-Nicolson type) vertical advection of a tracer in flux form,
// one tridiagonal system per column solved with the Thomas algorithm (on the host), or with its twisted
// two-sided form (on the device, up to 80 levels: vadv_columns_portable_twisted below).
//
// Levels k = 0..nz-1 of thickness dz; w[k] is the vertical velocity on the interface k+1/2 between
// levels k and k+1 (w[nz-1] is not used: rigid lid; the bottom interface -1/2 is closed as well).
// Centred interface flux F(k+1/2) = w(k+1/2) (phi(k) + phi(k+1)) / 2, weight beta on the new level:
//   phi'(k) + beta r (F'(k+1/2) - F'(k-1/2)) = phi(k) - (1 - beta) r (F(k+1/2) - F(k-1/2)),  r = dt/dz
// i.e.  a_k phi'(k-1) + b_k phi'(k) + c_k phi'(k+1) = d_k  with
//   a_k = -beta r w(k-1/2)/2,  c_k = beta r w(k+1/2)/2,  b_k = 1 + beta r (w(k+1/2) - w(k-1/2))/2.
// This is the structure of the COSMO "vertical advection" stencil (Doms & Baldauf, COSMO Scientific
// Documentation Part I, sec. 5.6; Gysi et al. 2015). Closed boundaries make the column sum of phi
// exactly conserved. Thomas algorithm: Press et al., Numerical Recipes, 3rd ed., sec. 2.4 (stable for
// diagonally dominant systems, i.e. beta r |w| small enough; the column Courant number is checked by
// the caller). One thread per column (i, j): consecutive threads read consecutive addresses per level.
#pragma once
#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

struct VadvParams {
  double dt = 1.0, dz = 1.0, beta = 0.5;
};

// The Thomas steps of one column, shared by the portable loop and the tuned CUDA kernels (vadv_cuda.cpp)
// so that all of them evaluate the same expressions in the same order on the device. Every device kernel
// using this is checked bit for bit against the portable loop in tests/weather/test_cosmo_tuned.cpp.
//
// Row k of the system, with wm = w(k-1/2), wp = w(k+1/2) (0 at the closed ends) and hr = beta r / 2:
//   a_k = -hr wm,  c_k = hr wp,  b_k = 1 + hr (wp - wm),
//   d_k = phi(k) - her (wp (phi(k) + phi(k+1)) - wm (phi(k-1) + phi(k))),  her = (1 - beta) r / 2.
// Since a_k = -c_{k-1} exactly, and the lower flux product wm (phi(k-1) + phi(k)) is the upper one of the
// level below, a sweep carries c_{k-1} and that product from level to level (Carry) instead of
// recomputing them: per level one multiply for c, one sum and one product for the flux.
struct VadvStep {
  double hr, her;
  TESSERA_HD static VadvStep make(const VadvParams& vp) {
    const double r = vp.dt / vp.dz;
    return VadvStep{0.5 * vp.beta * r, 0.5 * (1.0 - vp.beta) * r};
  }
  // What the forward sweep carries from level k-1 to level k: w(k-1/2), c_{k-1} = hr w(k-1/2), the rounded
  // flux product w(k-1/2) (phi(k-1) + phi(k)), and c'_{k-1}, d'_{k-1}. Zero below the first level.
  struct Carry {
    double wm = 0.0, cm = 0.0, fm = 0.0, cp = 0.0, dp = 0.0;
  };
  // 1 / x. On the device: the hardware approximation refined by two Newton-Raphson steps, which is the
  // main path of the IEEE reciprocal nvcc emits for 1.0 / x without its branch to a slow path for |x|
  // near the ends of the exponent range (x = b_k - a_k c'_{k-1} is 1 + O(Courant number) here); within
  // an ulp of 1.0 / x. Without the branch each level of vadv_cuda.cpp's unrolled sweeps is one basic block.
  TESSERA_HD static double recip(double x) {
#if defined(__CUDA_ARCH__)
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    double e = fma(-x, r, 1.0);
    e = fma(e, e, e);
    r = fma(r, e, r);
    e = fma(-x, r, 1.0);
    return fma(r, e, r);
#else
    return 1.0 / x;
#endif
  }
  // Forward elimination at level k: phi = phi(k), phip = phi(k+1), wp = w(k+1/2); s holds level k-1's
  // carry on entry and level k's on return (s.cp, s.dp = c'_k, d'_k).
  // On the device every multiply-add is an explicit fma(), so that each kernel shape rounds alike (left to
  // contraction, nvcc fused one or the other product of the flux difference depending on the surrounding
  // loop). The host keeps plain expressions; host and device agree to rounding.
  TESSERA_HD void forward(Carry& s, double wp, double phi, double phip) const {
    const double c = hr * wp;
    const double sum = phi + phip;
#if defined(__CUDA_ARCH__)
    const double b = fma(hr, wp - s.wm, 1.0);
    const double d = fma(-her, fma(wp, sum, -s.fm), phi);
    const double m = recip(fma(s.cm, s.cp, b));
    s.cp = c * m;
    s.dp = fma(s.cm, s.dp, d) * m;
#else
    const double b = 1.0 + hr * (wp - s.wm);
    const double d = phi - her * (wp * sum - s.fm);
    const double m = 1.0 / (b + s.cm * s.cp);
    s.cp = c * m;
    s.dp = (d + s.cm * s.dp) * m;
#endif
    s.fm = wp * sum;
    s.cm = c;
    s.wm = wp;
  }
  // The same elimination run from the top of the column down ("twisted" Thomas, below): with the signs of
  // hr and her flipped, forward(s, w(k-1/2), phi(k), phi(k-1)) at level k, carrying from level k+1, forms
  // row k with the roles of a_k and c_k exchanged (c = -hr w(k-1/2) = a_k, b and d unchanged, the carried
  // -hr w(k+1/2) = -c_k) and returns a''_k = a_k / den, d''_k = (d_k - c_k d''_{k+1}) / den with
  // den = b_k - c_k a''_{k+1}: then x_k = d''_k - a''_k x_{k-1}, which back() evaluates as well.
  TESSERA_HD VadvStep mirrored() const { return VadvStep{-hr, -her}; }
  // Where the two eliminations meet: the lower sweep ends at level m with x_m = d'_m - c'_m x_{m+1}, the
  // upper one at m + 1 with x_{m+1} = d''_{m+1} - a''_{m+1} x_m; solves the 2 x 2 system for both.
  TESSERA_HD static void meet(double cpm, double dpm, double apn, double dpn, double& xm, double& xn) {
#if defined(__CUDA_ARCH__)
    xm = fma(-cpm, dpn, dpm) * recip(fma(-cpm, apn, 1.0));
    xn = fma(-apn, xm, dpn);
#else
    xm = (dpm - cpm * dpn) / (1.0 - cpm * apn);
    xn = dpn - apn * xm;
#endif
  }
  // Back substitution: x_k = d'_k - c'_k x_{k+1}.
  TESSERA_HD static double back(double dpk, double cpk, double xp) {
#if defined(__CUDA_ARCH__)
    return fma(-cpk, xp, dpk);
#else
    return dpk - cpk * xp;
#endif
  }
};

// out = implicit vertical advection of in by w over every interior column. scratch holds gr.size3()
// doubles (the modified upper diagonal). in and out may not alias. On the device (CUDA builds) this runs
// an on-chip kernel of vadv_cuda.cpp (scratch unused): up to 80 levels the twisted solve (bit-identical to
// vadv_columns_portable_twisted on the device, equal to the Thomas sweep to rounding), deeper columns the
// staged Thomas kernel (bit-identical to vadv_columns_portable) while a column fits in shared memory, else
// the portable form. The host runs the Thomas sweep.
void vadv_columns(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
                  double* scratch, double* out);
// The portable one-thread-per-column form: c' in scratch, d' in out, on either back end.
void vadv_columns_portable(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in,
                           const double* w, double* scratch, double* out);
// The same system solved by the twisted (two-sided) Thomas algorithm: levels 0 .. m = ceil(nz/2) - 1
// eliminated upwards as in the Thomas sweep, levels nz-1 .. m+1 downwards (VadvStep::mirrored), the two
// unknowns where they meet from a 2 x 2 system (VadvStep::meet), then each half substituted back
// outwards. Lower half bit-identical to the Thomas forward sweep, the result equal to it to rounding.
// Each half is a chain of ceil(nz/2) levels, so two threads can share a column: the reference for the
// tuned CUDA form `twist` (vadv_cuda.cpp), which must equal it bit for bit on the device.
void vadv_columns_portable_twisted(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in,
                                   const double* w, double* scratch, double* out);

// The form the last call of vadv_columns ran: "portable" (the host, or a device call no tuned kernel
// took), "twist" (the twisted kernel), "ring", "reg" or "smem".
// For tests (that a form under test really ran, not its fallback) and benchmark records.
const char* vadv_last_form();

// Largest |w| dt / dz over interior columns (diagnostic for the caller's stability check).
double vadv_max_courant(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* w);

}  // namespace tessera::weather
