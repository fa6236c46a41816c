// Spatial decomposition of an md run over MPI ranks (LAMMPS-style; docs/md.md, "Running on several
// ranks/GPUs").
//
// The box is split into a dims[0] x dims[1] x dims[2] grid of sub-boxes (the factorisation of the rank
// count with the smallest sub-box surface among those whose sub-boxes are at least the ghost cut-off
// wide). Sub-box bounds are fractions of the box, so an NPT box change moves them with the particles.
// A rank owns the particles whose wrapped position lies in its sub-box [lo, hi).
//
// At each neighbour-list rebuild, all in the particles' execution space (GPU memory on a GPU run; the
// kernels are kernels/md migrate.hpp, the host only sees message counts):
//   1. wrap positions into the box (image counts follow), then per axis x, y, z: mark the owned atoms
//      that left the sub-box, compact their indices (CUB DeviceSelect on the GPU), pack every
//      per-particle array of those bound low / high into one message each, exchange the counts (a small
//      MPI message), move the payloads over the transport, and gather the kept + received atoms into a
//      second set of arrays (swapped in: no reallocation once they are large enough);
//   2. sort the owned particles by (cell of the list grid, id) -- a radix sort of a 64-bit key on the GPU:
//      a rank's memory order is then a function of the set of particles it owns, whatever their history;
//      this is what makes a restart at the same rank count bit-identical (the checkpoint stores particles,
//      not the order they arrived in);
//   3. per axis x, y, z mark owned particles and the ghosts received so far that lie within the ghost
//      cut-off of the low / high face (so edges and corners come through), compact their indices into the
//      forward plan, pack (position shifted by the box length across a periodic boundary, type, id),
//      exchange counts, move the payloads and append them as ghosts.
// Axes with one rank carry no ghosts: the minimum image (Box::image) handles their periodicity, as on
// one rank. Between rebuilds forward() sends the ghosts' current positions along the recorded plan
// (shifts recomputed from the current box), both directions of an axis in one exchange. Forces are
// computed for owned particles only from a full neighbour list over owned + ghosts: no reverse
// communication, a fixed summation order per particle. Global sums are gathered and added in rank order,
// so every rank gets the same bits (replicated thermostat/barostat state stays identical) and a run is
// reproducible at a given rank count.
//
// Migration, ghost construction and forwarding all move their bytes through transfer()
// (ghost_exchange.cpp): one md transport for every message, over parallel.transport.
// The host path (select() on HostAtoms) remains for set-up and checkpoint restore, where every rank
// starts from all atoms on the host anyway.
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
#include "tessera/md/migrate.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::domain {
class NcclComm;
}

namespace tessera::md {

// Everything Particles holds for an owned particle, on the host (set-up and checkpoint restore).
struct HostAtoms {
  std::vector<double> x, y, z, vx, vy, vz, fx, fy, fz, pe, vir;
  std::vector<double> rx0, ry0, rz0;  // MSD references (empty unless msd)
  std::vector<double> x0, y0, z0;     // restore only: the current positions, carried along (x: the last build's)
  std::vector<int> type, ix, iy, iz;
  std::vector<int64_t> id;
  bool msd = false;
  int64_t size() const { return int64_t(x.size()); }
  void clear();
  void push(const HostAtoms& o, int64_t i);  // append row i of o
};

// Where a decomposed rebuild spends its time (host wall clock around fenced work; bench_scaling reports it).
struct DecompositionStats {
  int64_t rebuilds = 0, forwards = 0;
  double migrate_ms = 0, sort_ms = 0, ghosts_ms = 0;
  int64_t migrated = 0;  // atoms sent by this rank, all axes
};

class ParticleDecomposition {
 public:
  // Collective over comm. Refuses (naming the fix) a rank count whose sub-boxes would be narrower than
  // ghost_cut. transport: how every message moves (host | cuda_aware | nccl | auto). msd: atoms carry
  // their MSD reference positions when they migrate.
  ParticleDecomposition(MPI_Comm comm, const Box& box, double ghost_cut, const exec::Exec& ex,
                        domain::Transport transport, bool msd = false);
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
  // Wrap, keep the atoms this rank owns (set-up and restore, on the host: every rank starts from all
  // atoms). Also fixes the id width of the sort key from the largest id.
  void select(HostAtoms& a, const Box& box);
  // Wrap, then move owned atoms that left the sub-box to the neighbours, per axis (collective). p holds
  // the rank's owned atoms afterwards, no ghosts.
  void migrate(Particles& p, const Box& box);
  // Sort the owned atoms by (cell of the list grid with cells >= range wide, id). order_out (optional,
  // p.size() entries in p's space): the permutation applied, new[i] = old[order_out[i]].
  void sort(Particles& p, const Box& box, double range, Buffer<int>* order_out = nullptr);
  // Append the ghosts of the owned atoms and record the forward plan (collective).
  void build_ghosts(Particles& p, const Box& box);
  // Send the ghosts' current positions along the recorded plan (collective; every step between rebuilds).
  void forward(Particles& p, const Box& box);

