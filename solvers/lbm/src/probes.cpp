// Probe points and line samples (see probes.hpp).
//
// Each rank reads the moments of its owned cells (Simulation::local_moments), fills the probe cells it
// owns and leaves the others 0; a sum over the ranks then gives every value exactly (x + 0 = x), so the
// CSV is bit-identical for any rank count. Rank 0 appends the rows and closes the file after each sample,
// so a crash leaves complete rows behind.
#include "tessera/lbm/solver/probes.hpp"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/app.hpp"

namespace tessera::lbm {

namespace {
using V3 = std::array<double, 3>;

bool valid_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
  });
}

std::string outside(const V3& x, const V3& L, int dim) {
  for (int a = 0; a < dim; ++a)
    if (!(x[size_t(a)] >= 0.0 && x[size_t(a)] <= L[size_t(a)]))
      return fmt::format("({}, {}, {}) m lies outside the box [0, {}] x [0, {}]{} m", x[0], x[1], x[2], L[0], L[1],
                         dim == 3 ? fmt::format(" x [0, {}]", L[2]) : std::string());
  return "";
}

std::FILE* open_or_throw(const std::string& path, const char* mode) {
  std::FILE* f = std::fopen(path.c_str(), mode);
  if (!f) TESSERA_THROW("lbm: cannot open " + path + " for writing: check the output directory (-o DIR)");
  return f;
}
}  // namespace

std::array<int64_t, 3> nearest_cell(const V3& x, double dx, const std::array<int64_t, 3>& n) {
  std::array<int64_t, 3> c{0, 0, 0};
  for (int a = 0; a < 3; ++a) {
    if (n[size_t(a)] == 1) continue;
    const auto i = int64_t(std::floor(x[size_t(a)] / dx));
    c[size_t(a)] = std::clamp<int64_t>(i, 0, n[size_t(a)] - 1);
  }
  return c;
}

std::string check_probes(const Case& c) {
  const auto n = c.get<std::array<int64_t, 3>>("domain.cells");
  const double dx = c.get<double>("domain.length") / double(n[0]);
  const V3 L{double(n[0]) * dx, double(n[1]) * dx, double(n[2]) * dx};
  const int dim = n[2] == 1 ? 2 : 3;
  std::set<std::string> names;
  auto name_ok = [&](const std::string& where, const std::string& name) -> std::string {
    if (!valid_name(name)) return where + ".name '" + name + "': use letters, digits, '_' or '-' (it names CSV columns and files)";
    if (!names.insert(name).second) return where + ".name '" + name + "' is used twice: give each probe and line its own name";
    return "";
  };
  const auto probes = c.list("output.probes");
  for (std::size_t p = 0; p < probes.size(); ++p) {
    const std::string where = fmt::format("output.probes[{}]", p);
    if (auto e = name_ok(where, probes[p].get<std::string>("name")); !e.empty()) return e;
    if (auto e = outside(probes[p].get<V3>("position"), L, dim); !e.empty()) return where + ".position " + e;
  }
  const auto lines = c.list("output.lines");
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const std::string where = fmt::format("output.lines[{}]", l);
    if (auto e = name_ok(where, lines[l].get<std::string>("name")); !e.empty()) return e;
    for (const char* k : {"start", "end"})
      if (auto e = outside(lines[l].get<V3>(k), L, dim); !e.empty()) return where + "." + k + " " + e;
  }
  return "";
}

void truncate_csv_after(const std::string& path, int64_t last_step) {
  std::ifstream in(path);
  if (!in) return;
  std::ostringstream kept;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      // A data row: its first column is the step. A torn last row (no newline, crash) parses short: drop it too.
      if (std::stoll(line) > last_step || in.eof()) continue;
    }
    kept << line << '\n';
  }
  in.close();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << kept.str();
    if (!out) TESSERA_THROW("lbm: cannot rewrite " + tmp + " (probe series on restart): check the output directory");
  }
  std::filesystem::rename(tmp, path);
}

