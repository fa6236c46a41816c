// The MD engine of one rank (see simulation.hpp).
#include "tessera/md/simulation.hpp"

#include <cmath>
#include <cstring>

#include "tessera/core/error.hpp"
#include "tessera/md/decomposition.hpp"
#include "tessera/md/msd.hpp"

namespace tessera::md {

Integrator parse_integrator(const std::string& s) {
  if (s == "nve") return Integrator::nve;
  if (s == "langevin") return Integrator::langevin;
  if (s == "nose_hoover" || s == "nvt") return Integrator::nose_hoover;
  if (s == "npt") return Integrator::npt;
  TESSERA_THROW("unknown integrator '" + s + "': expected nve, langevin, nose_hoover or npt");
}

const char* to_string(Integrator i) {
  switch (i) {
    case Integrator::nve: return "nve";
    case Integrator::langevin: return "langevin";
    case Integrator::nose_hoover: return "nose_hoover";
    case Integrator::npt: return "npt";
  }
  return "?";
}

namespace {
std::vector<double> inv_mass_eff(const HostParticles& h, const Units& u) {
  std::vector<double> m(h.mass.size());
  for (std::size_t t = 0; t < m.size(); ++t) m[t] = h.mass[t] / u.ftm2v;  // Particles stores ftm2v / m
  return m;
}
}  // namespace

Simulation::Simulation(exec::Space space, const SimConfig& cfg, const Box& box, const HostParticles& init,
                       PairPotential pot, const std::vector<Bond>& bonds, const std::vector<BondParam>& bond_params,
                       MPI_Comm comm, domain::Transport transport)
    : ex_(space),
      cfg_(cfg),
      box_(box),
      particles_(space, init.size(), inv_mass_eff(init, cfg.units)),
      pot_(std::move(pot)),
      bonds_(space, bonds, bond_params, init),
      nl_(space, pot_.rc_max(), cfg.skin, cfg.neighbor_capacity) {
  TESSERA_REQUIRE(cfg.dt > 0, "time step must be positive");
  TESSERA_REQUIRE(pot_.ntypes() == int(init.mass.size()), "potential and particles disagree on the number of types");
  for (int a = 0; a < 3; ++a)
    if (cfg.walls.on[a] == box.periodic[a])
      TESSERA_THROW(std::string("axis ") + "xyz"[a] + ": walls need a non-periodic box axis and a non-periodic axis needs walls");
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  if (cfg_.cell_reach == 0) {
    // Half-width cells pay off where each holds a few particles: measured on one H200 (graph step, mixed),
    // LJ at rho 0.8442 / 1.0 with rc + skin 2.8 / 2.9 (2.3 / 3.0 particles per half-width cell) gained
    // 2.7 / 3.7 %, the Kremer-Grest melt (rc + skin 1.52, 0.37 per cell) lost 14 %. The host and
    // decomposed runs keep whole cells.
    const double half = 0.5 * (pot_.rc_max() + cfg.skin);
    const double per_cell = double(init.size()) / (box.L[0] * box.L[1] * box.L[2]) * half * half * half;
    cfg_.cell_reach = ex_.on_device() && nranks == 1 && per_cell >= 2 ? 2 : 1;
  }
  nl_.set_cell_reach(cfg_.cell_reach);
  particles_.upload(init);
  if (cfg.msd) set_msd_reference(ex_, particles_, box_);
  const int64_t n = init.size();
  natoms_ = n;
  if (nranks > 1) {
    // Ghosts reach out to the pair range and to the longest bond a FENE spring allows (its R0).
    double gc = pot_.rc_max() + cfg.skin;
    for (const BondParam& bp : bond_params)
      if (bp.style == int(BondStyle::fene)) gc = std::max(gc, bp.r0);
    dd_ = std::make_unique<ParticleDecomposition>(comm, box_, gc, ex_, transport, cfg.msd);
    all_bonds_ = bonds;
    HostAtoms a;
    download_owned(a);  // all atoms, with the MSD references set above
    dd_->select(a, box_);
    upload_owned(a);
    distribute(box_);
  }
  // Momentum is conserved by NVE and Nose-Hoover along every periodic axis (walls take it up along
  // theirs), not by Langevin.
  const int conserved = int(box.periodic[0]) + int(box.periodic[1]) + int(box.periodic[2]);
  nf_ = cfg.integrator == Integrator::langevin ? 3.0 * double(n) : std::max(3.0 * double(n) - conserved, 1.0);
  if (cfg.integrator == Integrator::nose_hoover || cfg.integrator == Integrator::npt)
    nhc_ = NoseHooverChain(cfg.chain, cfg.units.kB * cfg.temperature, cfg.tau, nf_);
  if (cfg.integrator == Integrator::npt) {
    if (cfg.walls.any()) TESSERA_THROW("run.integrator: npt needs a periodic box on every axis (no walls)");
    baro_ = MtkBarostat(cfg.units.kB * cfg.temperature, cfg.pressure / cfg.units.nktv2p, cfg.tau_p, cfg.chain_p, nf_);
  }
  v0_ = box_.volume();
  if (cfg.tail) {
    std::vector<int64_t> counts(std::size_t(pot_.ntypes()), 0);
    for (int t : init.type) ++counts[std::size_t(t)];
    e_tail_ = pot_.tail_energy(counts, box_.volume());
    p_tail_ = pot_.tail_pressure(counts, box_.volume());
  }
}

Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

void Simulation::rebuild() {
  list_box_ = box_;
  if (dd_) {  // migration, sort and ghosts stay in the particles' space (decomposition.hpp)
    dd_->migrate(particles_, box_);
    distribute(box_);
    nl_.build(ex_, particles_, dd_->list_box(box_));
    return;
  }
  nl_.build(ex_, particles_, box_);  // (may reallocate: graphs check their recorded addresses)
  if (cfg_.sort_every > 0 && ++builds_since_sort_ >= cfg_.sort_every) {
    // Re-sort particles in cell order so that neighbours are close in memory, then rebuild on the
    // new order (the sort just computed is reused as the permutation).
    builds_since_sort_ = 0;
    Buffer<int> order(std::size_t(particles_.size()), default_memkind(ex_.space), "md::order");
    copy_n(order.data(), order.kind(), nl_.cell_order(), order.kind(), order.size());
    particles_.permute(ex_, order.data());
    bonds_.permute(ex_, order.data(), particles_.id.data(), particles_.size());
    nl_.build(ex_, particles_, box_);
  }
  // A CUDA-graph run builds every list the way its graph does (float fill, neighbor.hpp), so that a list
  // never depends on whether the host or the graph made it (restarts stay bit-identical).
  if (graph_step()) nl_.build_async(ex_, particles_, box_, cfg_.sort_every > 0 && bonds_.empty(), false);
}

void Simulation::maybe_rebuild() {
  if (!dd_) {
    if (nl_.needs_rebuild(ex_, particles_, box_)) rebuild();
    return;
  }
  // The criterion is global: one rank's particle past skin/2 rebuilds every rank's list. The ghosts are
  // forwarded first, unconditionally (every rank does, so the messages match): with NCCL the forward is
  // then already on the stream while the host waits for the rebuild test and the MPI_Allreduce; a
  // rebuild replaces the forwarded ghosts anyway.
  dd_->forward(particles_, box_);
  if (dd_->any(nl_.needs_rebuild(ex_, particles_, box_))) rebuild();
}

void Simulation::compute_forces(bool energies) { compute_forces_on(ex_, energies); }

void Simulation::compute_forces_on(const exec::Exec& ex, bool energies) {
  compute_pair_forces(ex, particles_, force_box(), nl_, pot_, cfg_.precision, energies, cfg_.pair_kernel,
                      cfg_.threads_per_atom);
  add_bond_forces(ex, particles_, box_, bonds_, cfg_.precision, energies);
  add_wall_forces(ex, particles_, box_, cfg_.walls, energies);
  have_energies_ = energies;
}

bool Simulation::graph_step() const {
  return cfg_.cuda_graph && ex_.on_device() && !dd_ && particles_.size() > 0 &&
         (cfg_.integrator == Integrator::nve || cfg_.integrator == Integrator::langevin) && StepGraphs::supported();
}

void Simulation::rebuild_list() {
  if (graphs_ && graph_step()) nl_.build_async(graphs_->exec(), particles_, box_, cfg_.sort_every > 0 && bonds_.empty());
  else rebuild();
}

void Simulation::recompute_forces(bool energies) {
  if (graphs_ && graph_step()) compute_forces_on(graphs_->exec(), energies);
  else compute_forces(energies);
}

int64_t Simulation::list_builds() {
  if (graphs_) exec::fence(graphs_->exec());  // the device counts its builds (NeighborList::stats)
  return nl_.stats().builds;
}

// Records the step of variant v (0: without, 1: with energies): the integrator's first half, the rebuild
// test, the device-resident rebuild under its condition, forces and the second half (see step()).
void Simulation::record_graph(int v) {
  particles_.reserve_permute_scratch();
  nl_.expect_device_builds();
  const bool reorder = cfg_.sort_every > 0 && bonds_.empty();
  const double dt = cfg_.dt, kT = cfg_.units.kB * cfg_.temperature;
  auto pre = [this, dt, kT](const exec::Exec& e) {
    if (cfg_.integrator == Integrator::nve) kick_drift(e, particles_, dt);
    else langevin_baoa(e, particles_, dt, cfg_.gamma, kT, cfg_.seed, graphs_->device_step());
  };
  const DisplacementCheck check{particles_.x.data(),      particles_.y.data(),      particles_.z.data(),
                                nl_.reference_x().data(), nl_.reference_y().data(), nl_.reference_z().data(),
                                box_,                     particles_.size(),        0.25 * cfg_.skin * cfg_.skin};
  auto rebuild = [this, reorder](const exec::Exec& e) { nl_.build_async(e, particles_, box_, reorder); };
  auto post = [this, dt, v](const exec::Exec& e) {
    compute_forces_on(e, v == 1);
    kick(e, particles_, dt);
  };
  graphs_->record(v, pre, check, rebuild, post);
}

// One step as a CUDA graph: no host round trip. The host only looks (without synchronising) at the largest
// neighbour count the device-resident builds have seen: past the capacity, the force kernel has been
// computing those particles from the cells (correct, slower), and the list is regrown here by a host build.
void Simulation::step_graphed(bool energies) {
  if (!graphs_) graphs_ = std::make_unique<StepGraphs>();
  if (nl_.max_count_seen() > nl_.view().capacity) {
    exec::fence(graphs_->exec());
    rebuild();  // build() regrows the capacity to the largest count with head-room
  }
  const NeighborView nv = nl_.view();
  auto bits = [](const void* q) { return uint64_t(reinterpret_cast<uintptr_t>(q)); };
  std::array<uint64_t, 12> sig{bits(particles_.x.data()), bits(particles_.vx.data()), bits(particles_.type.data()),
                               bits(particles_.id.data()), bits(nv.neigh), bits(nv.count), bits(nl_.reference_x().data()),
                               uint64_t(nv.capacity), uint64_t(particles_.size())};
  for (int a = 0; a < 3; ++a) std::memcpy(&sig[std::size_t(9 + a)], &box_.L[a], sizeof(double));
  if (sig != graph_sig_) {
    graphs_->clear();
    graph_sig_ = sig;
  }
  const int v = energies ? 1 : 0;
  if (!graphs_->recorded(v)) record_graph(v);
  if (graph_step_ != step_) graphs_->set_step(uint64_t(step_));
  graphs_->launch(v);
  have_energies_ = energies;
  ++step_;
  graph_step_ = step_;
  time_ += cfg_.dt;
}

void Simulation::setup() {
  rebuild();
  compute_forces(true);
}

void Simulation::step(bool energies) {
  if (cfg_.integrator == Integrator::npt) return step_npt();
  if (graph_step()) return step_graphed(energies);
  const double dt = cfg_.dt;
  const double kT = cfg_.units.kB * cfg_.temperature;
  switch (cfg_.integrator) {
    case Integrator::nve:
      kick_drift(ex_, particles_, dt);
      break;
    case Integrator::langevin:
      // Keyed by the step being taken, so a restart at step s continues the same random sequence.
      langevin_baoa(ex_, particles_, dt, cfg_.gamma, kT, cfg_.seed, uint64_t(step_));
      break;
    case Integrator::npt:  // handled by step_npt()
    case Integrator::nose_hoover: {
      const double s = nhc_.half_step(2 * kinetic(), dt);
      scale_velocities(ex_, particles_, s);
      kick_drift(ex_, particles_, dt);
      break;
    }
  }
  maybe_rebuild();
  compute_forces(energies);
  kick(ex_, particles_, dt);
  if (cfg_.integrator == Integrator::nose_hoover) {
    const double s = nhc_.half_step(2 * kinetic(), dt);
    scale_velocities(ex_, particles_, s);
  }
  ++step_;
  time_ += dt;
}

std::array<double, 3> Simulation::msd() {
  TESSERA_REQUIRE(cfg_.msd, "msd() needs SimConfig::msd (case key output.msd_every > 0)");
  if (!dd_) return msd_components(ex_, particles_, box_);
  const auto m = msd_components(ex_, particles_, box_);  // per-rank means: weight by the rank's atoms
  const double n = double(particles_.size());
  const auto s = dd_->sum({m[0] * n, m[1] * n, m[2] * n});
  const double nt = double(natoms_);
  return {s[0] / nt, s[1] / nt, s[2] / nt};
}

Thermo Simulation::thermo() {
  TESSERA_REQUIRE(have_energies_, "thermo() needs energies from the last force evaluation: call step(true)");
  const ThermoSums s = sums(true);
  const double n = double(natoms_);
  Thermo t;
  t.step = step_;
  t.time = time_;
  t.temperature = 2 * s.ke / (nf_ * cfg_.units.kB);
  t.ke = s.ke / n;
  t.pe = (s.pe + tail_energy()) / n;
  t.etotal = t.ke + t.pe;
  t.pressure = ((2 * s.ke + s.virial) / (3 * box_.volume()) + tail_pressure()) * cfg_.units.nktv2p;
  t.volume = box_.volume();
  t.conserved = t.etotal + nhc_.energy() / n;  // a default chain (NVE, Langevin) has no energy
  if (cfg_.integrator == Integrator::npt) t.conserved += baro_.energy(box_.volume()) / n;
  for (int a = 0; a < 3; ++a) t.momentum[a] = s.p[a];
  if (!std::isfinite(t.pe))
    TESSERA_THROW("md: potential energy is not finite at step " + std::to_string(step_) +
                  " (a FENE bond stretched beyond R0, or overlapping atoms): lower the time step or relax the start");
  return t;
}

}  // namespace tessera::md