  const DecompositionStats& stats() const { return stats_; }

  // Collectives with identical results on every rank: sums added in rank order.
  std::vector<double> sum(const std::vector<double>& local) const;
  bool any(bool local) const;
  int64_t total(int64_t local) const;

 private:
  struct Stage {
    int axis, dir;         // dir -1: send to the low neighbour (receive from the high one); +1 the reverse
    int dest, src;
    int shift;             // the sent positions get shift * L[axis]
    int64_t nsend = 0;     // local indices (owned + earlier ghosts) sent: d_idx_[send_off, send_off + nsend)
    int64_t send_off = 0;
    int64_t nrecv = 0, recv_first = 0;  // ghosts received land at [recv_first, recv_first + nrecv)
  };
  // One message of an exchange: ns doubles from `send` to dest, nr doubles from src into `recv` (both in
  // the particles' space); tag tells the messages of one exchange apart.
  struct Msg {
    int dest;
    const double* send;
    int64_t ns;
    int src;
    double* recv;
    int64_t nr;
    int tag;
  };
  int coord_of(double x, const Box& box, int a) const;  // owning rank coordinate along axis a
  double sub_lo(const Box& box, int a) const { return box.lo[a] + box.L[a] * double(coords_[a]) / dims_[a]; }
  double sub_hi(const Box& box, int a) const { return box.lo[a] + box.L[a] * double(coords_[a] + 1) / dims_[a]; }
  int neighbor(int a, int dir) const;  // MPI_PROC_NULL past a wall
  // ghost_exchange.cpp: the one md transport.
  void init_transport();
  // Counts first (host MPI): nr[k] = what m[k].src sends to this rank; m[k].ns set by the caller.
  void exchange_counts(Msg* m, int k);
  // Payloads of k messages over the transport (NCCL: one group on the solver's stream, no host sync).
  void transfer(const Msg* m, int k);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::array<int, 3> dims_{1, 1, 1}, coords_{0, 0, 0};
  bool periodic_[3] = {true, true, true};
  double gc_ = 0;
  bool msd_ = false;
  int id_bits_ = 63;
  exec::Exec ex_;
  domain::Transport transport_ = domain::Transport::HostStaged;
  std::shared_ptr<domain::NcclComm> nccl_;
  std::vector<Stage> stages_;
  Particles spare_;                      // the second set of arrays migration and sort gather into
  MigrateScratch scratch_;
  Buffer<unsigned char> code_;           // per-atom marks
  Buffer<int> sel_;                      // compacted indices (migration: low | high | kept)
  Buffer<int> d_idx_;                    // the forward plan: every stage's indices
  Buffer<double> d_send_, d_recv_;       // forward messages
  Buffer<double> m_send_, m_recv_;       // migration and ghost-build messages
  Buffer<double> h_send_, h_recv_;       // pinned staging (host-staged transport on a GPU run)
  DecompositionStats stats_;
};

}  // namespace tessera::md
