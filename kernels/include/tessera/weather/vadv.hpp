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

// out = implicit vertical advection of in by w over every interior column. scratch holds gr.size3()
// doubles (the modified upper diagonal). in and out may not alias.
void vadv_columns(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
                  double* scratch, double* out);

// Largest |w| dt / dz over interior columns (diagnostic for the caller's stability check).
double vadv_max_courant(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* w);

}  // namespace tessera::weather
