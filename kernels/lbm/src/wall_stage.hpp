// Wall links staged in the wall cells' slots for an odd AA step of the tuned kernels (docs/performance.md,
// LBM item 34).
//
// In an odd step a fluid cell c takes link q from its neighbour c - c_q. Where that neighbour is a wall,
// aa_load takes the cell's own slot q plus the wall term instead, and aa_store bounces the outgoing
// population opp(q) back into slot q of c. Those per-link choices make the wall-adjacent cells run a
// second, divergent pass in the one-cell kernel (a quarter of the warps of a 256^3 box, LBM item 33).
// Staged instead, the odd step streams such a cell exactly like one without a wall neighbour:
//
//   before (stage_in, one thread per link (c, q), w = c - c_q a wall): w's slot opp(q) is kept in save,
//     and receives the value aa_load would take, A(slot q of c) + wall_term(q); the cell gets kWallStaged.
//   the odd step: the cell loads link q from w's slot opp(q) (that value) and stores its outgoing opp(q)
//     there (the AA pattern reads and writes the same slot), as for any neighbour.
//   after (stage_out): slot q of c = A(w's slot opp(q)) - wall_term(opp(q)), aa_store's bounce-back, and
//     w's slot opp(q) gets its kept value back; kWallStaged is cleared.
//
// The values are aa_load's and aa_store's bit for bit in every precision, moving walls included: those
// round the bounced populations through the storage (through_storage, stream_collide.hpp) exactly where
// the staged values are stored in a wall's slot. Each wall slot belongs to one link (c = w + c_q), so no
// two threads touch the same slot, and after the step every byte, the walls' slots included, is what the
// wall-checking path leaves.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/lbm/stream_collide.hpp"

namespace tessera::lbm::detail {

// A staged link: q (bits 0-4), the wall's id (5-8), whether it is the cell's link of least q (9: that
// thread sets and clears kWallStaged), the cell's flag byte (10-17) and the padded cell index (18-63).
struct StageLink {
  uint64_t e;
  TESSERA_HD int q() const { return int(e & 31u); }
  TESSERA_HD uint8_t wall_flag() const { return make_wall(int((e >> 5) & 15u)); }
  TESSERA_HD bool first() const { return ((e >> 9) & 1u) != 0; }
  TESSERA_HD uint8_t cell_flag() const { return uint8_t(e >> 10); }
  TESSERA_HD int64_t cell() const { return int64_t(e >> 18); }
  static constexpr StageLink make(int64_t c, uint8_t cell_flag, bool first, int wall_id, int q) {
    return StageLink{(uint64_t(c) << 18) | (uint64_t(cell_flag) << 10) | (uint64_t(first) << 9) |
                     (uint64_t(wall_id & 15) << 5) | uint64_t(q)};
  }
};

// The per-link work of the two passes (In: before the odd step, else after it); save: this link's slot.
template <class L, class S, bool In>
TESSERA_HD inline void stage_link(S* __restrict__ f, uint8_t* __restrict__ flags, const GridLayout& g,
                                  const WallTable& walls, StageLink k, S* __restrict__ save) {
  using A = typename Storage<S>::Real;
  const int64_t n = g.cells(), c = k.cell();
  const int q = k.q();
  TESSERA_LBM_UNROLL
  for (int r = 1; r < L::Q; ++r) {  // unrolled to r == q: the lattice's offsets become constants
    if (r != q) continue;
    S* slot = f + int64_t(opposite(r)) * n + (c - g.offset(L::c(r, 0), L::c(r, 1), L::c(r, 2)));
    if constexpr (In) {
      *save = *slot;
      *slot = Storage<S>::store(A(Storage<S>::load(f[r * n + c])) + wall_term<L, A>(r, walls, k.wall_flag()));
    } else {
      f[r * n + c] = Storage<S>::store(A(Storage<S>::load(*slot)) - wall_term<L, A>(opposite(r), walls, k.wall_flag()));
      *slot = *save;
    }
  }
  if (k.first()) flags[c] = In ? uint8_t(k.cell_flag() | kWallStaged) : k.cell_flag();
}

// The links to stage on a grid with these flags (kWallStaged clear), ordered by q, then by cell: every
// link from a wall of every interior plain-fluid cell that has a wall neighbour, but for the face cells
// (flag_face, flags.hpp) where skip_faces (the odd step streams those itself: TESSERA_LBM_FACE_CELLS).
// Empty where there would be more than max_links.
std::vector<StageLink> stage_links(LatticeKind lattice, const GridLayout& g, const std::vector<uint8_t>& flags,
                                   std::size_t max_links, bool skip_faces = false);

}  // namespace tessera::lbm::detail
