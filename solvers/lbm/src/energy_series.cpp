// Kinetic-energy time series (see energy_series.hpp). Sums in double over each rank's owned fluid cells,
// then MPI_Allreduce: the last digits may differ between rank counts (summation order).
#include "tessera/lbm/solver/energy_series.hpp"

#include <mpi.h>

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/probes.hpp"

namespace tessera::lbm {

EnergySeries::EnergySeries(const Simulation& sim, const Units& units, const Case& c, const std::string& dir,
                           int64_t restart_step)
    : u_scale_(units.dx / units.dt), every_(c.get<int64_t>("output.energy_every")) {
  const auto& spec = sim.spec();
  const auto& n = spec.global;
  fluid_cells_ = n[0] * n[1] * n[2];
  if (spec.solid)
    for (int64_t k = 0; k < n[2]; ++k)
      for (int64_t j = 0; j < n[1]; ++j)
        for (int64_t i = 0; i < n[0]; ++i) fluid_cells_ -= spec.solid(i, j, k) ? 1 : 0;
  if (every_ == 0 || sim.partition().rank != 0) return;
  path_ = (std::filesystem::path(dir) / "energy.csv").string();
  if (restart_step >= 0 && std::filesystem::exists(path_)) {
    truncate_csv_after(path_, restart_step);
    return;
  }
  std::FILE* f = std::fopen(path_.c_str(), "w");
  if (!f) TESSERA_THROW("lbm: cannot open " + path_ + " for writing: check the output directory (-o DIR)");
  std::fputs("# lbm kinetic energy: E = mean of |u|^2 / 2 over the fluid cells (m^2/s^2)\nstep,time,kinetic_energy\n", f);
  std::fclose(f);
}

double EnergySeries::sample(Simulation& sim, double time) {
  std::vector<float> rho, u;
  sim.local_moments(rho, u);
  const std::size_t m = rho.size();
  const auto& spec = sim.spec();
  const Partition& part = sim.partition();
  double e = 0;
  for (std::size_t c = 0; c < m; ++c) {
    if (spec.solid) {
      const int64_t l = int64_t(c);
      const int64_t i = l % part.size[0], j = (l / part.size[0]) % part.size[1], k = l / (part.size[0] * part.size[1]);
      if (spec.solid(part.lo[0] + i, part.lo[1] + j, part.lo[2] + k)) continue;
    }
    const double ux = u[c], uy = u[m + c], uz = u[2 * m + c];
    e += 0.5 * (ux * ux + uy * uy + uz * uz);
  }
  double sum = 0;
  MPI_Allreduce(&e, &sum, 1, MPI_DOUBLE, MPI_SUM, part.comm);
  const double E = sum / double(std::max<int64_t>(1, fluid_cells_)) * u_scale_ * u_scale_;
  if (!path_.empty()) {
    std::FILE* f = std::fopen(path_.c_str(), "a");
    if (!f) TESSERA_THROW("lbm: cannot append to " + path_ + ": check the output directory (-o DIR)");
    std::fprintf(f, "%lld,%.17g,%.17g\n", static_cast<long long>(sim.step()), time, E);
    std::fclose(f);
  }
  return E;
}

}  // namespace tessera::lbm
