// Initial conditions: particles on a cubic lattice at a given number density, and random velocities
// at a temperature with zero total momentum (both reproducible from a seed).
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

enum class LatticeKind { sc, bcc, fcc };
LatticeKind parse_lattice(const std::string& s);
int basis_size(LatticeKind k);  // 1, 2, 4

// cells[a] unit cells per axis; lattice constant a = (basis / density)^(1/3); box = cells * a.
// All atoms get type 0, ids 0..N-1 in lattice order.
HostParticles make_lattice(LatticeKind kind, std::array<int, 3> cells, double density, Box& box);

// Gaussian velocities (Philox keyed by seed and id) with the centre-of-mass velocity removed, rescaled so
// that sum m v^2 = nf kT exactly (nf = 3N - 3). inv_mass_eff per type as in Units (ftm2v / m).
void random_velocities(HostParticles& h, double kT, uint64_t seed, const std::vector<double>& inv_mass_eff);

}  // namespace tessera::md
