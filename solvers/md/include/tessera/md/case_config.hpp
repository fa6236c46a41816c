// The md case file: its schema (the one place where keys are declared) and its translation into the
// engine's settings. `md --print-schema md` prints the reference generated from it (docs/md.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

const Schema& schema();
MemoryEstimate memory_estimate(const Case& c, int nranks);

struct PairCoeff {
  int a = 0, b = 0;
  double epsilon = 1, sigma = 1, cutoff = 0;  // cutoff 0: the global one
};

// Everything the run needs, read from a validated case.
struct CaseConfig {
  SimConfig sim;
  bool cuda_graph_given = false;  // run.cuda_graph set in the case (not the default): warn if it cannot apply
  int64_t steps = 0;
  // system
  std::string source = "lattice";  // lattice | polymer | xyz | lammps_data
  std::string lattice = "fcc";
  std::array<int, 3> cells{8, 8, 8};
  double density = 0.8442;
  std::string file;
  int chain_length = 0;
  std::vector<double> mass{1.0};
  double init_temperature = 1.0;
  uint64_t velocity_seed = 1;
  // pair
  std::string pair_style = "lj";
  std::string shift = "energy";
  double cutoff = 2.5;
  std::string mixing = "lorentz_berthelot";
  std::vector<double> epsilon{1.0}, sigma{1.0};
  std::vector<PairCoeff> coeffs;
  double morse_d0 = 1, morse_alpha = 1, morse_r0 = 1;
  std::string table_file;
  // bonds
  std::string bond_style = "none";
  double bond_k = 30, bond_r0 = 1.5;
  // output
  int64_t thermo_every = 100;
  int64_t trajectory_every = 0;
  bool thermo_csv = true;
  int64_t msd_every = 0;         // msd.csv cadence (0: off)
  int64_t checkpoint_every = 0;  // 0: only on a stop request (signal, --max-walltime) and at the end
  int checkpoint_keep = 3;       // 0: keep all
  double wall_gap = 1.0;         // walled axes: box = particles' extent + this gap at each face
  domain::Transport transport = domain::Transport::HostStaged;  // parallel.transport (several ranks)
};

CaseConfig read_config(const Case& c);

}  // namespace tessera::md
