// Index layout of a rank's local patch on the Arakawa C-grid.
//
// Every 2-D field is stored over the local interior nx x ny plus g ghost layers on each side, x fastest:
//   idx(i, j) = (i + g) + sx * (j + g),  sx = nx + 2g,  i in [-g, nx+g), j in [-g, ny+g).
// 3-D fields (tracers on vertical levels) stack nz such planes, level k slowest: idx(i,j,k) = idx(i,j) + k*plane.
//
// C-grid staggering (Arakawa & Lamb 1977), all stored at the same (i, j) index:
//   h, b     cell centre        (i,       j)
//   u        west face          (i - 1/2, j)
//   v        south face         (i,       j - 1/2)
//   q, zeta  south-west corner  (i - 1/2, j - 1/2)
// i0, j0 are the global indices of the local interior's first cell (used for Coriolis and walls).
#pragma once
#include <cstdint>

#include "tessera/core/config_macros.hpp"

namespace tessera::weather {

struct Grid {
  int64_t nx = 0, ny = 0, nz = 1;  // local interior extent (nz levels for 3-D fields)
  int64_t g = 2;                   // ghost width on each horizontal side
  int64_t i0 = 0, j0 = 0;          // global index of local cell (0, 0)
  int64_t gnx = 0, gny = 0;        // global interior extent
  double dx = 1, dy = 1;

  TESSERA_HD int64_t sx() const { return nx + 2 * g; }
  TESSERA_HD int64_t sy() const { return ny + 2 * g; }
  TESSERA_HD int64_t plane() const { return sx() * sy(); }
  TESSERA_HD int64_t size2() const { return plane(); }
  TESSERA_HD int64_t size3() const { return plane() * nz; }
  TESSERA_HD int64_t idx(int64_t i, int64_t j) const { return (i + g) + sx() * (j + g); }
  TESSERA_HD int64_t idx(int64_t i, int64_t j, int64_t k) const { return idx(i, j) + plane() * k; }
};

// A single-rank grid covering the whole domain.
inline Grid make_grid(int64_t nx, int64_t ny, double dx, double dy, int64_t g = 2, int64_t nz = 1) {
  Grid gr;
  gr.nx = gr.gnx = nx;
  gr.ny = gr.gny = ny;
  gr.nz = nz;
  gr.g = g;
  gr.dx = dx;
  gr.dy = dy;
  return gr;
}

}  // namespace tessera::weather
