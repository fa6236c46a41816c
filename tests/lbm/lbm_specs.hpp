// Small LBM cases and comparisons shared by the decomposition tests (ranks, transports, overlap,
// restart): each case exercises walls, a moving wall, a solid and a body force so that every kind of halo
// region carries populations, and the comparisons are bit for bit.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm::fixtures {

// A smooth, non-trivial initial state (density ripple and a sheared, swirling velocity).
inline void wavy_initial(int64_t x, int64_t y, int64_t z, double& rho, double u[3]) {
  rho = 1.0 + 0.01 * std::sin(0.7 * double(x + 2 * y + 3 * z));
  u[0] = 0.03 * std::sin(0.4 * double(y));
  u[1] = 0.02 * std::cos(0.3 * double(x + z));
  u[2] = 0.01 * std::sin(0.5 * double(x));
}

// D3Q19 fp32 TRT, walls on y (the top one moving), periodic x and z, a solid sphere, a body force.
inline SimulationSpec channel_3d() {
  SimulationSpec s;
  s.lattice = LatticeKind::D3Q19;
  s.precision = Precision::FP32;
  s.collision.kind = CollisionKind::TRT;
  s.collision.omega = 1.6;
  s.collision.force[0] = 2e-5;
  s.global = {14, 11, 10};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {0.03, 0, 0.01};
  s.solid = [](int64_t x, int64_t y, int64_t z) { return (x - 6) * (x - 6) + (y - 5) * (y - 5) + (z - 4) * (z - 4) <= 5; };
  s.initial = wavy_initial;
  return s;
}

// D2Q9 fp32 TRT lid-driven cavity (walls all round, the lid moving) with a cylindrical obstacle.
inline SimulationSpec cavity_2d() {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = Precision::FP32;
  s.collision.kind = CollisionKind::TRT;
  s.collision.omega = 1.7;
  s.global = {23, 17, 1};
  s.faces[0].kind = s.faces[1].kind = FaceBC::Wall;
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {0.08, 0, 0};  // moving lid
  s.solid = [](int64_t x, int64_t y, int64_t) { return (x - 8) * (x - 8) + (y - 6) * (y - 6) <= 4; };
  return s;
}

// A 3-D box periodic in x and z with walls on y (the top one moving in z) and a body force; any lattice,
// precision and collision, optionally with a solid sphere and a Smagorinsky constant.
inline SimulationSpec periodic_3d(LatticeKind k, Precision p, CollisionKind ck, std::array<int64_t, 3> n,
                                  bool sphere, double smagorinsky = 0.0) {
  SimulationSpec s;
  s.lattice = k;
  s.precision = p;
  s.collision.kind = ck;
  s.collision.omega = 1.5;
  s.collision.force[0] = 2e-5;
  s.collision.smagorinsky = smagorinsky;
  s.global = n;
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {0.0, 0, 0.04};
  if (sphere)
    s.solid = [](int64_t x, int64_t y, int64_t z) { return (x - 6) * (x - 6) + (y - 5) * (y - 5) + (z - 3) * (z - 3) <= 5; };
  s.initial = wavy_initial;
  return s;
}

// Cells of the global lattice outside every body (spec.body < 0): the fluid a body force acts on.
inline int64_t fluid_cells(const SimulationSpec& s) {
  int64_t n = 0;
  for (int64_t k = 0; k < s.global[2]; ++k)
    for (int64_t j = 0; j < s.global[1]; ++j)
      for (int64_t i = 0; i < s.global[0]; ++i) n += s.body(i, j, k) < 0;
  return n;
}

// Density and velocity of a run, gathered on rank 0 of its communicator.
struct Fields {
  std::vector<float> rho, u;
};

// spec over `steps` steps on MPI_COMM_WORLD with rank grid `dims`, and on MPI_COMM_SELF of rank 0 with one
// rank: {N ranks, 1 rank}, gathered on rank 0 (both empty on the other ranks).
inline std::array<Fields, 2> run_n_and_one(SimulationSpec spec, int64_t steps, std::array<int, 3> dims,
                                           exec::Space space) {
  std::array<Fields, 2> out;
  spec.rank_dims = dims;
  {
    Simulation sim(MPI_COMM_WORLD, space, spec);
    sim.advance(steps);
    sim.gather(out[0].rho, out[0].u);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return out;
  spec.rank_dims = {0, 0, 0};
  Simulation sim(MPI_COMM_SELF, space, spec);
  sim.advance(steps);
  sim.gather(out[1].rho, out[1].u);
  return out;
}

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && !a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Largest |u| component: the comparisons also require that the flow moved (equal zeros prove nothing).
inline double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, double(std::abs(x)));
  return m;
}

}  // namespace tessera::lbm::fixtures
