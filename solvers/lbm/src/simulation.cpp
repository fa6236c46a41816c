#include "tessera/lbm/solver/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"
#include "tessera/core/stream.hpp"
#include "tessera/domain/field_memory.hpp"

namespace tessera::lbm {

namespace {
int64_t wrap(int64_t i, int64_t n) { return ((i % n) + n) % n; }
}  // namespace

Simulation::Simulation(MPI_Comm comm, exec::Space space, SimulationSpec spec) : spec_(std::move(spec)), ex_(space) {
  const bool is2d = lattice_dim(spec_.lattice) == 2;
  if (is2d) {
    TESSERA_REQUIRE(spec_.global[2] == 1, "a D2Q9 lattice has one cell along z");
    spec_.faces[4].kind = spec_.faces[5].kind = FaceBC::Wall;  // never used: no z ghosts in 2-D
  }
  std::array<bool, 3> periodic{};
  for (int a = 0; a < 3; ++a) {
    const bool lo = spec_.faces[size_t(2 * a)].kind == FaceBC::Periodic;
    const bool hi = spec_.faces[size_t(2 * a + 1)].kind == FaceBC::Periodic;
    TESSERA_REQUIRE(lo == hi, "a periodic axis needs both faces periodic");
    periodic[size_t(a)] = lo && !(is2d && a == 2);
  }
  // Wall ids: 1 + face for the box faces (moving or not), kBodyWallId0 + b for bodies (at rest).
  spec_.collision.walls = WallTable{};
  for (int f = 0; f < 6; ++f)
    if (spec_.faces[size_t(f)].kind == FaceBC::Wall)
      for (int a = 0; a < 3; ++a)
        spec_.collision.walls.u[kFaceWallId0 + f][a] = float(spec_.faces[size_t(f)].u[size_t(a)]);

  part_ = Partition::make(comm, spec_.global, periodic, spec_.rank_dims);
  OpenTable& open = spec_.collision.open;
  open = OpenTable{};
  for (int f = 0; f < 6; ++f) {
    const FaceBC& b = spec_.faces[size_t(f)];
    if (!b.open()) continue;
    const int ax = f / 2;
    TESSERA_REQUIRE(!(is2d && ax == 2), "a 2-D lattice has no open z faces");
    TESSERA_REQUIRE(spec_.global[size_t(ax)] >= 2, "an axis with an open face needs at least 2 cells");
    for (int g2 = 0; g2 < 6; ++g2)
      TESSERA_REQUIRE(g2 / 2 == ax || !spec_.faces[size_t(g2)].open(),
                      "open faces (velocity inlet / pressure outlet) on two different axes meet at an edge: make "
                      "one of them a wall or periodic");
    OpenFace& o = open.face[f];
    o.type = int8_t(b.kind == FaceBC::VelocityInlet ? 1 : 2);
    o.normal[ax] = int8_t(f % 2 == 0 ? 1 : -1);
    for (int a = 0; a < 3; ++a) {
      o.u[a] = float(b.u[size_t(a)]);
      o.parabolic[a] = int8_t(b.parabolic && a != ax && !periodic[size_t(a)] && !(is2d && a == 2));
    }
    o.rho = float(b.rho);
    open.active = true;
  }
  for (int a = 0; a < 3; ++a) open.lo[a] = part_.lo[size_t(a)], open.global[a] = spec_.global[size_t(a)];
  if (open.active && spec_.path == KernelPath::Tuned) {
    log::warn("lbm: the tuned kernel has no open boundaries; using the reference kernel");
    spec_.path = KernelPath::Reference;
  }
  GridLayout g;
  g.nx = part_.size[0];
  g.ny = part_.size[1];
  g.nz = part_.size[2];
  g.gz = is2d ? 0 : 1;
  // Managed memory: refuse before allocating when populations + flags would not fit in free GPU memory.
  const MemKind mem = domain::field_memkind(space, spec_.managed);
  domain::check_managed_fits(mem,
                             std::size_t(g.cells()) * (std::size_t(lattice_q(spec_.lattice)) *
                                                           std::size_t(precision_bytes(spec_.precision)) + 1),
                             "lbm");
  state_ = std::make_unique<LatticeState>(spec_.lattice, spec_.precision, g, space, mem);

  // Flags and initial moments for every padded cell, from global coordinates (ghosts included, so no
  // flag exchange is needed).
  const int64_t n = g.cells();
  std::vector<uint8_t> flags(static_cast<std::size_t>(n), kFluid);
  std::vector<float> h_rho(static_cast<std::size_t>(n), 1.0f), h_u(static_cast<std::size_t>(3 * n), 0.0f);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 0; j < g.py(); ++j)
      for (int64_t i = 0; i < g.px(); ++i) {
        const int64_t c = i + g.px() * (j + g.py() * k);
        int64_t x[3] = {part_.lo[0] + i - 1, part_.lo[1] + j - 1, part_.lo[2] + k - g.gz};
        int wall_face = -1;
        bool open_ghost = false;  // beyond an open face: inactive (its slots are never used)
        for (int a = 0; a < 3; ++a) {
          if (x[a] >= 0 && x[a] < spec_.global[size_t(a)]) continue;
          if (periodic[size_t(a)]) {
            x[a] = wrap(x[a], spec_.global[size_t(a)]);
          } else {
            const int face = 2 * a + (x[a] < 0 ? 0 : 1);
            if (spec_.faces[size_t(face)].open())
              open_ghost = true;
            else if (wall_face < 0)
              wall_face = face;
          }
        }
        if (open_ghost) {
          flags[std::size_t(c)] = kInactive;
          continue;
        }
        if (wall_face >= 0) {
          flags[std::size_t(c)] = make_wall(kFaceWallId0 + wall_face);
          continue;
        }
        const int body = spec_.body ? spec_.body(x[0], x[1], x[2])
                                    : (spec_.solid && spec_.solid(x[0], x[1], x[2]) ? 0 : -1);
        if (body >= 0) {
          TESSERA_REQUIRE(body < kMaxBodies, "at most 9 solid bodies are tracked (wall ids 7..15)");
          flags[std::size_t(c)] = make_wall(kBodyWallId0 + body);
          continue;
        }
        for (int f = 0; f < 6; ++f) {
          const int a = f / 2;
          if (open.face[f].type != 0 && x[a] == (f % 2 == 0 ? 0 : spec_.global[size_t(a)] - 1))
            flags[std::size_t(c)] = make_open(f);
        }
        if (spec_.initial) {
          double rho = 1, u[3] = {0, 0, 0};
          spec_.initial(x[0], x[1], x[2], rho, u);
          h_rho[std::size_t(c)] = float(rho);
          for (int a = 0; a < 3; ++a) h_u[std::size_t(a * n + c)] = float(u[a]);
        }
      }
  write_flags(*state_, flags);
  Buffer<float> d_rho(std::size_t(n), state_->memkind(), "lbm::init_rho"), d_u(std::size_t(3 * n), state_->memkind(), "lbm::init_u");
  copy_n(d_rho.data(), d_rho.kind(), h_rho.data(), MemKind::Host, h_rho.size());
  copy_n(d_u.data(), d_u.kind(), h_u.data(), MemKind::Host, h_u.size());
  state_->prefer_device(ex_);
  init_equilibrium(ex_, *state_, d_rho.data(), d_u.data());
  exec::fence(ex_);
  halo_ = std::make_unique<AAHalo>(part_, *state_, ex_, spec_.transport);
  if (spec_.link_fraction) {
    // Interpolated bounce-back: the links of this rank's cells into bodies (not the box faces, which lie
    // half-way between cells and stay exact with half-way bounce-back).
    const std::vector<uint8_t> fl = read_flags(*state_);  // with kNoWallNeighbour set
    const LinkFraction frac = [&](int64_t i, int64_t j, int64_t k, int q) {
      const int64_t c = g.cell(i, j, k);
      int cq[3];
      for (int a = 0; a < 3; ++a) cq[a] = lattice_c(spec_.lattice, q, a);
      const uint8_t w = fl[std::size_t(c + g.offset(cq[0], cq[1], cq[2]))];
      return spec_.link_fraction(flag_wall_id(w) - kBodyWallId0, part_.lo[0] + i, part_.lo[1] + j, part_.lo[2] + k,
                                 cq[0], cq[1], cq[2]);
    };
    const std::vector<BoundaryLink> h = find_boundary_links(spec_.lattice, g, fl, kBodyWallId0, frac);
    if (!h.empty()) {
      links_ = Buffer<BoundaryLink>(h.size(), state_->memkind(), "lbm::links");
      copy_n(links_.data(), links_.kind(), h.data(), MemKind::Host, h.size());
      fstar_ = Buffer<double>(h.size(), state_->memkind(), "lbm::links_fstar");
    }
  }
  split_shell(CellBox::whole(g), halo_->exchanging_sides(), 1, interior_, shell_);
  // Fused step pairs: on a rank that exchanges with no other rank (a closed box, or periodic axes that this
  // rank spans alone: its ghost layer is its own image, which the fused even step writes itself, the
  // reverse exchange following each pair) and has no interpolated links.
  const FusedSteps mode = fused_steps_mode();  // read (and a bad value refused) on every rank
  bool remote = false;
  for (const auto& side : halo_->exchanging_sides()) remote = remote || side[0] || side[1];
  if (halo_->values_per_exchange(true) > 0)  // (a rank with a periodic axis exchanges with itself)
    for (int a = 0; a < 3; ++a)
      if (spec_.faces[std::size_t(2 * a)].kind == FaceBC::Periodic) fused_periodic_ |= 1u << a;
  if (spec_.path == KernelPath::Tuned && !remote && links_.size() == 0 && fused_steps_available(*state_, spec_.collision))
    fused_ = mode == FusedSteps::On ? Fused::On : mode == FusedSteps::Off ? Fused::Off : Fused::Pending;
}

