// Derived fields of the shallow-water state for output, all moved to cell centres:
//   u_c = (u(i) + u(i+1)) / 2,  v_c = (v(j) + v(j+1)) / 2,
//   zeta_c, pv_c = averages of the four corner values of zeta and q = (f + zeta) / h_corner.
// Also the zeroing of wall-normal velocity after operators that do not know about walls (diffusion).
#pragma once
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_point.hpp"

namespace tessera::weather {

// Writes into interior cells of the four output arrays (same layout as the state). s needs ghosts.
void sw_centre_fields(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, double* uc, double* vc,
                      double* zeta_c, double* pv_c);

// u = 0 on west wall faces, v = 0 on south wall faces of this rank's interior.
void zero_wall_faces(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s);

}  // namespace tessera::weather
