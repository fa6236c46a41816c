// Force and torque on each solid body (and optionally on the box-face walls) as a time series:
// <dir>/forces.csv (one row per body and sample) and <dir>/forces.h5 (one group per body).
//
// Forces come from momentum exchange at the half-way bounce-back links (momentum_exchange.hpp), summed
// over ranks, converted to SI with physics.density: F = F_lat rho dx^4 / dt^2 in N (3-D), and per unit
// depth, N/m, in 2-D (dx^3); torques about the body's reference point (obstacles[].center, or the centroid
// of its solid cells). With forces.reference_velocity U and forces.reference_area A (a length in 2-D):
//   C_D = 2 F . e_drag / (rho U^2 A),  C_L = 2 F . e_lift / (rho U^2 A).
// On restart the rows after the restart step are dropped, so the series continues without duplicates.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/core/schema.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm {

struct Units;

void add_force_keys(Schema& s);  // the `forces` section

class ForceSeries {
 public:
  struct Row {
    int64_t step = 0;
    double time = 0;
    int body = 0;
    std::array<double, 3> force{}, torque{};
    double cd = 0, cl = 0;
  };
  // Collective. restart_step: -1 for a fresh run; otherwise existing rows after it are dropped.
  ForceSeries(Simulation& sim, const Units& u, const Case& c, const std::string& dir, int64_t restart_step);
  int64_t every() const { return every_; }
  bool active() const { return every_ > 0 && !ids_.empty(); }
  // Collective: samples the current step; appends to forces.csv (rank 0); write_h5 also rewrites forces.h5.
  void sample(Simulation& sim, double time, bool write_h5);
  void write_h5() const;  // rank 0 writes, others return
  const std::vector<Row>& rows() const { return rows_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::string& csv_path() const { return csv_; }
  const std::string& h5_path() const { return h5_; }

 private:
  int64_t every_ = 0;
  int rank_ = 0;
  bool two_d_ = false, coeffs_ = false;
  double f_scale_ = 1, m_scale_ = 1, dx_ = 1, rho_ = 1, q_ref_ = 1;  // q_ref = rho U^2 A / 2
  std::array<double, 3> e_drag_{1, 0, 0}, e_lift_{0, 1, 0};
  std::vector<int> ids_;                         // wall ids
  std::vector<std::string> names_;
  std::vector<std::array<double, 3>> ref_;       // torque reference, cells (global)
  std::vector<Row> rows_;                        // rank 0
  std::string csv_, h5_;
};

}  // namespace tessera::lbm
