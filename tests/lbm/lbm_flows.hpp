// Case set-ups shared by the validation tests (and mirrored by the YAML files in cases/lbm/).
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/initial.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm::test {

// Force-driven channel: periodic in x, walls at y = 0 and y = H. Exact steady profile
// u(y) = g / (2 nu) y (H - y), walls half-way between the last fluid cell and the wall cell.
inline SimulationSpec poiseuille(int64_t H, CollisionKind k, double omega, double g, Precision p = Precision::FP64) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  s.collision.omega = omega;
  s.collision.force[0] = g;
  s.global = {4, H, 1};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  return s;
}

// 2-D Taylor-Green vortex in a periodic N x N box: u = -u0 cos(kx) sin(ky), v = u0 sin(kx) cos(ky),
// p = -rho u0^2 / 4 (cos 2kx + cos 2ky); the kinetic energy decays as exp(-4 nu k^2 t). The initial state is
// the solver's own (initial.state: taylor_green in a case file).
inline SimulationSpec taylor_green(int64_t N, double u0, double omega, Precision p, CollisionKind k) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  s.collision.omega = omega;
  s.global = {N, N, 1};
  s.initial = taylor_green_2d(s.global, u0);
  return s;
}

// Couette flow: periodic in x, a resting wall at y = 0 and a wall at y = H moving at U along x. The steady
// profile u(y) = U y / H is linear, so half-way bounce-back with the moving-wall correction reproduces it
// exactly (the second derivative that makes the wall slip vanishes) for any collision model and tau.
inline SimulationSpec couette(int64_t H, double U, CollisionKind k, double omega, Precision p = Precision::FP64) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  s.collision.omega = omega;
  s.global = {4, H, 1};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {U, 0, 0};
  return s;
}

// Lid-driven cavity of N x N cells, lid (y = N) moving at U along x, Re = U N / nu.
inline SimulationSpec cavity(int64_t N, double U, double Re, CollisionKind k, Precision p) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = k;
  const double nu = U * double(N) / Re;
  s.collision.omega = 1.0 / (3.0 * nu + 0.5);
  s.global = {N, N, 1};
  for (auto& f : s.faces) f.kind = FaceBC::Wall;
  s.faces[3].u = {U, 0, 0};
  return s;
}

// Ghia, Ghia & Shin (1982) centre-line tables (cases/lbm/reference/): position and the column of one Re.
struct GhiaTable {
  std::vector<double> pos, val;
};
inline GhiaTable read_ghia(const std::string& file, int column) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file + ": the Ghia reference tables belong in cases/lbm/reference/");
  GhiaTable t;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::stringstream ss(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    t.pos.push_back(v[1]);
    t.val.push_back(v[std::size_t(column)]);
  }
  return t;
}
// Linear interpolation of cell-centred values f[0..N) at position s in [0, 1], with wall values.
inline double interp_cells(const std::vector<double>& f, double s, double lo_wall, double hi_wall) {
  const int64_t N = int64_t(f.size());
  const double x = s * double(N) - 0.5;
  if (x <= 0) return lo_wall + (f[0] - lo_wall) * (s * double(N)) / 0.5;
  if (x >= double(N - 1)) return hi_wall + (f[std::size_t(N - 1)] - hi_wall) * ((1.0 - s) * double(N)) / 0.5;
  const int64_t i = int64_t(x);
  const double t = x - double(i);
  return f[std::size_t(i)] * (1 - t) + f[std::size_t(i + 1)] * t;
}
// Max |u - u_Ghia| / U on the vertical centre line and |v - v_Ghia| / U on the horizontal one, for the
// cavity velocity u (gathered, planar [2 or 3][N*N], lattice units) with lid speed U, at Re 100, 400 or 1000.
// The reference tables are read from `refdir` (cases/lbm/reference).
inline std::pair<double, double> ghia_errors(const std::vector<float>& u, int64_t N, double U, int re, const std::string& refdir) {
  const std::size_t n = std::size_t(N * N);
  std::vector<double> uc(static_cast<std::size_t>(N)), vc(static_cast<std::size_t>(N));
  for (int64_t j = 0; j < N; ++j)  // x = 0.5 lies between cells N/2 - 1 and N/2
    uc[std::size_t(j)] = 0.5 * (u[std::size_t(N / 2 - 1 + N * j)] + u[std::size_t(N / 2 + N * j)]) / U;
  for (int64_t i = 0; i < N; ++i)
    vc[std::size_t(i)] = 0.5 * (u[n + std::size_t(i + N * (N / 2 - 1))] + u[n + std::size_t(i + N * (N / 2))]) / U;
  const int col = re == 100 ? 2 : (re == 400 ? 3 : 4);
  const GhiaTable gu = read_ghia(refdir + "/ghia1982_u_vertical_centreline.csv", col);
  const GhiaTable gv = read_ghia(refdir + "/ghia1982_v_horizontal_centreline.csv", col);
  if (gu.pos.size() < 17 || gv.pos.size() < 17) throw std::runtime_error("Ghia tables in " + refdir + " are incomplete");
  double eu = 0, ev = 0;
  for (std::size_t k = 0; k < gu.pos.size(); ++k) eu = std::max(eu, std::abs(interp_cells(uc, gu.pos[k], 0.0, 1.0) - gu.val[k]));
  for (std::size_t k = 0; k < gv.pos.size(); ++k) {
    if (re == 1000 && gv.pos[k] == 0.5) continue;  // transcription doubt (reference README): not a pass/fail point
    ev = std::max(ev, std::abs(interp_cells(vc, gv.pos[k], 0.0, 0.0) - gv.val[k]));
  }
  return {eu, ev};
}

// Mean kinetic energy per cell, 0.5 |u|^2 (lattice units), of the whole box.
inline double mean_kinetic_energy(Simulation& sim) {
  std::vector<float> rho, u;
  sim.gather(rho, u);
  const std::size_t m = rho.size();
  double e = 0;
  for (std::size_t c = 0; c < m; ++c)
    e += 0.5 * (double(u[c]) * u[c] + double(u[m + c]) * u[m + c] + double(u[2 * m + c]) * u[2 * m + c]);
  return e / double(m);
}

// A case file as the executable reads it (schema, --set overrides, SI -> lattice units), set up on the host
// (or device) back end without output: the validation tests run the YAML files under cases/lbm/ at CI-sized overrides.
struct CaseRun {
  Case c;
  Units units;
  int64_t steps;  // time.end / dt
  std::unique_ptr<Simulation> sim;
};
inline CaseRun load_case(const std::string& path, const std::vector<std::string>& overrides = {},
                         exec::Space space = exec::Space::Host) {
  Case c = Case::load(path, schema(), overrides);
  const Units u = units_from_case(c);
  const auto steps = std::max<int64_t>(1, int64_t(std::llround(c.get<double>("time.end") / u.dt)));
  auto sim = std::make_unique<Simulation>(MPI_COMM_SELF, space, spec_from_case(c, u));
  return CaseRun{std::move(c), u, steps, std::move(sim)};
}

}  // namespace tessera::lbm::test