// With the AA pattern a cell touches only itself and its lattice neighbours (|c_q,a| <= 1), and the
// exchange after a step reads (pack) and writes (unpack) only slots of the cells next to an exchanging
// side and of the ghost layer: the boundary slab's outgoing slots after an even step (forward), the
// ghost slots that the slab pushed out after an odd one (reverse). So cells at least one cell away from
// every exchanging side neither feed nor consume the exchange of their own step and may run while it
// is in flight; the shell must be done before the pack. Within a step cells are independent, so the
// order shell -> start -> interior -> finish gives the same bits as one launch followed by the exchange,
// for both parities, and the state after each step (exchange complete) is the same as without overlap.
void split_shell(const CellBox& all, const std::array<std::array<bool, 2>, 3>& sides, int64_t width, CellBox& inner,
                 std::vector<CellBox>& shell) {
  inner = all;
  for (int a = 0; a < 3; ++a) {
    if (sides[size_t(a)][0]) inner.lo[a] = std::min(all.hi[a], all.lo[a] + width);
    if (sides[size_t(a)][1]) inner.hi[a] = std::max(inner.lo[a], all.hi[a] - width);
  }
  shell.clear();
  // Peel z slabs (full x, y), then y slabs within inner z, then x slabs within inner y and z.
  CellBox rest = all;
  for (int a = 2; a >= 0; --a) {
    CellBox lo = rest, hi = rest;
    lo.hi[a] = inner.lo[a];
    hi.lo[a] = inner.hi[a];
    if (!lo.empty()) shell.push_back(lo);
    if (!hi.empty()) shell.push_back(hi);
    rest.lo[a] = inner.lo[a];
    rest.hi[a] = inner.hi[a];  // >= inner.lo[a]: the slabs are disjoint
  }
}

