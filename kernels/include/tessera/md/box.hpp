// Orthorhombic simulation box, periodic or bounded (by walls, walls.hpp) per axis.
//
// Minimum-image convention on periodic axes: a separation dx is folded into [-L/2, L/2) with
// dx - L*rint(dx/L). It is valid while the interaction range (cut-off + skin) is below L/2 on every
// periodic axis, which check_range enforces with a clear message. A non-periodic axis neither folds
// separations nor wraps positions (its image count stays 0); walls keep the particles inside.
#pragma once
#include <cmath>

#include "tessera/core/config_macros.hpp"

namespace tessera::md {

struct Box {
  double lo[3] = {0, 0, 0};
  double L[3] = {1, 1, 1};
  bool periodic[3] = {true, true, true};

  TESSERA_HD double volume() const { return L[0] * L[1] * L[2]; }
  // Minimum image of a separation along axis a. Multiplying by the reciprocal (hoisted out of the
  // force and list loops by the compiler) avoids a double-precision division per pair on the GPU.
  TESSERA_HD double image(double d, int a) const { return periodic[a] ? d - L[a] * rint(d * (1.0 / L[a])) : d; }
  // Wrap a coordinate into [lo, lo+L); returns the number of box lengths shifted (for image flags).
  TESSERA_HD int wrap(double& x, int a) const {
    if (!periodic[a]) return 0;
    const double s = floor((x - lo[a]) / L[a]);
    x -= s * L[a];
    // Rounding can leave x == lo+L exactly; fold it back so cell indices stay in range.
    double shift = s;
    if (x >= lo[a] + L[a]) {
      x -= L[a];
      shift += 1;
    }
    if (x < lo[a]) x = lo[a];
    return int(shift);
  }
};

// Throws (with what to change) when range exceeds half the box on some axis.
void check_range(const Box& box, double range, const char* what);

}  // namespace tessera::md