Probes::Probes(const Simulation& sim, const Units& units, const Case& c, const std::string& dir, int64_t restart_step)
    : u_scale_(units.dx / units.dt), every_(c.get<int64_t>("output.probe_every")) {
  const auto& n = sim.spec().global;
  const double dx = units.dx;
  auto centre = [&](const std::array<int64_t, 3>& cell) {
    return V3{(double(cell[0]) + 0.5) * dx, (double(cell[1]) + 0.5) * dx, n[2] == 1 ? 0.0 : (double(cell[2]) + 0.5) * dx};
  };
  std::string head = "# lbm probes: values of the nearest cell; rho = density / rho_0, u in m/s\n";
  std::string cols = "step,time";
  for (const Case& p : c.list("output.probes")) {
    const auto name = p.get<std::string>("name");
    const auto x = p.get<V3>("position");
    const auto cell = nearest_cell(x, dx, n);
    const V3 xc = centre(cell);
    cells_.push_back(cell);
    head += fmt::format("# probe {}: position ({}, {}, {}) m -> cell ({}, {}, {}) centred at ({:.9g}, {:.9g}, {:.9g}) m\n",
                        name, x[0], x[1], x[2], cell[0], cell[1], cell[2], xc[0], xc[1], xc[2]);
    cols += fmt::format(",{0}_rho,{0}_ux,{0}_uy,{0}_uz", name);
  }
  nprobes_ = cells_.size();
  const bool rank0 = sim.partition().rank == 0;
  auto start_file = [&](const std::string& path, const std::string& header) {
    if (!rank0) return;
    if (restart_step >= 0 && std::filesystem::exists(path)) {
      truncate_csv_after(path, restart_step);
      return;
    }
    std::FILE* f = open_or_throw(path, "w");
    std::fputs(header.c_str(), f);
    std::fclose(f);
  };
  if (nprobes_ > 0) {
    probe_path_ = (std::filesystem::path(dir) / "probes.csv").string();
    start_file(probe_path_, head + cols + "\n");
  }
  for (const Case& e : c.list("output.lines")) {
    Line l;
    l.name = e.get<std::string>("name");
    l.path = (std::filesystem::path(dir) / ("line_" + l.name + ".csv")).string();
    const auto a = e.get<V3>("start"), b = e.get<V3>("end");
    const auto m = e.get<int64_t>("points");
    l.first = cells_.size();
    l.count = std::size_t(m);
    const double len = std::sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
    for (int64_t p = 0; p < m; ++p) {
      const double t = double(p) / double(m - 1);
      const V3 x{a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])};
      l.pos.push_back(x);
      l.s.push_back(t * len);
      cells_.push_back(nearest_cell(x, dx, n));
    }
    start_file(l.path, fmt::format("# lbm line sample {}: {} points from ({}, {}, {}) to ({}, {}, {}) m; values of the "
                                   "nearest cell (i, j, k); s = distance from the start (m); rho = density / rho_0, u in m/s\n"
                                   "step,time,s,x,y,z,i,j,k,rho,ux,uy,uz\n",
                                   l.name, m, a[0], a[1], a[2], b[0], b[1], b[2]));
    lines_.push_back(std::move(l));
  }
}

void Probes::sample(Simulation& sim, double time) {
  if (cells_.empty()) return;
  const Partition& part = sim.partition();
  std::vector<float> rho, u;
  sim.local_moments(rho, u);
  const int64_t m = int64_t(rho.size());
  std::vector<float> mine(4 * cells_.size(), 0.0f), all(mine.size(), 0.0f);
  for (std::size_t p = 0; p < cells_.size(); ++p) {
    std::array<int64_t, 3> l{};
    bool owned = true;
    for (int a = 0; a < 3; ++a) {
      l[size_t(a)] = cells_[p][size_t(a)] - part.lo[size_t(a)];
      owned = owned && l[size_t(a)] >= 0 && l[size_t(a)] < part.size[size_t(a)];
    }
    if (!owned) continue;
    const int64_t c = l[0] + part.size[0] * (l[1] + part.size[1] * l[2]);
    mine[4 * p] = rho[std::size_t(c)];
    // The same float conversion as the field output, so that a probe equals the written field bit for bit.
    for (int a = 0; a < 3; ++a) mine[4 * p + 1 + size_t(a)] = float(double(u[std::size_t(a * m + c)]) * u_scale_);
  }
  MPI_Reduce(mine.data(), all.data(), int(all.size()), MPI_FLOAT, MPI_SUM, 0, part.comm);
  if (part.rank != 0) return;
  const int64_t step = sim.step();
  if (nprobes_ > 0) {
    std::string row = fmt::format("{},{:.17g}", step, time);
    for (std::size_t p = 0; p < nprobes_; ++p)
      for (int v = 0; v < 4; ++v) row += fmt::format(",{:.9g}", all[4 * p + size_t(v)]);
    std::FILE* f = open_or_throw(probe_path_, "a");
    std::fputs((row + "\n").c_str(), f);
    std::fclose(f);
  }
  for (const Line& l : lines_) {
    std::string rows;
    for (std::size_t p = 0; p < l.count; ++p) {
      const std::size_t q = l.first + p;
      const auto& x = l.pos[p];
      const auto& cell = cells_[q];
      rows += fmt::format("{},{:.17g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g}\n", step, time, l.s[p],
                          x[0], x[1], x[2], cell[0], cell[1], cell[2], all[4 * q], all[4 * q + 1], all[4 * q + 2], all[4 * q + 3]);
    }
    std::FILE* f = open_or_throw(l.path, "a");
    std::fputs(rows.c_str(), f);
    std::fclose(f);
  }
}

}  // namespace tessera::lbm
