// The MD engine of one rank: particles, neighbour list, potentials and integrator state, all resident
// in one execution space. A step launches only kernels and the reductions the integrator needs (the
// rebuild test; the kinetic energy for Nose-Hoover); positions never travel to the host during a run.
//
//   Simulation sim(space, cfg, box, particles, std::move(pot), bonds, bond_params);
//   sim.setup();                        // first list build and forces (with energies)
//   for (...) sim.step(thermo_due);     // energies only on steps whose thermo is printed
//   Thermo t = sim.thermo();
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/exec.hpp"
#include "tessera/domain/transport.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/md/barostat.hpp"
#include "tessera/md/bond_list.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/forces.hpp"
#include "tessera/md/integrate.hpp"
#include "tessera/md/neighbor.hpp"
#include "tessera/md/nose_hoover.hpp"
#include "tessera/md/particles.hpp"
#include "tessera/md/potential.hpp"
#include "tessera/md/step_graph.hpp"
#include "tessera/md/units.hpp"
#include "tessera/md/walls.hpp"

namespace tessera::md {

class ParticleDecomposition;
struct HostAtoms;

enum class Integrator { nve, langevin, nose_hoover, npt };
Integrator parse_integrator(const std::string& s);
const char* to_string(Integrator i);

struct SimConfig {
  double dt = 0.005;
  double skin = 0.3;
  Precision precision = Precision::dbl;
  Units units;
  Integrator integrator = Integrator::nve;
  double temperature = 1.0;  // thermostat target (temperature units)
  double gamma = 1.0;        // Langevin friction (1/time)
  double tau = 0.5;          // Nose-Hoover period (time)
  int chain = 3;             // Nose-Hoover chain length
  double pressure = 1.0;     // npt: target pressure (pressure units)
  double tau_p = 2.5;        // npt: barostat period (time)
  int chain_p = 3;           // npt: chain length of the barostat's thermostat
  uint64_t seed = 1;         // Langevin random stream
  int sort_every = 20;       // spatially re-sort particles every this many list builds (0: never)
  bool tail = false;         // analytic LJ tail corrections in energy and pressure
  int neighbor_capacity = 64;
  bool msd = false;          // keep unwrapped reference positions for the mean-square displacement
  WallParam walls;           // 9-3 walls on the axes where the box is not periodic (walls.hpp)
  // GPU speed paths (case keys run.cuda_graph, run.pair_kernel, run.threads_per_atom, neighbor.cell_reach;
  // no effect on the physics): a one-rank NVE or Langevin run on the device records its step as a CUDA
  // graph with the rebuild decided on the device (step_graph.hpp) and sorts the particles into cell order
  // at every build when there are no bonds; the tuned pair kernel and its lanes per particle. These
  // struct defaults are the host-driven step and the portable kernel; the md application's case defaults
  // (run.cuda_graph: true, run.pair_kernel: auto, neighbor.cell_reach: 0) select the GPU paths.
  bool cuda_graph = false;
  PairKernel pair_kernel = PairKernel::portable;
  int threads_per_atom = 0;  // 0: default_threads_per_atom(n)
  int cell_reach = 1;        // neighbour cells >= (rc + skin) / cell_reach wide (NeighborList::set_cell_reach);
                             // 0: 2 on one GPU where a half-width cell holds >= 2 particles, else 1
};

struct Thermo {
  int64_t step = 0;
  double time = 0;
  double temperature = 0;  // 2 KE / (Nf kB)
  double ke = 0, pe = 0, etotal = 0;  // per atom, energy units (pe includes the tail correction)
  double pressure = 0;     // pressure units (includes the tail correction)
  double conserved = 0;    // per atom: NVE: etotal; NHC: etotal + chain energy; Langevin: etotal;
                           // NPT: etotal + chains + (P_ext V + W v_eps^2 / 2) / N
  double volume = 0;
  double momentum[3] = {0, 0, 0};
};

class Simulation {
 public:
  // Every rank passes the whole initial system. With more than one rank in `comm` the box is decomposed
  // (decomposition.hpp) and this object holds the rank's share; with one rank the engine is exactly the
  // single-rank one. `transport` carries ghost positions between ranks (parallel.transport).
  Simulation(exec::Space space, const SimConfig& cfg, const Box& box, const HostParticles& init, PairPotential pot,
             const std::vector<Bond>& bonds = {}, const std::vector<BondParam>& bond_params = {},
             MPI_Comm comm = MPI_COMM_SELF, domain::Transport transport = domain::Transport::HostStaged);
  ~Simulation();
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  void setup();
  void step(bool energies = false);
  // Thermodynamics at the current step; needs the last force call with energies (setup() or step(true)).
  Thermo thermo();

