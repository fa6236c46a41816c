// Probe points and line samples of the lbm solver, written as CSV time series in the output directory.
//
// Case keys (SI): output.probes: [{name, position: [x, y, z]}], output.lines: [{name, start, end, points}],
// output.probe_every (0: at the field output steps). Values are those of the NEAREST CELL (the cell whose
// centre is closest: i = floor(x / dx), clamped to the box), not interpolated, so that a probe reads
// exactly what the field output holds at that cell: density rho / rho_0 and velocity in m/s.
//
//   <dir>/probes.csv        step,time,<name>_rho,<name>_ux,<name>_uy,<name>_uz,...  (one row per sample)
//   <dir>/line_<name>.csv   step,time,s,x,y,z,rho,ux,uy,uz                          (one row per point)
//
// Comment lines (#) give each probe's requested point, cell and cell centre. On --restart the files are
// kept up to the checkpoint's step and rows past it are dropped, so the series continue without duplicates.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm {

struct Units;

// The cell whose centre is nearest to x (m): floor(x / dx) per axis, clamped to [0, n); z = 0 in 2-D.
std::array<int64_t, 3> nearest_cell(const std::array<double, 3>& x, double dx, const std::array<int64_t, 3>& n);

// Schema cross-check: every probe and line end lies inside the box [0, n dx]; "" when fine.
std::string check_probes(const Case& c);

// Keeps the comment/header lines of a CSV time series and the rows whose first column (the step) is at
// most last_step; drops the rest (rows written after the checkpoint a run restarts from).
void truncate_csv_after(const std::string& path, int64_t last_step);

class Probes {
 public:
  // Collective. restart_step < 0: a fresh run (files created); else the files are truncated after it.
  Probes(const Simulation& sim, const Units& units, const Case& c, const std::string& dir, int64_t restart_step);
  bool empty() const { return cells_.empty(); }
  // Sampling cadence in steps; 0 means "with the field output" (the caller decides).
  int64_t every() const { return every_; }
  // Collective: reads the current moments of the probe cells and appends the rows (rank 0 writes).
  void sample(Simulation& sim, double time);

 private:
  struct Line {
    std::string name, path;
    std::size_t first, count;  // their cells in cells_
    std::vector<std::array<double, 3>> pos;
    std::vector<double> s;
  };
  std::vector<std::array<int64_t, 3>> cells_;  // probes first, then every line's points
  std::size_t nprobes_ = 0;
  std::vector<Line> lines_;
  std::string probe_path_;
  double u_scale_ = 1;  // lattice velocity -> m/s
  int64_t every_ = 0;
};

}  // namespace tessera::lbm
