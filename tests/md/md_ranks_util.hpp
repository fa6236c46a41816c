// Helpers for the decomposed-run tests: an engine on a given communicator, and comparisons by atom id
// between a decomposed run (each rank holds its share) and a one-rank reference held by every rank.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "md_case_util.hpp"
#include "tessera/md/decomposition.hpp"

namespace mdranks {
using namespace mdcase;

inline int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline std::unique_ptr<Simulation> make_sim_on(exec::Space s, const Case& c, MPI_Comm comm,
                                               domain::Transport t = domain::Transport::HostStaged) {
  const CaseConfig k = read_config(c);
  const InitialSystem init = build_initial(k, k.sim.units);
  return std::make_unique<Simulation>(s, k.sim, init.box, init.particles, build_potential(s, k, int(k.mass.size())),
                                      init.bonds, build_bond_params(k), comm, t);
}

// Owned atoms of a run, positions unwrapped with the images (so they compare across wraps).
struct Snapshot {
  std::vector<int64_t> id;
  std::vector<double> x, y, z, vx, vy, vz;
};
inline Snapshot snapshot(Simulation& sim) {
  HostParticles h;
  sim.particles().download(h);
  Snapshot s;
  s.id = h.id;
  const Box& b = sim.box();
  for (std::size_t i = 0; i < h.id.size(); ++i) {
    s.x.push_back(h.x[i] + h.ix[i] * b.L[0]);
    s.y.push_back(h.y[i] + h.iy[i] * b.L[1]);
    s.z.push_back(h.z[i] + h.iz[i] * b.L[2]);
    s.vx.push_back(h.vx[i]), s.vy.push_back(h.vy[i]), s.vz.push_back(h.vz[i]);
  }
  return s;
}

struct Deviation {
  double pos = 0, vel = 0;
  int64_t atoms = 0;      // owned atoms over all ranks
  bool each_once = true;  // every id owned by exactly one rank
};
// Largest |r_N - r_1| and |v_N - v_1| over all atoms (collective over MPI_COMM_WORLD); `ref` is the one-rank
// run's full snapshot, `mine` this rank's share of the decomposed run.
inline Deviation compare(const Snapshot& ref, const Snapshot& mine, int64_t natoms) {
  std::vector<int64_t> at(std::size_t(natoms), -1);
  for (std::size_t i = 0; i < ref.id.size(); ++i) at[std::size_t(ref.id[i])] = int64_t(i);
  double dp = 0, dv = 0;
  std::vector<int> owned(std::size_t(natoms), 0);
  for (std::size_t i = 0; i < mine.id.size(); ++i) {
    const auto k = std::size_t(at[std::size_t(mine.id[i])]);
    owned[std::size_t(mine.id[i])] += 1;
    dp = std::max({dp, std::abs(mine.x[i] - ref.x[k]), std::abs(mine.y[i] - ref.y[k]), std::abs(mine.z[i] - ref.z[k])});
    dv = std::max({dv, std::abs(mine.vx[i] - ref.vx[k]), std::abs(mine.vy[i] - ref.vy[k]),
                   std::abs(mine.vz[i] - ref.vz[k])});
  }
  Deviation d;
  MPI_Allreduce(&dp, &d.pos, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&dv, &d.vel, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, owned.data(), int(owned.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int o : owned) d.each_once = d.each_once && o == 1;
  long long n = (long long)mine.id.size(), tot = 0;
  MPI_Allreduce(&n, &tot, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  d.atoms = tot;
  return d;
}

// |a - b| <= atol + rtol |b|
inline bool close(double a, double b, double rtol, double atol = 0) { return std::abs(a - b) <= atol + rtol * std::abs(b); }

}  // namespace mdranks