namespace tessera::md {

// One MTK step (barostat.hpp: Tuckerman et al. 2006 eq. 2.26). Forces carry energies and virials on every
// step: the barostat's force G_eps needs the virial at both half kicks.
void Simulation::step_npt() {
  const double dt = cfg_.dt;
  auto half = [&](bool first) {
    if (first) {
      baro_.thermostat_half_step(dt);
      scale_velocities(ex_, particles_, nhc_.half_step(2 * kinetic(), dt));
    }
    const ThermoSums s = sums(true);
    baro_.half_kick(2 * s.ke, s.virial, box_.volume(), tail_pressure(), dt);
    if (!first) {
      scale_velocities(ex_, particles_, nhc_.half_step(2 * kinetic(), dt));
      baro_.thermostat_half_step(dt);
    }
  };
  auto kick_v = [&] {
    const double x = baro_.alpha() * baro_.v_eps() * dt;
    kick_scaled(ex_, particles_, dt, std::exp(-0.5 * x), std::exp(-0.25 * x) * sinhc(0.25 * x));
  };
  TESSERA_REQUIRE(have_energies_, "npt: the previous force call must carry virials (setup() or a step)");
  half(true);
  kick_v();
  const double ve = baro_.v_eps() * dt;
  drift_scaled(ex_, particles_, dt, box_.lo, std::exp(ve), std::exp(0.5 * ve) * sinhc(0.5 * ve));
  for (double& L : box_.L) L *= std::exp(ve);
  maybe_rebuild();
  compute_forces(true);
  // kick_v before the second G_eps half kick: the same factors (v_eps is unchanged in between).
  kick_v();
  half(false);
  ++step_;
  time_ += dt;
}

}  // namespace tessera::md
