// Ghost layers at physical boundaries (walls) and for a domain held entirely by one rank (periodic).
//
// Walls are free-slip and impermeable. Centred quantities and the tangential velocity are mirrored
// about the wall face (even), the normal velocity is zero on the wall face and odd about it:
//   west wall, even:  a(-1-m) = a(m)              east wall, even:  a(nx+m) = a(nx-1-m)
//   west wall, odd:   a(0) = 0, a(-m) = -a(m)     east wall, odd:   a(nx) = 0, a(nx+m) = -a(nx-m)
// Filling order for a consistent corner: x sides over every row (ghost rows included), then y sides
// over every column, after any halo exchange has filled the ghosts shared with other ranks.
#pragma once
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_point.hpp"

namespace tessera::weather {

enum class Parity { Even, Odd };  // Odd: a velocity component normal to the wall

// Per-level operations on a field with gr.nz levels (gr.nz = 1 for 2-D fields).
void fill_periodic_x(const exec::Exec& ex, const Grid& gr, double* a);  // whole x extent on this rank
void fill_periodic_y(const exec::Exec& ex, const Grid& gr, double* a);
void fill_wall_x(const exec::Exec& ex, const Grid& gr, double* a, Parity par, bool west, bool east);
void fill_wall_y(const exec::Exec& ex, const Grid& gr, double* a, Parity par, bool south, bool north);

// Which sides of this rank's patch lie on a wall of the global domain.
struct WallSides {
  bool west = false, east = false, south = false, north = false;
};
WallSides wall_sides(const Grid& gr, const SwParams& p);

// Walls for h, u, v (and b when given) after a halo exchange (x then y).
void sw_fill_walls(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s, double* b = nullptr);
// Complete ghost fill when one rank holds the whole domain: periodic or walled per axis.
void sw_fill_ghosts_local(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwView s, double* b = nullptr);
// The same for one scalar (centred) field, e.g. a tracer level stack.
void scalar_fill_ghosts_local(const exec::Exec& ex, const Grid& gr, const SwParams& p, double* a);

}  // namespace tessera::weather
