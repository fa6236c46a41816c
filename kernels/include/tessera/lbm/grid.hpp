// Memory layout of one rank's lattice: the local box plus one ghost layer along every active axis.
//
// Populations are a structure of arrays: slot q of cell c lives at f[q * n + c], with x fastest, so a
// warp reads 32 consecutive cells of one population (coalesced). The ghost layer holds the slots that
// cross the rank boundary (halo exchange) or the flags of the walls beyond a non-periodic face, so the
// update never wraps indices: neighbour of c along c_q is c + offset(c_q).
#pragma once
#include <cstdint>

#include "tessera/core/config_macros.hpp"

namespace tessera::lbm {

struct GridLayout {
  int64_t nx = 1, ny = 1, nz = 1;  // interior cells of this rank
  int gz = 1;                      // 1: z has ghosts (3-D); 0: a 2-D lattice with nz == 1
  TESSERA_HD int64_t px() const { return nx + 2; }
  TESSERA_HD int64_t py() const { return ny + 2; }
  TESSERA_HD int64_t pz() const { return nz + 2 * gz; }
  TESSERA_HD int64_t cells() const { return px() * py() * pz(); }    // padded, = n in f[q * n + c]
  TESSERA_HD int64_t interior() const { return nx * ny * nz; }
  // Padded index of interior cell (i, j, k), 0 <= i < nx etc.; ghosts are at -1 and nx.
  TESSERA_HD int64_t cell(int64_t i, int64_t j, int64_t k) const { return (i + 1) + px() * ((j + 1) + py() * (k + gz)); }
  TESSERA_HD int64_t offset(int cx, int cy, int cz) const { return cx + px() * (cy + py() * cz); }
};

}  // namespace tessera::lbm
