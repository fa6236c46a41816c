// Host API of interpolated bounce-back (interpolated_bounce_back.hpp): finding the boundary links of a
// rank's lattice, the pass after each step, and the force correction for momentum exchange.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "tessera/lbm/interpolated_bounce_back.hpp"
#include "tessera/lbm/lattice_state.hpp"

namespace tessera::lbm {

// Wall fraction of the link from interior cell (i, j, k) (local indices) along lattice direction q into a
// wall cell: delta in (0, 1], or a value outside (0, 1) other than 1 for "unknown" (kept half-way).
using LinkFraction = std::function<double(int64_t i, int64_t j, int64_t k, int q)>;

// The links to interpolate: fluid (or open) interior cell x_f, x_f + c_q a wall whose id is at least
// `min_wall_id` (solid bodies, not the box faces), x_f - c_q fluid (the scheme's upstream cell), and
// delta != 1/2 (exactly half-way needs no work). flags: the padded flags (read_flags). Sorted by cell.
std::vector<BoundaryLink> find_boundary_links(LatticeKind lattice, const GridLayout& g, const std::vector<uint8_t>& flags,
                                              int min_wall_id, const LinkFraction& fraction);

// The pass: rewrites the bounce-back slot of every link for the step that comes next (the state's
// parity), completing the streaming of the step just taken. Call after every step, once its halo
// exchange has finished (not on the initial state, which no step produced). d_links: `count` links and
// d_fstar (null, or `count` values that receive f*_q(x_f) for the forces) in memory the state's space reads.
void interpolated_bounce_back(const exec::Exec& ex, LatticeState& s, const CollisionParams& p,
                              const BoundaryLink* d_links, int64_t count, double* d_fstar = nullptr);

// What to add to wall_force() for wall id `wall_id` so that it is the momentum exchange with the
// interpolated populations (Fx, Fy, Fz, Mx, My, Mz). After the pass, with the fstar it filled.
std::array<double, 6> link_force_correction(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                                            const BoundaryLink* d_links, const double* d_fstar, int64_t count,
                                            const int64_t lo[3], int wall_id);

}  // namespace tessera::lbm
