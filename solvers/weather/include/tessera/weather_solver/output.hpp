// Output of the weather model: HDF5 + XDMF fields (through the io layer), the diagnostics CSV, the
// kinetic-energy spectrum CSV per field output, and checkpoints.
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "tessera/core/case.hpp"
#include "tessera/io/grid_output.hpp"
#include "tessera/weather_solver/model.hpp"

namespace tessera::weather {

class Output {
 public:
  Output(Model& m, const Case& c, const std::string& dir, bool append);
  ~Output();
  // Collective: one line of mass, energy, enstrophy, circulation and tracer total (rank 0 writes).
  void diagnostics(double dt);
  // Collective: fields (if enabled) and the spectrum of step m.steps.
  void fields();
  // Collective: a checkpoint of the full state; returns its path.
  std::string checkpoint();

 private:
  Model& m_;
  const Case& case_;
  std::string dir_;
  int rank_ = 0;
  std::FILE* csv_ = nullptr;
  std::unique_ptr<io::GridOutput> grid_;
};

// Collective: loads a checkpoint written by Output::checkpoint into the model (any rank count).
void restart_from(Model& m, const Case& c, const std::string& path);

}  // namespace tessera::weather
