// lbm CASE.yaml: the lattice-Boltzmann solver executable.
#include "tessera/core/cli.hpp"
#include "tessera/lbm/solver/app.hpp"

int main(int argc, char** argv) {
  tessera::SolverApp app{"lbm", "Lattice-Boltzmann fluid solver", &tessera::lbm::schema(), tessera::lbm::memory_estimate,
                         tessera::lbm::run};
  return tessera::run_app(argc, argv, app);
}
