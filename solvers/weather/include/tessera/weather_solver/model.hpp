// The weather model on one communicator: decomposed state, halo exchange, walls, and the time step.
//
// State per rank (domain::Field<double>, ghost width 2, layout identical to weather::Grid):
//   h, u, v          prognostic shallow-water fields (S), plus two SSP stage copies (T1, T2)
//   b                topography (exchanged once)
//   c                tracers: one component per vertical level (T1/T2 copies as well), w on interfaces
// Every cell update reads only its own and ghost values that the halo exchange copies exactly, and the
// time step is a max-reduction (exact), so fields are bit-identical for any rank count.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include <mpi.h>

#include "tessera/core/exec.hpp"
#include "tessera/domain/decomposition.hpp"
#include "tessera/domain/field.hpp"
#include "tessera/domain/halo_exchange.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_step.hpp"
#include "tessera/weather_solver/config.hpp"

namespace tessera::weather {

struct StateFields {
  domain::Field<double> h, u, v, c;  // c empty (no tracers) or levels components
};

class Model {
 public:
  Model(MPI_Comm comm, const Config& k, exec::Exec ex);
  ~Model();

  // Fill the initial state from the case (global-coordinate point functions).
  void initialise();
  // Largest stable time step from the CFL number (collective), or the fixed dt.
  double stable_dt();
  // One SSP-RK step of length dt (collective), then damping and vertical tracer advection.
  void step(double dt);

  // Sums over all ranks (collective).
  SwIntegrals integrals();
  double tracer_total();
  // Smallest depth on any rank (collective).
  double min_depth();

  const Config& config() const { return k_; }
  const domain::Decomposition& decomposition() const { return dec_; }
  const Grid& grid() const { return gr_; }
  const exec::Exec& exec() const { return ex_; }
  domain::Transport halo_transport() const { return halo_[0]->transport(); }  // after resolution
  StateFields& state() { return s_; }
  domain::Field<double>& topography() { return b_; }
  // Make ghosts of the state valid (halo exchange + walls); needed before diagnostics read neighbours.
  void refresh_ghosts();
  // Views of the state (pointers into the current buffers).
  SwConstView cview() const;
  SwView view();

  double time = 0;
  int64_t steps = 0;

 private:
  void exchange(int which);  // halo exchange + walls for state 0 (S), 1 (T1), 2 (T2)
  void finish_exchange(int which);  // second half of exchange() (after halo_[which]->start())
  StateFields& state_ref(int which) { return which == 0 ? s_ : t_[which - 1]; }

  Config k_;
  exec::Exec ex_;
  domain::Decomposition dec_;
  Grid gr_;
  StateFields s_, t_[2];
  domain::Field<double> b_, w_, scratch_, tmp_;
  std::unique_ptr<domain::HaloExchange<double>> halo_[3], halo_b_;
  CellRect inner_{};             // cells updated while the halo moves (empty: no overlap)
  std::vector<CellRect> shell_;  // the rest of the interior, updated after the halo and walls
};

// Interior of a field (all components, ghosts stripped) as a host array, component-major, x fastest.
std::vector<double> interior_to_host(const domain::Field<double>& f);
// The reverse: writes interior cells from such an array (ghosts untouched).
void interior_from_host(domain::Field<double>& f, const std::vector<double>& a);

}  // namespace tessera::weather
