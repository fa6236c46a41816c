// Ghost-layer fills for walls and single-rank periodic axes (see boundary.hpp for the rules).
#include "tessera/weather/boundary.hpp"

namespace tessera::weather {

using exec::Range2;
using exec::Range3;

void fill_periodic_x(const exec::Exec& ex, const Grid& gr, double* a) {
  const Grid G = gr;
  // every row, ghost rows included, so that a later y fill sees complete rows
  exec::parallel_for(ex, "weather::periodic_x", Range3{G.g, G.sy(), G.nz}, TESSERA_LAMBDA(int64_t m, int64_t jj, int64_t k) {
    const int64_t j = jj - G.g;
    a[G.idx(-1 - m, j, k)] = a[G.idx(G.nx - 1 - m, j, k)];
    a[G.idx(G.nx + m, j, k)] = a[G.idx(m, j, k)];
  });
}

void fill_periodic_y(const exec::Exec& ex, const Grid& gr, double* a) {
  const Grid G = gr;
  exec::parallel_for(ex, "weather::periodic_y", Range3{G.sx(), G.g, G.nz}, TESSERA_LAMBDA(int64_t ii, int64_t m, int64_t k) {
    const int64_t i = ii - G.g;
    a[G.idx(i, -1 - m, k)] = a[G.idx(i, G.ny - 1 - m, k)];
    a[G.idx(i, G.ny + m, k)] = a[G.idx(i, m, k)];
  });
}

void fill_wall_x(const exec::Exec& ex, const Grid& gr, double* a, Parity par, bool west, bool east) {
  if (!west && !east) return;
  const Grid G = gr;
  const bool odd = par == Parity::Odd;
  exec::parallel_for(ex, "weather::wall_x", Range2{G.sy(), G.nz}, TESSERA_LAMBDA(int64_t jj, int64_t k) {
    const int64_t j = jj - G.g;
    if (west) {
      if (odd) {
        a[G.idx(0, j, k)] = 0.0;
        for (int64_t m = 1; m <= G.g; ++m) a[G.idx(-m, j, k)] = -a[G.idx(m, j, k)];
      } else {
        for (int64_t m = 0; m < G.g; ++m) a[G.idx(-1 - m, j, k)] = a[G.idx(m, j, k)];
      }
    }
    if (east) {
      if (odd) {
        a[G.idx(G.nx, j, k)] = 0.0;
        for (int64_t m = 1; m < G.g; ++m) a[G.idx(G.nx + m, j, k)] = -a[G.idx(G.nx - m, j, k)];
      } else {
        for (int64_t m = 0; m < G.g; ++m) a[G.idx(G.nx + m, j, k)] = a[G.idx(G.nx - 1 - m, j, k)];
      }
    }
  });
}

void fill_wall_y(const exec::Exec& ex, const Grid& gr, double* a, Parity par, bool south, bool north) {
  if (!south && !north) return;
  const Grid G = gr;
  const bool odd = par == Parity::Odd;
  exec::parallel_for(ex, "weather::wall_y", Range2{G.sx(), G.nz}, TESSERA_LAMBDA(int64_t ii, int64_t k) {
    const int64_t i = ii - G.g;
    if (south) {
      if (odd) {
        a[G.idx(i, 0, k)] = 0.0;
        for (int64_t m = 1; m <= G.g; ++m) a[G.idx(i, -m, k)] = -a[G.idx(i, m, k)];
      } else {
        for (int64_t m = 0; m < G.g; ++m) a[G.idx(i, -1 - m, k)] = a[G.idx(i, m, k)];
      }
    }
    if (north) {
      if (odd) {
        a[G.idx(i, G.ny, k)] = 0.0;
        for (int64_t m = 1; m < G.g; ++m) a[G.idx(i, G.ny + m, k)] = -a[G.idx(i, G.ny - m, k)];
      } else {
        for (int64_t m = 0; m < G.g; ++m) a[G.idx(i, G.ny + m, k)] = a[G.idx(i, G.ny - 1 - m, k)];
      }
    }
  });
}

WallSides wall_sides(const Grid& gr, const SwParams& p) {
  WallSides w;
  w.west = p.wall_x && gr.i0 == 0;
  w.east = p.wall_x && gr.i0 + gr.nx == gr.gnx;
  w.south = p.wall_y && gr.j0 == 0;
  w.north = p.wall_y && gr.j0 + gr.ny == gr.gny;
  return w;
}

void sw_fill_walls(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s, double* b) {
  const WallSides w = wall_sides(gr, p);
  Grid g2 = gr;
  g2.nz = 1;
  fill_wall_x(ex, g2, s.h, Parity::Even, w.west, w.east);
  fill_wall_x(ex, g2, s.u, Parity::Odd, w.west, w.east);
  fill_wall_x(ex, g2, s.v, Parity::Even, w.west, w.east);
  if (b) fill_wall_x(ex, g2, b, Parity::Even, w.west, w.east);
  fill_wall_y(ex, g2, s.h, Parity::Even, w.south, w.north);
  fill_wall_y(ex, g2, s.u, Parity::Even, w.south, w.north);
  fill_wall_y(ex, g2, s.v, Parity::Odd, w.south, w.north);
  if (b) fill_wall_y(ex, g2, b, Parity::Even, w.south, w.north);
}

void sw_fill_ghosts_local(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s, double* b) {
  Grid g2 = gr;
  g2.nz = 1;
  double* fields[4] = {s.h, s.u, s.v, b};
  if (!p.wall_x)
    for (double* f : fields)
      if (f) fill_periodic_x(ex, g2, f);
  if (!p.wall_y)
    for (double* f : fields)
      if (f) fill_periodic_y(ex, g2, f);
  // periodic axes first (x over every row, then y over every column), then walls in the same order:
  // each later fill reads only ghosts that an earlier one has made valid, so corners agree.
  sw_fill_walls(ex, g2, p, s, b);
}

void scalar_fill_ghosts_local(const exec::Exec& ex, const Grid& gr, const SwParams& p, double* a) {
  if (!p.wall_x) fill_periodic_x(ex, gr, a);
  if (!p.wall_y) fill_periodic_y(ex, gr, a);
  const WallSides w = wall_sides(gr, p);
  fill_wall_x(ex, gr, a, Parity::Even, w.west, w.east);
  fill_wall_y(ex, gr, a, Parity::Even, w.south, w.north);
}

}  // namespace tessera::weather
