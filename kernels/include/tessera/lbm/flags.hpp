// One flag byte per cell.
//
//   bits 0-1: kind   0 fluid, 1 wall (half-way bounce-back), 2 inactive (never read, never written)
//   bits 2-5: wall id for kind 1: index into CollisionParams::wall_u (id 0 is a wall at rest)
//
// A wall's velocity enters through Ladd's moving-wall correction (see stream_collide.hpp). Fluid cells
// are the only cells updated; walls and inactive cells keep whatever their slots hold.
#pragma once
#include <cstdint>

#include "tessera/core/config_macros.hpp"

namespace tessera::lbm {

inline constexpr uint8_t kFluid = 0;
inline constexpr uint8_t kWall = 1;
inline constexpr uint8_t kInactive = 2;
inline constexpr int kMaxWallIds = 16;

TESSERA_HD constexpr uint8_t flag_kind(uint8_t f) { return uint8_t(f & 3u); }
TESSERA_HD constexpr int flag_wall_id(uint8_t f) { return int(f >> 2) & 15; }
TESSERA_HD constexpr uint8_t make_wall(int id) { return uint8_t(kWall | (uint8_t(id & 15) << 2)); }
TESSERA_HD constexpr bool is_fluid(uint8_t f) { return flag_kind(f) == kFluid; }

}  // namespace tessera::lbm
