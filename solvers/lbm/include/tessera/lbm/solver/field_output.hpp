// The lbm field output through the io layer (io/grid_output.hpp): one HDF5 file per output step plus the
// XDMF3 time series <dir>/fields.xdmf that ParaView opens (and fields.pvd + .vti/.pvti with output.vtk).
//
// Fields (cell data; cell (i,j,k) spans [i dx, (i+1) dx) so the origin is 0 and the half-way walls lie on
// the box faces): density (rho / rho_0), velocity (m/s), vorticity (1/s; the z component in 2-D, the
// vector in 3-D), q_criterion (1/s^2, 3-D only), solid (1 in walls and obstacles).
// Derivatives are second-order central differences, one-sided first-order at non-periodic box faces.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/io/grid_output.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm {

struct Units;

// Velocity gradient products on a global grid (x fastest, u planar [3][N], lattice or SI units alike):
// vorticity (2-D: 1 value per cell, 3-D: 3 planar) and the Q-criterion Q = (|Omega|^2 - |S|^2) / 2 (3-D).
void vorticity_and_q(const std::array<int64_t, 3>& n, const std::array<bool, 3>& periodic, double dx,
                     const std::vector<float>& u, std::vector<float>& vort, std::vector<float>* q);

class FieldOutput {
 public:
  // Collective. append: keep the steps already listed in dir (restart).
  FieldOutput(Simulation& sim, const Units& units, const Case& c, const std::string& dir, bool vtk, bool append);
  // Collective. Checks the fields (finite, density in (0.5, 2)); returns the reason if not, else writes the
  // step and returns "".
  std::string write(double time);
  const std::string& xdmf_path() const { return out_->xdmf_path(); }
  const std::string& last_written() const { return last_; }

 private:
  Simulation& sim_;
  double dx_, u_scale_;
  std::unique_ptr<io::GridOutput> out_;
  std::vector<float> solid_;  // rank 0
  std::string last_ = "(none)";
};

}  // namespace tessera::lbm
