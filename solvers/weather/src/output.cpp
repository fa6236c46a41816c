// Field output (HDF5 + XDMF), diagnostics CSV, spectra and checkpoints of the weather model.
#include "tessera/weather_solver/output.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/weather/sw_diagnostics.hpp"
#include "tessera/weather_solver/spectrum.hpp"

namespace tessera::weather {

namespace {
io::LocalBox local_box(const Model& m) {
  const Grid& g = m.grid();
  return io::LocalBox{{g.i0, g.j0, 0}, {g.nx, g.ny, 1}};
}
}  // namespace

Output::Output(Model& m, const Case& c, const std::string& dir, bool append) : m_(m), case_(c), dir_(dir) {
  MPI_Comm_rank(m.decomposition().comm(), &rank_);
  if (rank_ == 0) {
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/diagnostics.csv";
    const bool exists = std::filesystem::exists(path);
    csv_ = std::fopen(path.c_str(), append ? "a" : "w");
    if (!csv_) TESSERA_THROW("cannot open " + path + " for writing: check the output directory (-o DIR)");
    if (!append || !exists) std::fprintf(csv_, "step,time,dt,mass,energy,enstrophy,circulation,tracer_total\n");
  }
  const Config& k = m.config();
  if (k.write_fields) {
    io::GridGeometry geo;
    geo.global_cells = {k.nx, k.ny, 1};
    geo.spacing = {k.dx, k.dy, std::min(k.dx, k.dy)};
    io::GridOutputOptions opt;
    opt.file.precision = io::parse_precision(k.precision);
    opt.file.case_text = c.yaml();
    opt.file.title = "weather";
    opt.append_existing = append;
    grid_ = std::make_unique<io::GridOutput>(m.decomposition().comm(), dir, "weather", geo, opt);
  }
}

Output::~Output() {
  if (csv_) std::fclose(csv_);
}

void Output::diagnostics(double dt) {
  const SwIntegrals s = m_.integrals();
  const double tr = m_.tracer_total();
  if (rank_ == 0) {
    std::fprintf(csv_, "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", (long long)m_.steps, m_.time, dt, s.mass,
                 s.energy, s.enstrophy, s.circulation, tr);
    std::fflush(csv_);
  }
}

void Output::fields() {
  Model& m = m_;
  const Grid& g = m.grid();
  const Config& k = m.config();
  m.refresh_ghosts();
  const MemKind mk = default_memkind(m.exec().space);
  domain::Field<double> uc(m.decomposition(), 1, mk, g.g, "u_c"), vc(m.decomposition(), 1, mk, g.g, "v_c"),
      zc(m.decomposition(), 1, mk, g.g, "zeta_c"), pc(m.decomposition(), 1, mk, g.g, "pv_c");
  sw_centre_fields(m.exec(), g, k.phys, m.cview(), uc.data(), vc.data(), zc.data(), pc.data());
  exec::fence(m.exec());
  const auto h = interior_to_host(m.state().h), b = interior_to_host(m.topography());
  const auto u = interior_to_host(uc), v = interior_to_host(vc), z = interior_to_host(zc), q = interior_to_host(pc);
  if (grid_) {
    std::vector<double> eta(h.size()), vel(3 * h.size(), 0.0);
    for (size_t n = 0; n < h.size(); ++n) {
      eta[n] = h[n] + b[n];
      vel[n] = u[n];
      vel[h.size() + n] = v[n];
    }
    std::vector<io::FieldView> fv{io::FieldView::scalar("depth", h.data(), "m"),
                                  io::FieldView::scalar("surface", eta.data(), "m"),
                                  io::FieldView::scalar("topography", b.data(), "m"),
                                  io::FieldView::vector("velocity", vel.data(), 3, io::Layout::Planar, "m/s"),
                                  io::FieldView::scalar("vorticity", z.data(), "1/s"),
                                  io::FieldView::scalar("potential_vorticity", q.data(), "1/(m s)")};
    std::vector<double> c;
    if (k.levels > 0) {
      c = interior_to_host(m.state().c);
      fv.push_back(io::FieldView::vector("tracer", c.data(), int(k.levels), io::Layout::Planar, "1"));
    }
    grid_->write(m.steps, m.time, local_box(m), fv);
  }
  if (k.spectrum) {
    const auto gu = domain::gather_to_root(m.decomposition(), uc);
    const auto gv = domain::gather_to_root(m.decomposition(), vc);
    if (rank_ == 0) {
      const Spectrum s = kinetic_energy_spectrum(m.exec().space, k.nx, k.ny, k.lx, k.ly, gu, gv);
      const std::string path = fmt::format("{}/spectrum_{:08d}.csv", dir_, m.steps);
      std::FILE* f = std::fopen(path.c_str(), "w");
      if (!f) TESSERA_THROW("cannot write " + path);
      std::fprintf(f, "# time = %.17g s\nk,energy\n", m.time);
      for (size_t n = 0; n < s.k.size(); ++n) std::fprintf(f, "%.10g,%.10g\n", s.k[n], s.energy[n]);
      std::fclose(f);
    }
  }
}

std::string Output::checkpoint() {
  Model& m = m_;
  const Config& k = m.config();
  io::CheckpointData d;
  d.meta.step = m.steps;
  d.meta.time = m.time;
  d.meta.case_hash = case_.hash_hex();
  d.meta.case_text = case_.yaml();
  d.meta.solver = "weather";
  const io::Index3 cells{k.nx, k.ny, 1};
  const auto box = local_box(m);
  const auto h = interior_to_host(m.state().h), u = interior_to_host(m.state().u), v = interior_to_host(m.state().v);
  d.add_field("h", cells, box, h.data());
  d.add_field("u", cells, box, u.data());
  d.add_field("v", cells, box, v.data());
  std::vector<double> c;
  if (k.levels > 0) {
    c = interior_to_host(m.state().c);
    const size_t plane = size_t(box.num_cells());
    for (int64_t l = 0; l < k.levels; ++l) d.add_field(fmt::format("tracer_{}", l), cells, box, c.data() + plane * size_t(l));
  }
  return io::write_checkpoint(m.decomposition().comm(), dir_, d);
}

void restart_from(Model& m, const Case& c, const std::string& path) {
  io::LoadOptions lo;
  lo.expected_case_hash = c.hash_hex();
  lo.expected_case_text = c.yaml();
  io::CheckpointReader r(m.decomposition().comm(), path, lo);
  const Config& k = m.config();
  const io::LocalBox box{{m.grid().i0, m.grid().j0, 0}, {m.grid().nx, m.grid().ny, 1}};
  std::vector<double> a(size_t(box.num_cells()));
  r.read_field("h", box, a.data());
  interior_from_host(m.state().h, a);
  r.read_field("u", box, a.data());
  interior_from_host(m.state().u, a);
  r.read_field("v", box, a.data());
  interior_from_host(m.state().v, a);
  if (k.levels > 0) {
    std::vector<double> cc(a.size() * size_t(k.levels));
    for (int64_t l = 0; l < k.levels; ++l) r.read_field(fmt::format("tracer_{}", l), box, cc.data() + a.size() * size_t(l));
    interior_from_host(m.state().c, cc);
  }
  m.time = r.meta().time;
  m.steps = r.meta().step;
  m.refresh_ghosts();
}

}  // namespace tessera::weather
