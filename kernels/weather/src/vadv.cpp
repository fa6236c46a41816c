// COSMO implicit vertical advection: one Thomas solve per column.
#include "tessera/weather/vadv.hpp"

#include <cmath>

#include "cosmo_cuda.hpp"

namespace tessera::weather {

using exec::Range2;

void vadv_columns(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
                  double* scratch, double* out) {
#if TESSERA_CUDA_COMPILER
  if (ex.on_device() && detail::vadv_cuda(ex, gr, vp, in, w, out)) return;  // it notes its form
#endif
  detail::vadv_note_form("portable");
  vadv_columns_portable(ex, gr, vp, in, w, scratch, out);
}

void vadv_columns_portable(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in,
                           const double* w, double* scratch, double* out) {
  const Grid G = gr;
  const VadvStep S = VadvStep::make(vp);
  exec::parallel_for(ex, "weather::vadv", Range2{G.nx, G.ny}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t nz = G.nz;
    double* cp = scratch;  // modified upper diagonal c'_k
    // forward sweep: eliminate the lower diagonal, d'_k goes to out
    VadvStep::Carry s;  // closed bottom: w(-1/2) = 0
    double phi = in[G.idx(i, j, 0)];
    for (int64_t k = 0; k < nz; ++k) {
      const int64_t n = G.idx(i, j, k);
      const double wp = k + 1 < nz ? w[n] : 0.0;  // w(k+1/2); closed top
      const double phip = k + 1 < nz ? in[G.idx(i, j, k + 1)] : 0.0;
      S.forward(s, wp, phi, phip);
      cp[n] = s.cp;
      out[n] = s.dp;
      phi = phip;
    }
    // back substitution: x_k = d'_k - c'_k x_{k+1}
    double x = out[G.idx(i, j, nz - 1)];
    for (int64_t k = nz - 2; k >= 0; --k) {
      const int64_t n = G.idx(i, j, k);
      x = VadvStep::back(out[n], cp[n], x);
      out[n] = x;
    }
  });
}

void vadv_columns_portable_twisted(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in,
                                   const double* w, double* scratch, double* out) {
  const Grid G = gr;
  const VadvStep S = VadvStep::make(vp);
  const VadvStep M = S.mirrored();
  exec::parallel_for(ex, "weather::vadv_twisted", Range2{G.nx, G.ny}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t nz = G.nz;
    const int64_t nt = (nz + 1) / 2;  // levels 0 .. nt-1 from below, nz-1 .. nt from above
    double* cp = scratch;             // c'_k below the meeting point, a''_k above
    VadvStep::Carry lo;               // closed bottom: w(-1/2) = 0
    double phi = in[G.idx(i, j, 0)];
    for (int64_t k = 0; k < nt; ++k) {
      const int64_t n = G.idx(i, j, k);
      const double wp = k + 1 < nz ? w[n] : 0.0;
      const double phip = k + 1 < nz ? in[G.idx(i, j, k + 1)] : 0.0;
      S.forward(lo, wp, phi, phip);
      cp[n] = lo.cp;
      out[n] = lo.dp;
      phi = phip;
    }
    VadvStep::Carry hi;  // closed top: w(nz-1/2) = 0
    phi = in[G.idx(i, j, nz - 1)];
    for (int64_t k = nz - 1; k >= nt; --k) {
      const int64_t n = G.idx(i, j, k);
      const double wm = w[G.idx(i, j, k - 1)];  // w(k-1/2)
      const double phim = in[G.idx(i, j, k - 1)];
      M.forward(hi, wm, phi, phim);
      cp[n] = hi.cp;
      out[n] = hi.dp;
      phi = phim;
    }
    double xm = 0.0, xn = 0.0;
    VadvStep::meet(lo.cp, lo.dp, hi.cp, hi.dp, xm, xn);  // hi is zero when nz = 1: xm = d'_0
    out[G.idx(i, j, nt - 1)] = xm;
    double x = xm;
    for (int64_t k = nt - 2; k >= 0; --k) {
      const int64_t n = G.idx(i, j, k);
      x = VadvStep::back(out[n], cp[n], x);
      out[n] = x;
    }
    x = xn;
    if (nt < nz) out[G.idx(i, j, nt)] = xn;
    for (int64_t k = nt + 1; k < nz; ++k) {
      const int64_t n = G.idx(i, j, k);
      x = VadvStep::back(out[n], cp[n], x);
      out[n] = x;
    }
  });
}

double vadv_max_courant(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* w) {
  const Grid G = gr;
  const double r = vp.dt / vp.dz;
  return exec::reduce_max<double>(ex, "weather::vadv_courant", exec::Range3{G.nx, G.ny, G.nz - 1},
                                  TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) { return fabs(w[G.idx(i, j, k)]) * r; });
}

}  // namespace tessera::weather
