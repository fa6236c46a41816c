// Forces: pair forces over the neighbour list and bond forces, per particle, in a fixed order.
//
// Precision: `dbl` evaluates everything in double; `mixed` evaluates pair and bond forces in float
// (separations are formed in double first, then rounded) and sums energies and virials in double.
// With energies requested the kernels also fill the per-atom potential energy pe[i] = sum_j u_ij / 2
// and virial vir[i] = sum_j r_ij . F_ij / 2 (full list, so each pair is counted half on each side).
#pragma once
#include <string>

#include "tessera/core/exec.hpp"
#include "tessera/md/bond_list.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/neighbor.hpp"
#include "tessera/md/particles.hpp"
#include "tessera/md/potential.hpp"

namespace tessera::md {

enum class Precision { dbl, mixed };
Precision parse_precision(const std::string& s);

// Overwrites f (and pe, vir when energy) with the pair forces.
void compute_pair_forces(const exec::Exec& ex, Particles& p, const Box& box, const NeighborList& nl,
                         const PairPotential& pot, Precision prec, bool energy);
// Adds bond forces (and energies). Returns nothing; an overstretched FENE bond makes pe infinite.
void add_bond_forces(const exec::Exec& ex, Particles& p, const Box& box, const BondList& bonds, Precision prec,
                     bool energy);

// O(N^2) reference in double on the host: forces, total potential energy and virial, for tests.
struct ReferenceForces {
  std::vector<double> fx, fy, fz;
  double pe = 0, virial = 0;
};
ReferenceForces reference_pair_forces(const HostParticles& h, const Box& box, const PairPotential& pot);

}  // namespace tessera::md
