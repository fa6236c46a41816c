// Time stepping of the shallow-water state: SSP-RK3 stages, CFL time step, integral diagnostics.
//
// SSP-RK3 (Shu & Osher 1988, J. Comput. Phys. 77, 439; Gottlieb, Shu & Tadmor 2001, SIAM Rev. 43, 89):
//   s1 = s^n + dt L(s^n)
//   s2 = 3/4 s^n + 1/4 (s1 + dt L(s1))
//   s^{n+1} = 1/3 s^n + 2/3 (s2 + dt L(s2))
// Every stage has the form  out = a s^n + c (s_k + dt L(s_k)), which the fused kernel sw_stage
// evaluates in one pass (it reads s^n, s_k, b and writes out once: the fast path). The cheaper option
// is SSP-RK2 (Heun: stages (0,1) and (1/2,1/2)).
// sw_tendency_reference computes L(s) the simple way, one intermediate array per quantity; tests
// compare the fused path against it.
#pragma once
#include <array>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_point.hpp"

namespace tessera::weather {

enum class TimeScheme { SspRk3, SspRk2 };
struct StageCoef {
  double a, c;
};
// Coefficients (a, c) of stage k: out = a s^n + c (s_k + dt L(s_k)).
inline std::array<StageCoef, 3> stage_coefficients(TimeScheme ts) {
  if (ts == TimeScheme::SspRk2) return {StageCoef{0.0, 1.0}, StageCoef{0.5, 0.5}, StageCoef{0, 0}};
  return {StageCoef{0.0, 1.0}, StageCoef{0.75, 0.25}, StageCoef{1.0 / 3.0, 2.0 / 3.0}};
}
inline int stage_count(TimeScheme ts) { return ts == TimeScheme::SspRk2 ? 2 : 3; }

// Fused stage over the interior: out = a s0 + c (sk + dt L(sk)). sk needs valid ghosts; out's ghosts
// are left untouched. Wall faces keep zero normal velocity.
void sw_stage(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
              double a, double c, double dt);
// Cells [i0, i1) x [j0, j1) of the interior only, so that a solver can update the cells that read no
// ghost while the halo moves and the boundary shell after it (same arithmetic per cell: same bits).
struct CellRect {
  int64_t i0 = 0, i1 = 0, j0 = 0, j1 = 0;
  bool empty() const { return i1 <= i0 || j1 <= j0; }
};
void sw_stage(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk, SwView out,
              double a, double c, double dt, const CellRect& r);

// One rank holding the whole domain: sw_stage over the interior, then out's ghosts complete (periodic or
// walled per axis, as sw_fill_ghosts_local(out) would leave them, same bits). On the device the periodic
// images are written by the stage kernel itself (no separate ghost pass); walls use the wall fills.
// A step is then: sw_fill_ghosts_local(s^n) once, and sw_stage_and_fill for every stage.
void sw_stage_and_fill(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                       SwView out, double a, double c, double dt);

// SSP-RK stages 1 and 2 in one pass (temporal blocking; CUDA, sw_tiled.cpp): out = stage 2's output
// (a2 s + c2 (s1 + dt L(s1)), s1 = a1 s + c1 (s + dt L(s))) with its periodic ghost images written, s_1
// never stored. Applies on the device to one rank holding a domain periodic on both axes with a constant
// Coriolis parameter (beta = 0), nx >= 32 and ny >= 8 + the rows per warp; s's ghosts are not read. Same bits as
// sw_stage(s, s -> t1), sw_fill_ghosts_local(t1), sw_stage(s, t1 -> out), sw_fill_ghosts_local(out) with
// the default strip shape. Returns false where it does not apply (also with TESSERA_SW_FUSED=off or a
// TESSERA_SW_TILE other than the Rf strips): the caller then runs the two stages. out must not alias s.
bool sw_stages12(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwView out, StageCoef k1,
                 StageCoef k2, double dt);

// One SSP-RK3 step for one rank holding the whole domain: s advances in place (b: the topography, with
// valid ghosts), t1 and t2 are scratch states. Fills s's ghosts, then stages 1 and 2 fused where
// sw_stages12 applies (else the two stages with a ghost fill between), t2's ghosts, stage 3. s's ghosts
// are stale afterwards (as after sw_stage). Returns whether stages 1 and 2 ran fused.
bool sw_ssprk3_step_local(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s, const double* b,
                          SwView t1, SwView t2, double dt);

// Reference: tendencies L(s) into tend (interior), using intermediate arrays held in scratch.
struct SwScratch {
  Buffer<double> U, V, q, B;
  SwScratch() = default;
  SwScratch(const Grid& gr, MemKind mk);
};
void sw_tendency_reference(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwScratch& w,
                           SwView tend);
// out = a s0 + c (sk + dt tend) over the interior.
void sw_combine(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                SwConstView tend, SwView out, double a, double c, double dt);

// Largest signal speed on this rank: max over cells of sqrt(g h) + max(|u|, |v|) (face values).
double sw_max_signal_speed(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s);
// Smallest depth on this rank (to refuse dry cells).
double sw_min_depth(const exec::Exec& ex, const Grid& gr, SwConstView s);

// Local sums over this rank's interior: mass = sum h dA, energy = sum [h K + g h (h/2 + b)] dA,
// potential enstrophy = sum over corners hc q^2 / 2 dA (sw_potential_enstrophy), circulation = sum zeta dA.
struct SwIntegrals {
  double mass = 0, energy = 0, enstrophy = 0, circulation = 0;
};
SwIntegrals sw_integrals(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s);
// Semi-discrete energy tendency sum [B Lh + U Lu + V Lv] dA (zero for both schemes, a test oracle).
double sw_energy_tendency(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwConstView tend);
// Potential enstrophy Z = sum over corners w hc q^2 / 2 dA of this rank: corners [0, n) per axis, plus the
// corner line on an east/north wall; corners on a wall weigh w = 1/2 per walled axis (the walled domain
// is half of its mirror-doubled periodic one). Needs one valid ghost layer.
double sw_potential_enstrophy(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s);
// Its semi-discrete tendency sum w [q d(zeta)/dt - q^2/2 d(hc)/dt] dA over the same corners (zero for
// Arakawa-Lamb, not for Sadourny's energy scheme: a test oracle). tend needs one valid ghost layer,
// filled with the state's boundary rules (sw_fill_ghosts_local on the tendency).
double sw_enstrophy_tendency(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s,
                             SwConstView tend);

}  // namespace tessera::weather
