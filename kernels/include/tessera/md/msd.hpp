// Mean-square displacement on the fly, from unwrapped positions.
//
//   MSD(t) = (1/N) sum_i |r_i(t) - r_i(0)|^2,   r_i = (x + ix Lx, y + iy Ly, z + iz Lz)
//
// (Allen & Tildesley, Computer Simulation of Liquids, 2nd ed. (2017), eq. 2.112; D = MSD / (6 t) at long
// times, the Einstein relation.) The image counts ix, iy, iz are updated whenever the neighbour list wraps
// positions, so the unwrapped position is exact however far a particle travels. Reference positions
// r_i(0) are stored with the particles (Particles::rx0..rz0) and follow re-sorting. No centre-of-mass
// correction: with a Langevin thermostat the centre of mass diffuses too (by 1/N of a particle's MSD).
#pragma once
#include <array>

#include "tessera/core/exec.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

// Allocates the reference arrays (if needed) and records the current unwrapped positions.
void set_msd_reference(const exec::Exec& ex, Particles& p, const Box& box);
// Per-axis mean-square displacements <dx^2>, <dy^2>, <dz^2> since the reference (their sum is the MSD).
std::array<double, 3> msd_components(const exec::Exec& ex, Particles& p, const Box& box);

}  // namespace tessera::md
