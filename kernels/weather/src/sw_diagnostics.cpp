// Cell-centred output fields and wall-face cleanup.
#include "tessera/weather/sw_diagnostics.hpp"

namespace tessera::weather {

void sw_centre_fields(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, double* uc, double* vc,
                      double* zeta_c, double* pv_c) {
  const SwPoint P{gr, p, s};
  const Grid G = gr;
  exec::parallel_for(ex, "weather::centre_fields", exec::Range2{G.nx, G.ny}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t n = G.idx(i, j);
    uc[n] = 0.5 * (s.u[n] + s.u[G.idx(i + 1, j)]);
    vc[n] = 0.5 * (s.v[n] + s.v[G.idx(i, j + 1)]);
    zeta_c[n] = 0.25 * ((P.zeta(i, j) + P.zeta(i + 1, j)) + (P.zeta(i, j + 1) + P.zeta(i + 1, j + 1)));
    pv_c[n] = 0.25 * ((P.q(i, j) + P.q(i + 1, j)) + (P.q(i, j + 1) + P.q(i + 1, j + 1)));
  });
}

void zero_wall_faces(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s) {
  const Grid G = gr;
  if (p.wall_x && gr.i0 == 0)
    exec::parallel_for(ex, "weather::zero_wall_u", G.ny, TESSERA_LAMBDA(int64_t j) { s.u[G.idx(0, j)] = 0.0; });
  if (p.wall_y && gr.j0 == 0)
    exec::parallel_for(ex, "weather::zero_wall_v", G.nx, TESSERA_LAMBDA(int64_t i) { s.v[G.idx(i, 0)] = 0.0; });
}

}  // namespace tessera::weather
