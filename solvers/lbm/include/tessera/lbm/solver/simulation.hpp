// The LBM time loop on one or many ranks: partition, flags from faces and solids, initial state,
// fused stream-collide + AA halo exchange per step, and gathering of density and velocity.
#pragma once
#include <mpi.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/domain/transport.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/io/grid.hpp"
#include "tessera/lbm/boundary_links.hpp"
#include "tessera/lbm/lattice_state.hpp"
#include "tessera/lbm/solver/aa_halo.hpp"
#include "tessera/lbm/solver/partition.hpp"

namespace tessera::lbm {

// Boundary on one face of the global box: periodic (both faces of an axis), a half-way bounce-back wall
// moving with velocity u, a velocity inlet (u: uniform value or profile maximum) or a pressure outlet
// (density rho); lattice units. Open faces: kernels/include/tessera/lbm/open_boundary.hpp. Open faces on
// two different axes must not meet (their common edge would have no defined state).
struct FaceBC {
  enum Kind { Periodic, Wall, VelocityInlet, PressureOutlet } kind = Periodic;
  std::array<double, 3> u{0, 0, 0};
  bool parabolic = false;  // inlet profile: parabolic across the wall-bounded tangential axes
  int64_t ramp_steps = 0;  // inlet velocity ramped up as (1 - cos(pi step / ramp_steps)) / 2 (0: none)
  double rho = 1.0;        // outlet density (rho / rho_0)
  bool open() const { return kind == VelocityInlet || kind == PressureOutlet; }
};

// Wall ids in the cell flags (flags.hpp): the wall of box face f (x-, x+, y-, y+, z-, z+) has id
// 1 + f, solid body b has id kBodyWallId0 + b; forces are reported per id (momentum_exchange.hpp).
inline constexpr int kFaceWallId0 = 1;
inline constexpr int kBodyWallId0 = 7;
inline constexpr int kMaxBodies = kMaxWallIds - kBodyWallId0;

struct SimulationSpec {
  LatticeKind lattice = LatticeKind::D2Q9;
  Precision precision = Precision::FP32;
  CollisionParams collision;                   // walls table is filled from faces
  std::array<int64_t, 3> global{64, 64, 1};    // cells; z == 1 for D2Q9
  std::array<FaceBC, 6> faces{};               // x-, x+, y-, y+, z-, z+
  std::array<int, 3> rank_dims{0, 0, 0};       // 0: chosen by Partition::make (fewest halo cells)
  KernelPath path = KernelPath::Reference;
  // Halo transport (case key parallel.transport); every choice gives bit-identical results.
  domain::Transport transport = domain::Transport::HostStaged;
  // parallel.overlap: each step updates the boundary shell, starts the halo exchange, updates the
  // interior while the populations travel, then finishes the exchange. Bit-identical to false.
  bool overlap = true;
  // parallel.memory: managed puts the populations and flags in CUDA managed memory on a GPU run
  // (advised to stay on the GPU and prefetched there; refused when they exceed the free GPU memory).
  bool managed = false;
  // Optional: true for solid cells (global cell indices).
  std::function<bool(int64_t, int64_t, int64_t)> solid;
  // Optional: the body index (0 .. kMaxBodies-1) of a solid cell, -1 for fluid; when set it decides the
  // flags (`solid` must agree: it is what the field output shows).
  std::function<int(int64_t, int64_t, int64_t)> body;
  // Optional: interpolated bounce-back on the bodies' links (case key boundary.curved). Given a fluid cell
  // (global indices), a lattice direction c into a solid cell of body `body`, the fraction delta in (0, 1]
  // of the link in fluid (< 0: unknown, half-way). Unset: half-way bounce-back everywhere.
  std::function<double(int body, int64_t i, int64_t j, int64_t k, int cx, int cy, int cz)> link_fraction;
  // Optional: initial density and velocity at a cell centre (global cell indices); default rho 1, u 0.
  std::function<void(int64_t, int64_t, int64_t, double& rho, double u[3])> initial;
};

// The overlap split of a local box: `inner` keeps `width` cells away from each flagged side
// ([axis][low, high]); `shell` gets at most 6 disjoint slabs covering the rest (z, then y, then x).
void split_shell(const CellBox& all, const std::array<std::array<bool, 2>, 3>& sides, int64_t width, CellBox& inner,
                 std::vector<CellBox>& shell);

class Simulation {
 public:
  Simulation(MPI_Comm comm, exec::Space space, SimulationSpec spec);
  void advance(int64_t steps);
  // Density and velocity (SoA [3][N]) of the whole box on rank 0, x fastest; empty on other ranks.
  void gather(std::vector<float>& rho, std::vector<float>& u);
  // Density and velocity of this rank's owned cells (x fastest; velocity planar [3][cells]), lattice units.
  void local_moments(std::vector<float>& rho, std::vector<float>& u);
  // This rank's owned cells in global indices (io's view of the partition).
  io::LocalBox local_box() const;
  // Collective. Force and moment about the global origin on the walls of each id, summed over ranks:
  // (Fx, Fy, Fz, Mx, My, Mz) in lattice units, positions in cells (momentum exchange; after >= 1 step).
  std::vector<std::array<double, 6>> wall_forces(const std::vector<int>& wall_ids);
  bool has_open_faces() const { return spec_.collision.open.active; }