  int64_t natoms() const { return natoms_; }  // all ranks together
  // The decomposition, or nullptr on one rank.
  const ParticleDecomposition* decomposition() const { return dd_.get(); }
  int64_t step_count() const { return step_; }
  double time() const { return time_; }
  double dof() const { return nf_; }
  const Box& box() const { return box_; }
  const SimConfig& config() const { return cfg_; }
  Particles& particles() { return particles_; }  // this rank's (owned first, then ghosts)
  const NeighborList& neighbors() const { return nl_; }
  // Neighbour-list builds so far, the device-resident ones of the CUDA-graph step included (synchronises).
  int64_t list_builds();
  // Whether step() runs as a CUDA graph in this configuration (SimConfig::cuda_graph).
  bool graph_step() const;
  // Rebuilds the neighbour list now, as a step would (device-resident in a CUDA-graph run): for timing the
  // rebuild on its own (bench_md). The physics does not change (the list stays a valid superset).
  void rebuild_list();
  // Recomputes the forces at the current positions (the same values again): for timing them on their own.
  void recompute_forces(bool energies);
  const PairPotential& potential() const { return pot_; }
  NoseHooverChain& nose_hoover() { return nhc_; }
  MtkBarostat& barostat() { return baro_; }
  exec::Exec exec() const { return ex_; }
  // Restore the clock after loading a checkpoint.
  void set_clock(int64_t step, double time) { step_ = step, time_ = time; }
  // Mean-square displacement per axis since step 0 (needs cfg.msd; see msd.hpp).
  std::array<double, 3> msd();

  // Checkpoint (simulation_checkpoint.cpp): everything a bit-identical continuation needs -- particles
  // in memory order with forces, images and ids; the neighbour list's reference positions; the re-sort
  // counter; the Nose-Hoover chain; the MSD references; step and time (Langevin noise is keyed by
  // seed, id and step, so the step is its whole state). Collective over comm; returns the file path.
  std::string write_checkpoint(MPI_Comm comm, const std::string& dir, io::CheckpointMeta meta,
                               const io::CheckpointOptions& opt = {});
  // Replaces the state by a checkpoint's (after construction, instead of setup()).
  void restore(const io::CheckpointReader& r);
  // Tail corrections at the current volume (E_tail ~ 1/V, P_tail ~ 1/V^2 at fixed N; internal units).
  double tail_energy() const { return e_tail_ * v0_ / box_.volume(); }
  double tail_pressure() const { const double r = v0_ / box_.volume(); return p_tail_ * r * r; }

 private:
  void compute_forces(bool energies);
  void compute_forces_on(const exec::Exec& ex, bool energies);
  void step_graphed(bool energies);
  void record_graph(int variant);
  void step_npt();
  void maybe_rebuild();
  void rebuild();
  // Decomposed runs (simulation_decomposed.cpp): global sums in rank order, the redistribution at a
  // rebuild, and set-up/restore from host atoms.
  ThermoSums sums(bool energies);
  double kinetic();
  void distribute(const Box& box, Buffer<int>* order_out = nullptr);
  void upload_owned(const HostAtoms& a);
  void download_owned(HostAtoms& a);
  void restore_decomposed(const io::CheckpointReader& r);
  void restore_particles(const io::CheckpointReader& r, const Box& list_box);  // one rank
  void restore_state(const io::CheckpointReader& r, const std::vector<int64_t>& state);
  Box force_box() const;

  exec::Exec ex_;
  SimConfig cfg_;
  Box box_;
  Particles particles_;
  PairPotential pot_;
  BondList bonds_;
  NeighborList nl_;
  NoseHooverChain nhc_;
  int64_t step_ = 0;
  double time_ = 0;
  double nf_ = 0;
  double e_tail_ = 0, p_tail_ = 0, v0_ = 1;  // tail corrections at the initial volume v0_
  MtkBarostat baro_;
  Box list_box_;  // the box of the last neighbour-list build (NPT: it changes every step)
  bool have_energies_ = false;
  int64_t builds_since_sort_ = 0;
  int64_t natoms_ = 0;
  std::unique_ptr<ParticleDecomposition> dd_;
  std::vector<Bond> all_bonds_;  // decomposed runs: every rank's bond list is rebuilt from these at a rebuild
  // CUDA-graph step (single rank, device): the graphs, the addresses they were recorded with (a change
  // re-records them) and the step the device counter holds.
  std::unique_ptr<StepGraphs> graphs_;
  std::array<uint64_t, 12> graph_sig_{};
  int64_t graph_step_ = -1;
};

}  // namespace tessera::md
