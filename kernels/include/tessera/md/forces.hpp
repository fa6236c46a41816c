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

// Which pair kernel: the portable functor (one thread per particle, both back ends) or the tuned CUDA
// kernel (forces_cuda.cpp: `threads_per_atom` lanes split a particle's list and combine their sums with
// warp shuffles; a particle whose count overflowed a device-resident build is computed from the cells).
// automatic = tuned on the device when the build has it, portable otherwise. The default is portable.
enum class PairKernel { automatic, portable, tuned };

// Overwrites f (and pe, vir when energy) with the pair forces. threads_per_atom: 1, 2, 4 or 8 lanes per
// particle for the tuned kernel, 0 = chosen from the particle count (default_threads_per_atom).
void compute_pair_forces(const exec::Exec& ex, Particles& p, const Box& box, const NeighborList& nl,
                         const PairPotential& pot, Precision prec, bool energy,
                         PairKernel kernel = PairKernel::portable, int threads_per_atom = 0);
// The tuned CUDA kernel itself (throws in a build without CUDA or for a host Exec).
void compute_pair_forces_tuned(const exec::Exec& ex, Particles& p, const Box& box, const NeighborList& nl,
                               const PairPotential& pot, Precision prec, bool energy, int threads_per_atom);
bool tuned_pair_forces_available();
int default_threads_per_atom(int64_t n);
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
