// md case.yaml: classical molecular dynamics (see docs/md.md).
#include "tessera/core/cli.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/run.hpp"

int main(int argc, char** argv) {
  const tessera::SolverApp app{"md", "Classical molecular dynamics on GPUs and CPUs", &tessera::md::schema(),
                               tessera::md::memory_estimate, tessera::md::run};
  return tessera::run_app(argc, argv, app);
}
