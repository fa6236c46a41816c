// Weather model: decomposition, fields, halo exchange, and the SSP-RK time step.
#include "tessera/weather_solver/model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "tessera/domain/field_memory.hpp"
#include "tessera/domain/reduce.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/hdiff.hpp"
#include "tessera/weather/sw_diagnostics.hpp"
#include "tessera/weather/tracer_advection.hpp"
#include "tessera/weather/vadv.hpp"
#include "tessera/weather_solver/initial.hpp"

namespace tessera::weather {

namespace {
constexpr int kGhost = 2;  // hdiff and the limited tracer fluxes reach two cells

domain::DecompositionSpec spec_of(const Config& k) {
  domain::DecompositionSpec s;
  s.global = domain::Int3{k.nx, k.ny, 1};
  s.periodic = {!k.phys.wall_x, !k.phys.wall_y, false};
  s.ghost = kGhost;
  s.dims = {k.ranks[0], k.ranks[1], 1};
  return s;
}

StateFields make_state(const domain::Decomposition& d, const Config& k, MemKind mk, const char* tag) {
  StateFields s;
  s.h = domain::Field<double>(d, 1, mk, kGhost, fmt::format("h{}", tag));
  s.u = domain::Field<double>(d, 1, mk, kGhost, fmt::format("u{}", tag));
  s.v = domain::Field<double>(d, 1, mk, kGhost, fmt::format("v{}", tag));
  s.h.buffer().zero();
  s.u.buffer().zero();
  s.v.buffer().zero();
  if (k.levels > 0) {
    s.c = domain::Field<double>(d, int(k.levels), mk, kGhost, fmt::format("tracer{}", tag));
    s.c.buffer().zero();
  }
  return s;
}
}  // namespace

Model::Model(MPI_Comm comm, const Config& k, exec::Exec ex) : k_(k), ex_(ex), dec_(comm, spec_of(k)) {
  const auto box = dec_.local_box();
  gr_.nx = box.size().x;
  gr_.ny = box.size().y;
  gr_.nz = std::max<int64_t>(k.levels, 1);
  gr_.g = kGhost;
  gr_.i0 = box.lo.x;
  gr_.j0 = box.lo.y;
  gr_.gnx = k.nx;
  gr_.gny = k.ny;
  gr_.dx = k.dx;
  gr_.dy = k.dy;
  // parallel.memory: managed fields are checked against the GPU's free memory before any allocation.
  const MemKind mk = domain::field_memkind(ex.space, k.parallel.managed);
  const int64_t plane = (gr_.nx + 2 * kGhost) * (gr_.ny + 2 * kGhost);
  const int64_t comps = 3 * (3 + k.levels) + 1 + (k.damping > 0 ? 1 : 0) + 2 * k.levels;
  domain::check_managed_fits(mk, std::size_t(plane * comps) * sizeof(double),
                             fmt::format("weather ({}x{} cells, {} levels per rank)", gr_.nx, gr_.ny, k.levels));
  s_ = make_state(dec_, k, mk, "");
  t_[0] = make_state(dec_, k, mk, "_1");
  t_[1] = make_state(dec_, k, mk, "_2");
  b_ = domain::Field<double>(dec_, 1, mk, kGhost, "b");
  b_.buffer().zero();
  if (k.damping > 0) tmp_ = domain::Field<double>(dec_, 1, mk, kGhost, "hdiff_tmp");
  if (k.levels > 0) {
    w_ = domain::Field<double>(dec_, int(k.levels), mk, kGhost, "w");
    scratch_ = domain::Field<double>(dec_, int(k.levels), mk, kGhost, "vadv_scratch");
    w_.buffer().zero();
  }
  for (domain::Field<double>* f : {&s_.h, &s_.u, &s_.v, &s_.c, &t_[0].h, &t_[0].u, &t_[0].v, &t_[0].c, &t_[1].h,
                                   &t_[1].u, &t_[1].v, &t_[1].c, &b_, &w_, &scratch_, &tmp_})
    if (f->data()) domain::place_on_device(*f, ex);
  domain::HaloOptions opt;
  opt.exec = ex;
  opt.transport = k.parallel.transport;
  // The walls and stages after an exchange run on the same stream: no host wait for the unpacks
  // (step() fences once at its end), so the NCCL transport synchronises nothing inside a step.
  opt.fence_on_finish = false;
  for (int s = 0; s < 3; ++s) {
    StateFields& f = state_ref(s);
    std::vector<domain::Field<double>*> fs{&f.h, &f.u, &f.v};
    if (k.levels > 0) fs.push_back(&f.c);
    halo_[s] = std::make_unique<domain::HaloExchange<double>>(dec_, fs, opt);
  }
  halo_b_ = std::make_unique<domain::HaloExchange<double>>(dec_, std::vector<domain::Field<double>*>{&b_}, opt);
  // Interior for overlap: kGhost cells from every side (the stencils reach two cells), one more on a
  // west or south wall, where the wall fill writes the normal velocity of cell 0 (boundary.hpp).
  if (k.parallel.overlap) {
    const WallSides ws = wall_sides(gr_, k.phys);
    inner_ = CellRect{kGhost + (ws.west ? 1 : 0), gr_.nx - kGhost, kGhost + (ws.south ? 1 : 0), gr_.ny - kGhost};
    if (!inner_.empty()) {
      shell_ = {CellRect{0, gr_.nx, 0, inner_.j0}, CellRect{0, gr_.nx, inner_.j1, gr_.ny},
                CellRect{0, inner_.i0, inner_.j0, inner_.j1}, CellRect{inner_.i1, gr_.nx, inner_.j0, inner_.j1}};
    }
  }
}

Model::~Model() = default;

SwConstView Model::cview() const { return SwConstView{s_.h.data(), s_.u.data(), s_.v.data(), b_.data()}; }
SwView Model::view() { return SwView{s_.h.data(), s_.u.data(), s_.v.data()}; }

void Model::initialise() {
  const int64_t nx = gr_.nx, ny = gr_.ny, nz = k_.levels;
  std::vector<double> h(size_t(nx * ny)), u(h.size()), v(h.size()), b(h.size()), c(size_t(nx * ny * nz)),
      w(c.size(), 0.0);
  for (int64_t j = 0; j < ny; ++j)
    for (int64_t i = 0; i < nx; ++i) {
      const int64_t gi = gr_.i0 + i, gj = gr_.j0 + j;
      const size_t n = size_t(i + nx * j);
      b[n] = topography_at(k_, gi, gj);
      h[n] = surface_at(k_, gi, gj) - b[n];
      u[n] = (k_.phys.wall_x && gi == 0) ? 0.0 : u_at(k_, gi, gj);
      v[n] = (k_.phys.wall_y && gj == 0) ? 0.0 : v_at(k_, gi, gj);
      for (int64_t l = 0; l < nz; ++l) {
        // stratified tracer (level index) plus a blob at the domain centre
        const double x = (double(gi) + 0.5) * k_.dx / k_.lx - 0.5, y = (double(gj) + 0.5) * k_.dy / k_.ly - 0.5;
        c[size_t(n + size_t(nx * ny * l))] = double(l + 1) / double(nz) + std::exp(-(x * x + y * y) / 0.01);
        // w on the interface above level l: A sin(pi z/H) cos(2 pi x/Lx), zero at the closed top
        const double z = double(l + 1) / double(nz);
        w[size_t(n + size_t(nx * ny * l))] =
            l + 1 < nz ? k_.w_amplitude * std::sin(std::numbers::pi * z) * std::cos(2 * std::numbers::pi * (x + 0.5)) : 0.0;
      }
    }
  interior_from_host(s_.h, h);
  interior_from_host(s_.u, u);
  interior_from_host(s_.v, v);
  interior_from_host(b_, b);
  if (nz > 0) {
    interior_from_host(s_.c, c);
    interior_from_host(w_, w);
  }
  halo_b_->exchange();
  Grid g1 = gr_;
  g1.nz = 1;
  const WallSides ws = wall_sides(gr_, k_.phys);
  fill_wall_x(ex_, g1, b_.data(), Parity::Even, ws.west, ws.east);
  fill_wall_y(ex_, g1, b_.data(), Parity::Even, ws.south, ws.north);
  refresh_ghosts();
  const double hmin = min_depth();
  if (!(hmin > 0.0))
    TESSERA_THROW(fmt::format("the initial state has a dry or negative depth (min h = {}); wetting and drying is not "
                              "supported: raise initial.depth / depth_right or lower topography.height",
                              hmin));
  time = 0;
  steps = 0;
}

void Model::exchange(int which) {
  halo_[which]->start();
  finish_exchange(which);
}

void Model::finish_exchange(int which) {
  StateFields& f = state_ref(which);
  halo_[which]->finish();
  sw_fill_walls(ex_, gr_, k_.phys, SwView{f.h.data(), f.u.data(), f.v.data()});
  if (k_.levels > 0) {
    const WallSides ws = wall_sides(gr_, k_.phys);
    fill_wall_x(ex_, gr_, f.c.data(), Parity::Even, ws.west, ws.east);
    fill_wall_y(ex_, gr_, f.c.data(), Parity::Even, ws.south, ws.north);
  }
}

void Model::refresh_ghosts() {
  exchange(0);
  exec::fence(ex_);  // callers read the fields next (diagnostics, output), possibly from the host
}

double Model::stable_dt() {
  if (k_.dt_fixed > 0) return k_.dt_fixed;
  const double local = sw_max_signal_speed(ex_, gr_, k_.phys, cview());
  const double smax = domain::max_over_ranks(dec_, local);
  TESSERA_REQUIRE(smax > 0, "zero signal speed: the depth is zero everywhere");
  return k_.cfl * std::min(k_.dx, k_.dy) / smax;
}

void Model::step(double dt) {
  const auto coef = stage_coefficients(k_.scheme);
  const int ns = stage_count(k_.scheme);
  const SwConstView s0 = cview();
  int first = 0;
  // One rank, periodic f-plane, no tracers: SSP-RK3's first two stages in one fused pass (s_1 never
  // stored, s^n's ghosts not read; the same bits as the two stages: sw_stages12), then stage 3.
  if (k_.levels == 0 && k_.scheme == TimeScheme::SspRk3) {
    StateFields& t2 = state_ref(2);
    if (sw_stages12(ex_, gr_, k_.phys, s0, SwView{t2.h.data(), t2.u.data(), t2.v.data()}, coef[0], coef[1], dt))
      first = 2;
  }
  for (int st = first; st < ns; ++st) {
    const int in = st == 0 ? 0 : st;           // S, T1, T2
    const int out = st == ns - 1 ? 0 : st + 1;  // T1, T2, S
    StateFields& a = state_ref(in);
    StateFields& o = state_ref(out);
    const SwConstView sk{a.h.data(), a.u.data(), a.v.data(), b_.data()};
    // out = a S + c (sk + dt L(sk)) reads S only at the cell it writes, so the last stage may write S.
    auto stage = [&](const CellRect& r) {
      if (k_.levels > 0)
        tracer_stage(ex_, gr_, s_.c.data(), a.c.data(), a.u.data(), a.v.data(), o.c.data(), coef[size_t(st)].a,
                     coef[size_t(st)].c, dt, r);
      sw_stage(ex_, gr_, k_.phys, s0, sk, SwView{o.h.data(), o.u.data(), o.v.data()}, coef[size_t(st)].a,
               coef[size_t(st)].c, dt, r);
    };
    // Overlap: the cells that read no ghost (and no cell the wall fill writes) are updated while the
    // halo moves; the boundary shell after the ghosts and walls are in place. Each cell's arithmetic
    // is the same either way, so the fields are bit-identical with overlap on or off.
    halo_[in]->start();
    if (inner_.empty()) {
      finish_exchange(in);
      stage(CellRect{0, gr_.nx, 0, gr_.ny});
      continue;
    }
    stage(inner_);
    finish_exchange(in);
    for (const CellRect& r : shell_) stage(r);
  }
  if (k_.damping > 0) {
    exchange(0);
    Grid g1 = gr_;
    g1.nz = 1;
    hdiff_fused(ex_, g1, s_.u.data(), nullptr, k_.damping, tmp_.data());
    std::swap(s_.u, tmp_);
    hdiff_fused(ex_, g1, s_.v.data(), nullptr, k_.damping, tmp_.data());
    std::swap(s_.v, tmp_);
    zero_wall_faces(ex_, gr_, k_.phys, view());
  }
  if (k_.levels > 0) {
    const VadvParams vp{dt, k_.column_depth / double(k_.levels), k_.vadv_beta};
    vadv_columns(ex_, gr_, vp, s_.c.data(), w_.data(), scratch_.data(), t_[0].c.data());
    std::swap(s_.c, t_[0].c);
  }
  exec::fence(ex_);
  time += dt;
  ++steps;
}

SwIntegrals Model::integrals() {
  refresh_ghosts();
  const SwIntegrals l = sw_integrals(ex_, gr_, k_.phys, cview());
  SwIntegrals g;
  double v[4] = {l.mass, l.energy, l.enstrophy, l.circulation}, r[4];
  MPI_Allreduce(v, r, 4, MPI_DOUBLE, MPI_SUM, dec_.comm());
  g.mass = r[0];
  g.energy = r[1];
  g.enstrophy = r[2];
  g.circulation = r[3];
  return g;
}

double Model::tracer_total() {
  if (k_.levels == 0) return 0.0;
  const double local = tracer_sum(ex_, gr_, s_.c.data());
  return domain::sum_over_ranks(dec_, local) * k_.dx * k_.dy * k_.column_depth / double(k_.levels);
}

double Model::min_depth() { return domain::min_over_ranks(dec_, sw_min_depth(ex_, gr_, cview())); }

std::vector<double> interior_to_host(const domain::Field<double>& f) {
  const auto all = f.to_host();
  const auto v = f.view();
  const domain::Int3 n = f.extent();
  std::vector<double> out(size_t(n.x * n.y * n.z * f.ncomp()));
  size_t m = 0;
  for (int c = 0; c < f.ncomp(); ++c)
    for (int64_t k = 0; k < n.z; ++k)
      for (int64_t j = 0; j < n.y; ++j)
        for (int64_t i = 0; i < n.x; ++i) out[m++] = all[size_t(v.index(i, j, k, c))];
  return out;
}

void interior_from_host(domain::Field<double>& f, const std::vector<double>& a) {
  auto all = f.to_host();
  const auto v = f.view();
  const domain::Int3 n = f.extent();
  TESSERA_REQUIRE(a.size() == size_t(n.x * n.y * n.z * f.ncomp()), "interior array of the wrong size");
  size_t m = 0;
  for (int c = 0; c < f.ncomp(); ++c)
    for (int64_t k = 0; k < n.z; ++k)
      for (int64_t j = 0; j < n.y; ++j)
        for (int64_t i = 0; i < n.x; ++i) all[size_t(v.index(i, j, k, c))] = a[m++];
  f.from_host(all);
}

}  // namespace tessera::weather