// Completes the step's streaming at the interpolated links (interpolated_bounce_back.hpp), after its halo
// exchange: moments, output, forces and checkpoints then see the interpolated populations.
void Simulation::finish_links() {
  if (links_.size() > 0)
    interpolated_bounce_back(ex_, *state_, spec_.collision, links_.data(), int64_t(links_.size()), fstar_.data());
}

// One step and what follows it: the halo exchange (overlapped with the interior where the spec asks) and
// the interpolated links.
void Simulation::single_step() {
  if (!spec_.overlap) {
    stream_collide(ex_, *state_, spec_.collision, spec_.path);
    halo_->exchange(ex_, *state_);
    finish_links();
    return;
  }
  // See split_shell(): shell, pack + send, interior while the populations travel, unpack.
  const bool even = state_->parity == 0;
  for (const CellBox& b : shell_) stream_collide_box(ex_, *state_, spec_.collision, b, spec_.path);
  halo_->start(ex_, *state_, /*forward=*/even);
  stream_collide_box(ex_, *state_, spec_.collision, interior_, spec_.path);
  halo_->finish(ex_, *state_);
  end_step(*state_);
  finish_links();
}

// n step pairs in fused launches; with periodic axes one launch per pair, each followed by the reverse
// exchange (the forward one is the fused even step's: stream_collide_pairs).
void Simulation::fused_pairs(int64_t n) {
  if (fused_periodic_ == 0u) {
    stream_collide_pairs(ex_, *state_, spec_.collision, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    stream_collide_pairs(ex_, *state_, spec_.collision, 1, fused_periodic_);
    halo_->exchange(ex_, *state_);
  }
}

// TESSERA_LBM_FUSED=auto: which form is faster depends on the card and the box (docs/performance.md, LBM
// item 41), so the run times both on its own steps, which count as steps of the run (the bits are the same
// either way). The trial is 2 + 2 kTrialPairs step pairs (kTrialSteps steps): a fused pair and a pair of
// single steps untimed (the first launches: counters allocated, caches and clocks warmed), then kTrialPairs
// fused pairs and kTrialPairs pairs of single steps, each run between CUDA events. It takes up to `pairs`
// of them now (advance() calls it at an even step) and goes on in later calls, so that a run advanced in
// short calls (outputs or probes every few steps) still decides; returns the pairs it ran.
int64_t Simulation::fused_trial(int64_t pairs) {
  const exec::Space sp = ex_.space;
  int64_t done = 0;
  while (done < pairs && fused_ == Fused::Pending) {
    const int64_t u = trial_unit_;
    const bool fused = u == 0 || (u >= 2 && u < 2 + kTrialPairs), timed = u >= 2;
    const int64_t run_end = u < 2 ? u + 1 : u < 2 + kTrialPairs ? 2 + kTrialPairs : 2 + 2 * kTrialPairs;
    const int64_t n = std::min(run_end - u, pairs - done);  // units of this kind now
    Event t0(sp), t1(sp);
    if (timed) t0.record(ex_.stream);
    if (fused) fused_pairs(n);
    else
      for (int64_t i = 0; i < 2 * n; ++i) single_step();
    if (timed) {
      t1.record(ex_.stream);
      t1.synchronize();
      trial_ms_[fused ? 0 : 1] += Event::elapsed_ms(t0, t1);
    }
    trial_unit_ += n;
    done += n;
    if (trial_unit_ == 2 + 2 * kTrialPairs) {
      trial_ms_[0] /= double(kTrialPairs);
      trial_ms_[1] /= double(kTrialPairs);
      fused_ = trial_ms_[0] < trial_ms_[1] ? Fused::AutoOn : Fused::AutoOff;
      log::info("lbm: {} (TESSERA_LBM_FUSED=auto; on or off to choose)", fused_choice());
    }
  }
  return done;
}

std::string Simulation::fused_choice() const {
  switch (fused_) {
    case Fused::No: return "not applicable";
    case Fused::Off: return "off";
    case Fused::On: return "on";
    case Fused::Pending: return "auto: pending";
    default: break;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "auto: %s (%.3f ms per step pair fused against %.3f as two single steps)",
                fused_ == Fused::AutoOn ? "fused pairs" : "single steps", trial_ms_[0], trial_ms_[1]);
  return buf;
}

void Simulation::advance(int64_t steps) {
  int64_t ramp = 0;  // the longest inlet ramp (one factor for all inlets)
  for (const FaceBC& f : spec_.faces)
    if (f.kind == FaceBC::VelocityInlet) ramp = std::max(ramp, f.ramp_steps);
  for (int64_t s = 0; s < steps; ++s) {
    if (ramp > 0) {
      const double t = std::min(1.0, double(state_->step) / double(ramp));
      spec_.collision.open.ramp = float(0.5 * (1.0 - std::cos(3.141592653589793 * t)));
    }
    // Nothing happens between two steps here (no exchange but a rank's own periodic one, no links, no inlet
    // ramp): first, with auto, the
    // trial (or what is left of it); then the rest of the call's steps in fused pairs (several
    // per launch) if that is the choice, an odd one left to the single step below.
    if (fused_ == Fused::Pending && state_->parity == 0 && s + 1 < steps) {
      s += 2 * fused_trial((steps - s) / 2) - 1;
      continue;
    }
    if (fused_steps() && state_->parity == 0 && s + 1 < steps) {
      const int64_t pairs = (steps - s) / 2;
      fused_pairs(pairs);
      s += 2 * pairs - 1;
      continue;
    }
    single_step();
  }
  exec::fence(ex_);
}

std::vector<std::array<double, 6>> Simulation::wall_forces(const std::vector<int>& wall_ids) {
  std::vector<double> loc(6 * wall_ids.size()), all(loc.size());
  const int64_t lo[3] = {part_.lo[0], part_.lo[1], part_.lo[2]};
  for (std::size_t b = 0; b < wall_ids.size(); ++b) {
    auto r = wall_force(ex_, *state_, spec_.collision, lo, wall_ids[b]);
    if (links_.size() > 0) {
      const auto d = link_force_correction(ex_, *state_, spec_.collision, links_.data(), fstar_.data(),
                                           int64_t(links_.size()), lo, wall_ids[b]);
      for (int a = 0; a < 6; ++a) r[std::size_t(a)] += d[std::size_t(a)];
    }
    for (int a = 0; a < 6; ++a) loc[6 * b + std::size_t(a)] = r[std::size_t(a)];
  }
  MPI_Allreduce(loc.data(), all.data(), int(loc.size()), MPI_DOUBLE, MPI_SUM, part_.comm);
  std::vector<std::array<double, 6>> out(wall_ids.size());
  for (std::size_t b = 0; b < wall_ids.size(); ++b)
    for (int a = 0; a < 6; ++a) out[b][std::size_t(a)] = all[6 * b + std::size_t(a)];
  return out;
}

io::LocalBox Simulation::local_box() const {
  return io::LocalBox{{part_.lo[0], part_.lo[1], part_.lo[2]}, {part_.size[0], part_.size[1], part_.size[2]}};
}

void Simulation::local_moments(std::vector<float>& rho, std::vector<float>& u) {
  const GridLayout& g = state_->grid();
  const int64_t n = g.cells(), m = g.interior();
  Buffer<float> d_rho(static_cast<std::size_t>(n), state_->memkind()), d_u(static_cast<std::size_t>(3 * n), state_->memkind());
  compute_moments(ex_, *state_, spec_.collision, d_rho.data(), d_u.data());
  exec::fence(ex_);
  std::vector<float> h_rho(static_cast<std::size_t>(n)), h_u(static_cast<std::size_t>(3 * n));
  copy_n(h_rho.data(), MemKind::Host, d_rho.data(), d_rho.kind(), h_rho.size());
  copy_n(h_u.data(), MemKind::Host, d_u.data(), d_u.kind(), h_u.size());
  rho.assign(static_cast<std::size_t>(m), 0.0f);
  u.assign(static_cast<std::size_t>(3 * m), 0.0f);
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k), l = i + g.nx * (j + g.ny * k);
        rho[std::size_t(l)] = h_rho[std::size_t(c)];
        for (int a = 0; a < 3; ++a) u[std::size_t(a * m + l)] = h_u[std::size_t(a * n + c)];
      }
}

