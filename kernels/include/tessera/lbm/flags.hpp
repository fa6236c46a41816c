// One flag byte per cell.
//
//   bits 0-1: kind   0 fluid, 1 wall (half-way bounce-back), 2 inactive (never read, never written),
//                    3 open: a fluid cell next to an open face (velocity inlet / pressure outlet)
//   bits 2-5: wall id for kind 1: index into CollisionParams::walls (id 0 is a wall at rest);
//             face index (0..5: x-, x+, y-, y+, z-, z+) for kind 3 (open_boundary.hpp);
//             for kind 0, bits 2-4: the cell's face (flag_face, below), derived like kNoWallNeighbour
//   bit 6:    kNoWallNeighbour on a fluid cell none of whose lattice neighbours is a wall: the odd AA step
//             then streams without reading the neighbours' flags (stream_collide.hpp). write_flags() sets
//             it from the other bits; it never changes the result, only the work.
//   bit 7:    kWallStaged, set only during a tuned odd step (wall_stage.hpp) on a fluid cell whose links
//             from walls have been staged in the wall cells' slots: that step streams it like a
//             kNoWallNeighbour cell, and the bit is cleared again before the step returns.
//
//   face (bits 2-4 of a plain fluid cell, kind 0; flag_face): 1 + 2a + s when the cell's wall neighbours
//             are exactly its lattice neighbours at x_a - 1 (s = 0: the cells it takes its links with
//             c_a = +1 from) or at x_a + 1 (s = 1), all walls of one id: a cell of a box's face normal to
//             axis a, away from the face's edges; 0 otherwise. write_flags() sets it from the other bits,
//             and like kNoWallNeighbour it never changes the result, only the work: the tuned odd step can
//             stream such a cell with its links from the wall taken from its own slots (stream_collide.hpp,
//             face_from / face_into; TESSERA_LBM_FACE_CELLS) instead of reading its neighbours' flags, and
//             everything else treats it as any cell with a wall neighbour.
//
// A wall's velocity enters through Ladd's moving-wall correction (see stream_collide.hpp). Fluid and
// open cells are the cells updated (is_fluid); walls and inactive cells keep whatever their slots hold.
// Open cells complete their unknown populations before the collision (open_boundary.hpp); only the
// portable kernel does that, so a lattice with open cells must use KernelPath::Reference.
#pragma once
#include <cstdint>

#include "tessera/core/config_macros.hpp"

namespace tessera::lbm {

inline constexpr uint8_t kFluid = 0;
inline constexpr uint8_t kWall = 1;
inline constexpr uint8_t kInactive = 2;
inline constexpr uint8_t kOpen = 3;
inline constexpr int kMaxWallIds = 16;
inline constexpr uint8_t kNoWallNeighbour = 0x40;
inline constexpr uint8_t kWallStaged = 0x80;
// An odd step streams a cell with either bit without reading its neighbours' flags.
inline constexpr uint8_t kStreamFree = kNoWallNeighbour | kWallStaged;
inline constexpr uint8_t kFaceBits = 0x1c;  // bits 2-4 of a plain fluid cell: flag_face

TESSERA_HD constexpr uint8_t flag_kind(uint8_t f) { return uint8_t(f & 3u); }
TESSERA_HD constexpr int flag_wall_id(uint8_t f) { return int(f >> 2) & 15; }
TESSERA_HD constexpr uint8_t make_wall(int id) { return uint8_t(kWall | (uint8_t(id & 15) << 2)); }
TESSERA_HD constexpr uint8_t make_open(int face) { return uint8_t(kOpen | (uint8_t(face & 15) << 2)); }
// Cells that are updated and hold valid populations: plain fluid and open-boundary cells.
TESSERA_HD constexpr bool is_fluid(uint8_t f) { return flag_kind(f) == kFluid || flag_kind(f) == kOpen; }
// The face of a plain fluid cell (0: none; 1 + 2a + s: its wall neighbours are exactly those at x_a - 1
// (s = 0) or x_a + 1 (s = 1), of one wall id), and the flag with it set.
TESSERA_HD constexpr int flag_face(uint8_t f) { return flag_kind(f) == kFluid ? int(f >> 2) & 7 : 0; }
TESSERA_HD constexpr uint8_t with_face(uint8_t f, int face) { return uint8_t((f & ~kFaceBits) | ((face & 7) << 2)); }
// The flag without the bits derived from the geometry (kNoWallNeighbour, the face) or set within a step
// (kWallStaged): what a case or a checkpoint gives.
TESSERA_HD constexpr uint8_t geometry_flag(uint8_t f) {
  const uint8_t g = uint8_t(f & ~(kNoWallNeighbour | kWallStaged));
  return flag_kind(g) == kFluid ? uint8_t(g & ~kFaceBits) : g;
}

}  // namespace tessera::lbm
