// COSMO vertical advection: implicit (Crank-Nicolson type) vertical advection of a tracer in flux form,
// one tridiagonal system per column solved with the Thomas algorithm.
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

// The Thomas steps of one column, shared by the portable loop and the tuned CUDA kernel (vadv_cuda.cpp)
// so that both evaluate the same expressions in the same order. hr = beta r / 2, er = (1 - beta) r.
// Every device kernel using this is checked bit for bit against the portable loop in
// tests/weather/test_cosmo_tuned.cpp.
struct VadvStep {
  double hr, er;
  TESSERA_HD static VadvStep make(const VadvParams& vp) {
    const double r = vp.dt / vp.dz;
    return VadvStep{0.5 * vp.beta * r, (1.0 - vp.beta) * r};
  }
  // The row of the tridiagonal system at level k: a_k phi'(k-1) + b_k phi'(k) + c_k phi'(k+1) = d_k.
  struct Row {
    double a, b, c, d;
  };
  // wm = w(k-1/2), wp = w(k+1/2) (0 at the closed ends), phim, phi, phip = phi(k-1), phi(k), phi(k+1).
  // On the device every multiply-add is an explicit fma(), so that each kernel shape rounds alike
  // (left to contraction, nvcc fused one or the other product of the flux difference depending on the
  // surrounding loop). The host keeps the plain expressions; host and device agree to rounding.
  TESSERA_HD Row row(double wm, double wp, double phim, double phi, double phip) const {
    Row q;
    q.a = -hr * wm;
    q.c = hr * wp;
#if defined(__CUDA_ARCH__)
    q.b = fma(hr, wp - wm, 1.0);
    q.d = fma(-er, 0.5 * fma(wp, phi + phip, -(wm * (phim + phi))), phi);
#else
    q.b = 1.0 + hr * (wp - wm);
    q.d = phi - er * (0.5 * (wp * (phi + phip) - wm * (phim + phi)));
#endif
    return q;
  }
  // Forward elimination of row q: cp, dp hold c'_{k-1}, d'_{k-1} on entry and c'_k, d'_k on return.
  TESSERA_HD static void eliminate(const Row& q, double& cp, double& dp) {
#if defined(__CUDA_ARCH__)
    const double m = 1.0 / fma(-q.a, cp, q.b);
    cp = q.c * m;
    dp = fma(-q.a, dp, q.d) * m;
#else
    const double m = 1.0 / (q.b - q.a * cp);
    cp = q.c * m;
    dp = (q.d - q.a * dp) * m;
#endif
  }
  // Both at level k: what every kernel (portable, staged, register form) runs per level.
  TESSERA_HD void forward(double wm, double wp, double phim, double phi, double phip, double& cp, double& dp) const {
    eliminate(row(wm, wp, phim, phi, phip), cp, dp);
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
// the on-chip kernel of vadv_cuda.cpp (c', d' in shared memory, scratch unused; bit-identical to
// vadv_columns_portable on the device) when a column fits in shared memory, else the portable form.
void vadv_columns(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
                  double* scratch, double* out);
// The portable one-thread-per-column form: c' in scratch, d' in out, on either back end.
void vadv_columns_portable(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in,
                           const double* w, double* scratch, double* out);

// Largest |w| dt / dz over interior columns (diagnostic for the caller's stability check).
double vadv_max_courant(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* w);

}  // namespace tessera::weather