void Simulation::gather(std::vector<float>& rho, std::vector<float>& u) {
  const int64_t m = state_->grid().interior();
  std::vector<float> lr, lu;
  local_moments(lr, lu);
  // Interior values, 4 per cell (rho, ux, uy, uz), in local x-fastest order.
  std::vector<float> local(static_cast<std::size_t>(4 * m));
  for (int64_t l = 0; l < m; ++l) {
    local[std::size_t(4 * l)] = lr[std::size_t(l)];
    for (int a = 0; a < 3; ++a) local[std::size_t(4 * l + 1 + a)] = lu[std::size_t(a * m + l)];
  }
  const int nr = part_.nranks;
  std::vector<int> counts(static_cast<std::size_t>(nr)), displs(static_cast<std::size_t>(nr));
  int mine = int(4 * m);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, part_.comm);
  std::vector<float> all;
  if (part_.rank == 0) {
    int tot = 0;
    for (int r = 0; r < nr; ++r) displs[size_t(r)] = tot, tot += counts[size_t(r)];
    all.resize(std::size_t(tot));
  }
  MPI_Gatherv(local.data(), mine, MPI_FLOAT, all.data(), counts.data(), displs.data(), MPI_FLOAT, 0, part_.comm);
  rho.clear();
  u.clear();
  if (part_.rank != 0) return;
  const int64_t N = spec_.global[0] * spec_.global[1] * spec_.global[2];
  rho.assign(std::size_t(N), 0.0f);
  u.assign(std::size_t(3 * N), 0.0f);
  for (int r = 0; r < nr; ++r) {
    // Rebuild rank r's box (same arithmetic as Partition::make).
    int c[3];
    MPI_Cart_coords(part_.comm, r, 3, c);
    int64_t lo[3], sz[3];
    for (int a = 0; a < 3; ++a) {
      const int64_t nn = spec_.global[size_t(a)], parts = part_.dims[size_t(a)], base = nn / parts, extra = nn % parts;
      sz[a] = base + (c[a] < extra ? 1 : 0);
      lo[a] = c[a] * base + (c[a] < extra ? c[a] : extra);
    }
    const float* src = all.data() + displs[size_t(r)];
    for (int64_t k = 0; k < sz[2]; ++k)
      for (int64_t j = 0; j < sz[1]; ++j)
        for (int64_t i = 0; i < sz[0]; ++i) {
          const int64_t l = i + sz[0] * (j + sz[1] * k);
          const int64_t gidx = (lo[0] + i) + spec_.global[0] * ((lo[1] + j) + spec_.global[1] * (lo[2] + k));
          rho[std::size_t(gidx)] = src[4 * l];
          for (int a = 0; a < 3; ++a) u[std::size_t(a * N + gidx)] = src[4 * l + 1 + a];
        }
  }
}

}  // namespace tessera::lbm
