// Flux-form limited tracer advection: one fused SSP stage over all levels.
#include "tessera/weather/tracer_advection.hpp"

namespace tessera::weather {

void tracer_stage(const exec::Exec& ex, const Grid& gr, const double* c0, const double* ck, const double* u,
                  const double* v, double* out, double a, double s, double dt) {
  tracer_stage(ex, gr, c0, ck, u, v, out, a, s, dt, CellRect{0, gr.nx, 0, gr.ny});
}

void tracer_stage(const exec::Exec& ex, const Grid& gr, const double* c0, const double* ck, const double* u,
                  const double* v, double* out, double a, double s, double dt, const CellRect& r) {
  if (r.empty()) return;
  const TracerPoint P{gr, ck, u, v};
  const Grid G = gr;
  const int64_t i0 = r.i0, j0 = r.j0;
  exec::parallel_for(ex, "weather::tracer_stage", exec::Range3{r.i1 - r.i0, r.j1 - r.j0, G.nz},
                     TESSERA_LAMBDA(int64_t ii, int64_t jj, int64_t k) {
                       const int64_t i = ii + i0, j = jj + j0;
                       const int64_t n = G.idx(i, j, k);
                       out[n] = a * c0[n] + s * (ck[n] + dt * P.tendency(i, j, k));
                     });
}

double tracer_sum(const exec::Exec& ex, const Grid& gr, const double* c) {
  const Grid G = gr;
  return exec::reduce_sum<double>(ex, "weather::tracer_sum", exec::Range3{G.nx, G.ny, G.nz},
                                  TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) { return c[G.idx(i, j, k)]; });
}

}  // namespace tessera::weather