  // Checkpoints (simulation_checkpoint.cpp). Collective. The populations are stored as their raw
  // storage words (bit-exact for fp64/fp32/fp16) in GLOBAL layout, so a restart may use another rank
  // count; meta.step is set from the state. Returns the checkpoint's path.
  std::string write_checkpoint(const std::string& dir, io::CheckpointMeta meta, const io::CheckpointOptions& opt = {});
  // Loads a checkpoint written by write_checkpoint for the same spec (lattice, precision, grid, flags;
  // any rank count). Throws tessera::Error naming the file and what differs.
  void restore(const io::CheckpointReader& r);

  int64_t step() const { return state_->step; }
  const SimulationSpec& spec() const { return spec_; }
  const Partition& partition() const { return part_; }
  LatticeState& state() { return *state_; }
  domain::Transport halo_transport() const { return halo_->transport(); }  // after resolution

 private:
  SimulationSpec spec_;
  exec::Exec ex_;
  Partition part_;
  std::unique_ptr<LatticeState> state_;
  std::unique_ptr<AAHalo> halo_;
  // Overlap: the cells more than one cell away from every exchanging side, and the shell around them
  // (disjoint boxes; together the whole local box).
  CellBox interior_;
  std::vector<CellBox> shell_;
  // Interpolated bounce-back links of this rank (boundary_links.hpp), in the state's memory.
  Buffer<BoundaryLink> links_;
  Buffer<double> fstar_;  // per link f*_q(x_f) of the last step, for the forces
  void finish_links();    // the links' pass after a step (no-op without links)
  // Steps taken in fused pairs (stream_collide_pairs): the tuned path on a rank that exchanges with no other
  // rank (a closed box, or periodic axes that it spans alone: fused_periodic_, the reverse exchange after
  // each pair) and has no interpolated links (decided at construction), as fused_steps_mode() says: Off /
  // On, or with auto
  // Pending until advance() has timed both forms on the run's own steps (fused_trial), then AutoOn / AutoOff.
  enum class Fused { No, Off, On, Pending, AutoOn, AutoOff };
  Fused fused_ = Fused::No;
  double trial_ms_[2] = {0.0, 0.0};  // auto: ms per step pair fused, and as two single steps
  int64_t trial_unit_ = 0;           // auto: step pairs of the trial run so far
  unsigned fused_periodic_ = 0;      // the periodic axes this rank exchanges with itself (bits x, y, z)
  void single_step();                // one step with its exchange and links (advance's loop body)
  void fused_pairs(int64_t n);       // n fused step pairs (and the reverse exchanges of fused_periodic_)
  int64_t fused_trial(int64_t pairs);  // auto: up to `pairs` pairs of the trial; sets fused_ at its end

 public:
  // The auto trial (see fused_trial): 2 + 2 kTrialPairs step pairs, over one or several advance() calls.
  static constexpr int64_t kTrialPairs = 4;
  static constexpr int64_t kTrialSteps = 4 * (1 + kTrialPairs);
  // This rank's interpolated links (0 when spec.link_fraction is unset or no link needs it).
  int64_t interpolated_links() const { return int64_t(links_.size()); }
  // Whether advance() now takes its steps in fused pairs (see fused_).
  bool fused_steps() const { return fused_ == Fused::On || fused_ == Fused::AutoOn; }
  // Whether the choice is still open (TESSERA_LBM_FUSED=auto, no trial run yet).
  bool fused_pending() const { return fused_ == Fused::Pending; }
  // The choice in words, for the log and the run manifest: "not applicable", "off", "on", "auto: pending",
  // "auto: fused pairs (1.617 ms per step pair fused against 1.896 as two single steps)" or "auto: single
  // steps (...)": the trial's ms per step pair.
  std::string fused_choice() const;
};

}  // namespace tessera::lbm
