// Field output of the lbm solver through io::GridOutput (see field_output.hpp).
//
// The fields are gathered to rank 0 (Simulation::gather), checked, differentiated there and written by
// rank 0 while the other ranks pass empty boxes to the collective write: simple, and adequate for the
// grid sizes whose output is gathered anyway for the stability check.
#include "tessera/lbm/solver/field_output.hpp"

#include <cmath>

#include <fmt/format.h>

#include "tessera/lbm/solver/app.hpp"

namespace tessera::lbm {

namespace {
// Density must stay finite and near 1 (weakly compressible regime), the velocity finite.
std::string check_fields(const std::vector<float>& rho, const std::vector<float>& u) {
  for (std::size_t c = 0; c < rho.size(); ++c)
    if (!std::isfinite(rho[c]) || rho[c] < 0.5f || rho[c] > 2.0f) return fmt::format("density {} at cell {}", rho[c], c);
  for (float v : u)
    if (!std::isfinite(v)) return "non-finite velocity";
  return "";
}
}  // namespace

void vorticity_and_q(const std::array<int64_t, 3>& n, const std::array<bool, 3>& periodic, double dx,
                     const std::vector<float>& u, std::vector<float>& vort, std::vector<float>* q) {
  const int64_t N = n[0] * n[1] * n[2];
  const bool is3d = n[2] > 1;
  vort.assign(std::size_t(is3d ? 3 * N : N), 0.0f);
  if (q) q->assign(std::size_t(N), 0.0f);
  const int64_t stride[3] = {1, n[0], n[0] * n[1]};
  for (int64_t k = 0; k < n[2]; ++k)
    for (int64_t j = 0; j < n[1]; ++j)
      for (int64_t i = 0; i < n[0]; ++i) {
        const int64_t x[3] = {i, j, k}, c = i + n[0] * (j + n[1] * k);
        double G[3][3] = {};  // G[a][b] = d u_a / d x_b
        for (int b = 0; b < 3; ++b) {
          if (n[size_t(b)] == 1) continue;
          int64_t lo = x[b] - 1, hi = x[b] + 1;
          double h = 2 * dx;
          if (periodic[size_t(b)]) {
            lo = (lo + n[size_t(b)]) % n[size_t(b)];
            hi = hi % n[size_t(b)];
          } else {
            if (lo < 0) lo = x[b], h = dx;
            if (hi >= n[size_t(b)]) hi = x[b], h = dx;
          }
          const int64_t cl = c + (lo - x[b]) * stride[b], ch = c + (hi - x[b]) * stride[b];
          for (int a = 0; a < 3; ++a)
            G[a][b] = (double(u[std::size_t(a * N + ch)]) - double(u[std::size_t(a * N + cl)])) / h;
        }
        const double wz = G[1][0] - G[0][1];
        if (!is3d) {
          vort[std::size_t(c)] = float(wz);
          continue;
        }
        vort[std::size_t(c)] = float(G[2][1] - G[1][2]);
        vort[std::size_t(N + c)] = float(G[0][2] - G[2][0]);
        vort[std::size_t(2 * N + c)] = float(wz);
        if (q) {
          // Q = (|Omega|^2 - |S|^2) / 2 with S, Omega the symmetric and antisymmetric parts of G (Hunt et al. 1988).
          double s2 = 0, o2 = 0;
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
              const double s = 0.5 * (G[a][b] + G[b][a]), o = 0.5 * (G[a][b] - G[b][a]);
              s2 += s * s;
              o2 += o * o;
            }
          (*q)[std::size_t(c)] = float(0.5 * (o2 - s2));
        }
      }
}

FieldOutput::FieldOutput(Simulation& sim, const Units& units, const Case& c, const std::string& dir, bool vtk,
                         bool append)
    : sim_(sim), dx_(units.dx), u_scale_(units.dx / units.dt) {
  const auto& n = sim.spec().global;
  io::GridGeometry geo;
  geo.global_cells = {n[0], n[1], n[2]};
  geo.origin = {0, 0, 0};  // lower corner of cell 0: the half-way walls lie on the box faces
  geo.spacing = {units.dx, units.dx, units.dx};
  io::GridOutputOptions opt;
  opt.file.case_text = c.yaml();
  opt.file.title = "lbm";
  opt.vtk_xml = vtk;
  opt.append_existing = append;
  out_ = std::make_unique<io::GridOutput>(sim.partition().comm, dir, "fields", geo, opt);
  if (sim.partition().rank == 0) {
    solid_.assign(std::size_t(geo.num_cells()), 0.0f);
    const auto& spec = sim.spec();
    if (spec.solid)
      for (int64_t k = 0; k < n[2]; ++k)
        for (int64_t j = 0; j < n[1]; ++j)
          for (int64_t i = 0; i < n[0]; ++i)
            solid_[std::size_t(i + n[0] * (j + n[1] * k))] = spec.solid(i, j, k) ? 1.0f : 0.0f;
  }
}

std::string FieldOutput::write(double time) {
  const Partition& part = sim_.partition();
  std::vector<float> rho, u;
  sim_.gather(rho, u);
  std::string why;
  int bad = 0;
  if (part.rank == 0) {
    why = check_fields(rho, u);
    bad = why.empty() ? 0 : 1;
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, part.comm);
  if (bad) return part.rank == 0 ? why : "unstable (see rank 0)";
  const auto& n = sim_.spec().global;
  const bool is3d = n[2] > 1;
  std::vector<float> vort, q;
  io::LocalBox box;  // empty on ranks other than 0
  if (part.rank == 0) {
    for (float& v : u) v = float(double(v) * u_scale_);  // m/s
    vorticity_and_q(n, part.periodic, dx_, u, vort, is3d ? &q : nullptr);
    box = io::LocalBox{{0, 0, 0}, {n[0], n[1], n[2]}};
  }
  std::vector<io::FieldView> fv{io::FieldView::scalar("density", rho.data(), "1"),
                                io::FieldView::vector("velocity", u.data(), 3, io::Layout::Planar, "m/s")};
  if (is3d) {
    fv.push_back(io::FieldView::vector("vorticity", vort.data(), 3, io::Layout::Planar, "1/s"));
    fv.push_back(io::FieldView::scalar("q_criterion", q.data(), "1/s^2"));
  } else {
    fv.push_back(io::FieldView::scalar("vorticity", vort.data(), "1/s"));
  }
  fv.push_back(io::FieldView::scalar("solid", solid_.data(), "1"));
  last_ = out_->write(sim_.step(), time, box, fv);
  return "";
}

}  // namespace tessera::lbm
