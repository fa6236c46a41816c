// weather case.yaml: rotating shallow water on a C-grid (see docs/weather.md).
#include "tessera/core/cli.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/run.hpp"

int main(int argc, char** argv) {
  const tessera::SolverApp app{"weather", "Rotating shallow water on an Arakawa C-grid with COSMO stencils",
                               &tessera::weather::schema(), tessera::weather::memory_estimate, tessera::weather::run};
  return tessera::run_app(argc, argv, app);
}
