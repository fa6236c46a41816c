// Spatial decomposition of an md run over MPI ranks (LAMMPS-style; docs/md.md, "Running on several
// ranks/GPUs").
//
// The box is split into a dims[0] x dims[1] x dims[2] grid of sub-boxes (the factorisation of the rank
// count with the smallest sub-box surface among those whose sub-boxes are at least the ghost cut-off
// wide). Sub-box bounds are fractions of the box, so an NPT box change moves them with the particles.
// A rank owns the particles whose wrapped position lies in its sub-box [lo, hi).
//
// At each neighbour-list rebuild (on the host: download, exchange, upload):
//   1. wrap positions into the box (image counts follow), then per axis x, y, z send the owned particles
//      that left the sub-box to the low / high neighbour, every per-particle array with them;
//   2. sort the owned particles by (cell of the list grid, id): a rank's memory order is then a function
//      of the set of particles it owns, whatever their history -- this is what makes a restart at the same
//      rank count bit-identical (the checkpoint stores particles, not the order they arrived in);
//   3. per axis x, y, z send owned particles and the ghosts received so far that lie within the ghost
//      cut-off of the low / high face (so edges and corners come through), shifted by the box length
//      across a periodic boundary. The send lists are recorded.
// Axes with one rank carry no ghosts: the minimum image (Box::image) handles their periodicity, as on
// one rank. Between rebuilds forward() sends the ghosts' current positions along the recorded lists
// (shifts recomputed from the current box). Forces are computed for owned particles only from a full
// neighbour list over owned + ghosts: no reverse communication, a fixed summation order per particle.
// Global sums are gathered and added in rank order, so every rank gets the same bits (replicated
// thermostat/barostat state stays identical) and a run is reproducible at a given rank count.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/domain/transport.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::domain {
class NcclComm;
}

namespace tessera::md {

// Everything Particles holds for an owned particle, on the host (migration and checkpoints move it).
struct HostAtoms {
  std::vector<double> x, y, z, vx, vy, vz, fx, fy, fz, pe, vir;
  std::vector<double> rx0, ry0, rz0;  // MSD references (empty unless msd)
  std::vector<double> x0, y0, z0;     // restore only: positions at the last list build
  std::vector<int> type, ix, iy, iz;
  std::vector<int64_t> id;
  bool msd = false;
  int64_t size() const { return int64_t(x.size()); }
  void clear();
  void push(const HostAtoms& o, int64_t i);  // append row i of o
};
// Ghost copies: shifted positions, type and id.
struct HostGhosts {
  std::vector<double> x, y, z;
  std::vector<int> type;
  std::vector<int64_t> id;
  int64_t size() const { return int64_t(x.size()); }
};

class ParticleDecomposition {
 public:
  // Collective over comm. Refuses (naming the fix) a rank count whose sub-boxes would be narrower than
  // ghost_cut. transport: how forward() moves ghost positions (host | cuda_aware | nccl | auto).
  ParticleDecomposition(MPI_Comm comm, const Box& box, double ghost_cut, const exec::Exec& ex,
                        domain::Transport transport);
  ~ParticleDecomposition();
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::array<int, 3>& dims() const { return dims_; }
  double ghost_cut() const { return gc_; }
  domain::Transport transport() const { return transport_; }

  // The box the neighbour list and the pair forces use: along split axes the sub-box widened by the
  // ghost cut-off and not periodic (ghosts are already placed at the right image); elsewhere the box.
  Box list_box(const Box& box) const;
  // Wrap, keep the atoms this rank owns (setup and restore: every rank starts from all atoms).
  void select(HostAtoms& a, const Box& box) const;
  // Wrap, then move atoms that left the sub-box to the neighbours (collective).
  void migrate(HostAtoms& a, const Box& box);
  // Sort by (cell of the list grid with cells >= range wide, id).
  void sort(HostAtoms& a, const Box& box, double range) const;
  // Build the ghosts of the owned atoms and record the send lists (collective).
  void build_ghosts(const HostAtoms& a, const Box& box, HostGhosts& g);
  // Upload the send lists to the particles' space (after Particles holds owned + ghosts).
  void upload_plan();
  // Send the ghosts' current positions along the recorded lists (collective; every step between rebuilds).
  void forward(Particles& p, const Box& box);

  // Collectives with identical results on every rank: sums added in rank order.
  std::vector<double> sum(const std::vector<double>& local) const;
  bool any(bool local) const;
  int64_t total(int64_t local) const;

 private:
  struct Stage {
    int axis, dir;         // dir -1: send to the low neighbour (receive from the high one); +1 the reverse
    int dest, src;
    int shift;             // the sent positions get shift * L[axis]
    std::vector<int> idx;  // local indices (owned + earlier ghosts) sent
    int64_t send_off = 0;  // into the packed index / send buffer
    int64_t nrecv = 0, recv_first = 0;  // ghosts received land at [recv_first, recv_first + nrecv)
  };
  int coord_of(double x, const Box& box, int a) const;  // owning rank coordinate along axis a
  double sub_lo(const Box& box, int a) const { return box.lo[a] + box.L[a] * double(coords_[a]) / dims_[a]; }
  double sub_hi(const Box& box, int a) const { return box.lo[a] + box.L[a] * double(coords_[a] + 1) / dims_[a]; }
  int neighbor(int a, int dir) const;  // MPI_PROC_NULL past a wall
  void init_transport();                // ghost_exchange.cpp
  void exchange(Stage& s, const double* send, double* recv);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::array<int, 3> dims_{1, 1, 1}, coords_{0, 0, 0};
  bool periodic_[3] = {true, true, true};
  double gc_ = 0;
  exec::Exec ex_;
  domain::Transport transport_ = domain::Transport::HostStaged;
  std::shared_ptr<domain::NcclComm> nccl_;
  std::vector<Stage> stages_;
  Buffer<int> d_idx_;
  Buffer<double> d_send_, d_recv_, h_send_, h_recv_;
};

}  // namespace tessera::md
