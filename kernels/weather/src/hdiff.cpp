// COSMO flux-limited fourth-order horizontal diffusion: fused path and staged reference.
#include "tessera/weather/hdiff.hpp"

#include "cosmo_cuda.hpp"

namespace tessera::weather {

using exec::Range3;

void hdiff_fused(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                 double* out) {
  TESSERA_REQUIRE(gr.g >= 2, "horizontal diffusion needs ghost width >= 2");
#if TESSERA_CUDA_COMPILER
  if (ex.on_device()) {
    detail::hdiff_cuda(ex, gr, in, coeff, coeff0, out);
    return;
  }
#endif
  detail::hdiff_note_form("portable");
  hdiff_portable(ex, gr, in, coeff, coeff0, out);
}

void hdiff_portable(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                    double* out) {
  TESSERA_REQUIRE(gr.g >= 2, "horizontal diffusion needs ghost width >= 2");
  const HdiffPoint P{gr, in};
  const Grid G = gr;
  exec::parallel_for(ex, "weather::hdiff", Range3{G.nx, G.ny, G.nz}, TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) {
    const double cf = coeff ? coeff[G.idx(i, j, k)] : coeff0;
    out[G.idx(i, j, k)] = P.update(i, j, k, cf);
  });
}

HdiffScratch::HdiffScratch(const Grid& gr, MemKind mk)
    : lap(size_t(gr.size3()), mk, "weather::hdiff_lap"),
      flx(size_t(gr.size3()), mk, "weather::hdiff_flx"),
      fly(size_t(gr.size3()), mk, "weather::hdiff_fly") {}

void hdiff_reference(const exec::Exec& ex, const Grid& gr, const double* in, const double* coeff, double coeff0,
                     HdiffScratch& w, double* out) {
  TESSERA_REQUIRE(gr.g >= 2, "horizontal diffusion needs ghost width >= 2");
  const Grid G = gr;
  double* lap = w.lap.data();
  double* flx = w.flx.data();
  double* fly = w.fly.data();
  // lap on [-1, n] in both axes
  exec::parallel_for(ex, "weather::hdiff_ref_lap", Range3{G.nx + 2, G.ny + 2, G.nz},
                     TESSERA_LAMBDA(int64_t ii, int64_t jj, int64_t k) {
                       const int64_t i = ii - 1, j = jj - 1;
                       lap[G.idx(i, j, k)] = (in[G.idx(i + 1, j, k)] + in[G.idx(i - 1, j, k)]) +
                                             (in[G.idx(i, j + 1, k)] + in[G.idx(i, j - 1, k)]) -
                                             4.0 * in[G.idx(i, j, k)];
                     });
  // flx(i) on the east face of cell i, i in [-1, nx); fly(j) on the north face, j in [-1, ny)
  exec::parallel_for(ex, "weather::hdiff_ref_flux", Range3{G.nx + 1, G.ny + 1, G.nz},
                     TESSERA_LAMBDA(int64_t ii, int64_t jj, int64_t k) {
                       const int64_t i = ii - 1, j = jj - 1;
                       const int64_t n = G.idx(i, j, k);
                       double fx = lap[G.idx(i + 1, j, k)] - lap[n];
                       if (fx * (in[G.idx(i + 1, j, k)] - in[n]) >= 0.0) fx = 0.0;
                       flx[n] = fx;
                       double fy = lap[G.idx(i, j + 1, k)] - lap[n];
                       if (fy * (in[G.idx(i, j + 1, k)] - in[n]) >= 0.0) fy = 0.0;
                       fly[n] = fy;
                     });
  exec::parallel_for(ex, "weather::hdiff_ref_out", Range3{G.nx, G.ny, G.nz}, TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) {
    const int64_t n = G.idx(i, j, k);
    const double cf = coeff ? coeff[n] : coeff0;
    out[n] = in[n] - cf * ((flx[n] - flx[G.idx(i - 1, j, k)]) + (fly[n] - fly[G.idx(i, j - 1, k)]));
  });
}

}  // namespace tessera::weather
