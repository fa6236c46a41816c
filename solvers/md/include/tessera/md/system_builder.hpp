// Builds the initial particles, box, potential and bonds of a case: lattices, Kremer-Grest melts,
// XYZ files and LAMMPS data files.
#pragma once
#include <string>
#include <vector>

#include "tessera/md/bond_list.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/particles.hpp"
#include "tessera/md/potential.hpp"

namespace tessera::md {

struct InitialSystem {
  Box box;
  HostParticles particles;  // mass = per-type masses (physical units)
  std::vector<Bond> bonds;
  bool has_velocities = false;
};

// Kremer-Grest bead-spring melt: beads on a simple cubic lattice at `density`, visited in a serpentine
// order (consecutive sites are lattice neighbours), cut into chains of `length` beads.
InitialSystem polymer_melt(std::array<int, 3> cells, double density, int length);
// XYZ: atom count, comment line holding "Lattice=\"Lx 0 0 0 Ly 0 0 0 Lz\"" or "box Lx Ly Lz", then
// "type x y z" lines (type: a non-negative integer, or a name mapped to 0, 1, ... in order of appearance).
InitialSystem read_xyz(const std::string& path, int ntypes);
// LAMMPS data file, atom styles atomic ("id type x y z") and bond ("id mol type x y z"), with optional
// Masses, Velocities and Bonds sections. Types and ids become 0-based.
InitialSystem read_lammps_data(const std::string& path);

InitialSystem build_initial(const CaseConfig& k, const Units& u);
PairPotential build_potential(exec::Space s, const CaseConfig& k, int ntypes);
std::vector<BondParam> build_bond_params(const CaseConfig& k);

}  // namespace tessera::md
