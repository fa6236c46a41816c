// Initial systems (lattice, Kremer-Grest melt, XYZ, LAMMPS data) and potentials from a case.
#include "tessera/md/system_builder.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"
#include "tessera/md/lattice.hpp"

namespace tessera::md {

InitialSystem polymer_melt(std::array<int, 3> cells, double density, int length) {
  const int64_t n = int64_t(cells[0]) * cells[1] * cells[2];
  if (n % length != 0)
    TESSERA_THROW(fmt::format("polymer: {} lattice sites are not a whole number of chains of {} beads; choose "
                              "system.cells whose product is a multiple of system.chain_length",
                              n, length));
  InitialSystem s;
  s.particles = make_lattice(LatticeKind::sc, cells, density, s.box);
  // Serpentine order: x runs forwards/backwards per row, rows forwards/backwards per plane, so
  // consecutive sites are always nearest neighbours (no bond crosses the periodic boundary).
  HostParticles h = s.particles;
  int64_t k = 0;
  for (int z = 0; z < cells[2]; ++z)
    for (int yy = 0; yy < cells[1]; ++yy) {
      const int y = (z % 2 == 0) ? yy : cells[1] - 1 - yy;
      for (int xx = 0; xx < cells[0]; ++xx, ++k) {
        const int x = ((yy + z * cells[1]) % 2 == 0) ? xx : cells[0] - 1 - xx;
        const auto src = std::size_t(x + int64_t(cells[0]) * (y + int64_t(cells[1]) * z));
        const auto dst = std::size_t(k);
        h.x[dst] = s.particles.x[src], h.y[dst] = s.particles.y[src], h.z[dst] = s.particles.z[src];
        h.id[dst] = k;
      }
    }
  s.particles = h;
  for (int64_t i = 0; i < n; ++i)
    if ((i + 1) % length != 0) s.bonds.push_back(Bond{i, i + 1, 0});
  return s;
}

namespace {
std::ifstream open_or_throw(const std::string& path, const char* what) {
  std::ifstream f(path);
  if (!f) TESSERA_THROW(std::string("cannot open ") + what + " file '" + path + "': check system.file");
  return f;
}
}  // namespace

InitialSystem read_xyz(const std::string& path, int ntypes) {
  std::ifstream f = open_or_throw(path, "XYZ");
  InitialSystem s;
  int64_t n = 0;
  std::string line;
  if (!std::getline(f, line) || !(std::istringstream(line) >> n) || n <= 0)
    TESSERA_THROW(path + ":1: expected the number of atoms");
  std::getline(f, line);
  double L[3] = {0, 0, 0};
  if (auto p = line.find("Lattice=\""); p != std::string::npos) {
    std::istringstream ls(line.substr(p + 9));
    double m[9];
    for (double& v : m) ls >> v;
    L[0] = m[0], L[1] = m[4], L[2] = m[8];
  } else if (auto q = line.find("box"); q != std::string::npos) {
    std::istringstream(line.substr(q + 3)) >> L[0] >> L[1] >> L[2];
  }
  if (!(L[0] > 0 && L[1] > 0 && L[2] > 0))
    TESSERA_THROW(path + ":2: the comment line must give the box: Lattice=\"Lx 0 0 0 Ly 0 0 0 Lz\" or 'box Lx Ly Lz'");
  for (int a = 0; a < 3; ++a) s.box.L[a] = L[a];
  s.particles.resize(n);
  std::map<std::string, int> names;
  for (int64_t i = 0; i < n; ++i) {
    std::string t;
    auto& h = s.particles;
    if (!std::getline(f, line) || !(std::istringstream(line) >> t >> h.x[std::size_t(i)] >> h.y[std::size_t(i)] >> h.z[std::size_t(i)]))
      TESSERA_THROW(fmt::format("{}:{}: expected 'type x y z' (atom {} of {})", path, i + 3, i + 1, n));
    int ty = 0;
    if (std::all_of(t.begin(), t.end(), ::isdigit)) ty = std::stoi(t);
    else ty = names.emplace(t, int(names.size())).first->second;
    if (ty >= ntypes)
      TESSERA_THROW(fmt::format("{}:{}: atom type {} but system.mass lists {} types", path, i + 3, t, ntypes));
    h.type[std::size_t(i)] = ty;
    h.id[std::size_t(i)] = i;
  }
  return s;
}

InitialSystem read_lammps_data(const std::string& path) {
  std::ifstream f = open_or_throw(path, "LAMMPS data");
  InitialSystem s;
  std::string line;
  int64_t natoms = 0, nbonds = 0;
  int ntypes = 0;
  int lineno = 1;
  std::getline(f, line);  // title
  std::string section;
  std::map<int64_t, std::size_t> row_of_id;
  std::vector<double> mass;
  auto strip = [](std::string t) {
    if (auto p = t.find('#'); p != std::string::npos) t.resize(p);
    const auto b = t.find_first_not_of(" \t\r"), e = t.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
  };
  while (std::getline(f, line)) {
    ++lineno;
    const std::string t = strip(line);
    if (t.empty()) continue;
    std::istringstream ls(t);
    auto bad = [&](const char* what) { TESSERA_THROW(fmt::format("{}:{}: {}: '{}'", path, lineno, what, t)); };
    if (t.find("atoms") != std::string::npos && section.empty()) { ls >> natoms; continue; }
    if (t.find("atom types") != std::string::npos) { ls >> ntypes; mass.assign(std::size_t(ntypes), 1.0); continue; }
    if (t.find("bonds") != std::string::npos && section.empty() && t.find("types") == std::string::npos) { ls >> nbonds; continue; }
    if (t.find("xlo xhi") != std::string::npos) { ls >> s.box.lo[0] >> s.box.L[0]; s.box.L[0] -= s.box.lo[0]; continue; }
    if (t.find("ylo yhi") != std::string::npos) { ls >> s.box.lo[1] >> s.box.L[1]; s.box.L[1] -= s.box.lo[1]; continue; }
    if (t.find("zlo zhi") != std::string::npos) { ls >> s.box.lo[2] >> s.box.L[2]; s.box.L[2] -= s.box.lo[2]; continue; }
    if (std::isalpha(static_cast<unsigned char>(t[0]))) {
      section = t.substr(0, t.find_first_of(" \t"));
      if (section == "Atoms") s.particles.resize(natoms);
      continue;
    }
    if (t.find("bond types") != std::string::npos || t.find("angle") != std::string::npos) continue;
    if (section == "Masses") {
      int ty;
      double m;
      if (!(ls >> ty >> m) || ty < 1 || ty > ntypes) bad("expected 'type mass'");
      mass[std::size_t(ty - 1)] = m;
    } else if (section == "Atoms") {
      std::vector<double> v;
      double x;
      while (ls >> x) v.push_back(x);
      // atomic: id type x y z [ix iy iz]; bond: id mol type x y z [ix iy iz]
      const bool bond_style = v.size() == 6 || v.size() == 9;
      if (v.size() != 5 && v.size() != 8 && !bond_style) bad("expected atom style atomic or bond");
      const std::size_t r = row_of_id.size();
      if (int64_t(r) >= natoms) bad("more atoms than the header says");
      const std::size_t o = bond_style ? 1 : 0;
      auto& h = s.particles;
      h.id[r] = int64_t(v[0]) - 1;
      h.type[r] = int(v[1 + o]) - 1;
      if (h.type[r] < 0 || h.type[r] >= ntypes) bad("atom type out of range");
      h.x[r] = v[2 + o], h.y[r] = v[3 + o], h.z[r] = v[4 + o];
      if (v.size() >= 8) h.ix[r] = int(v[5 + o]), h.iy[r] = int(v[6 + o]), h.iz[r] = int(v[7 + o]);
      row_of_id[h.id[r]] = r;
    } else if (section == "Velocities") {
      int64_t id;
      double vx, vy, vz;
      if (!(ls >> id >> vx >> vy >> vz) || !row_of_id.count(id - 1)) bad("expected 'id vx vy vz' of a known atom");
      const std::size_t r = row_of_id[id - 1];
      s.particles.vx[r] = vx, s.particles.vy[r] = vy, s.particles.vz[r] = vz;
      s.has_velocities = true;
    } else if (section == "Bonds") {
      int64_t id, ty, a, b;
      if (!(ls >> id >> ty >> a >> b)) bad("expected 'id type atom1 atom2'");
      s.bonds.push_back(Bond{a - 1, b - 1, int(ty - 1)});
    }
  }
  if (int64_t(row_of_id.size()) != natoms)
    TESSERA_THROW(fmt::format("{}: header says {} atoms, the Atoms section has {}", path, natoms, row_of_id.size()));
  if (int64_t(s.bonds.size()) != nbonds)
    TESSERA_THROW(fmt::format("{}: header says {} bonds, the Bonds section has {}", path, nbonds, s.bonds.size()));
  // Ids must be 0..N-1 (dense) for the bond lookup table.
  for (const auto& [id, r] : row_of_id)
    if (id < 0 || id >= natoms) TESSERA_THROW(fmt::format("{}: atom ids must be 1..N (found {})", path, id + 1));
  s.particles.mass = mass;
  return s;
}

InitialSystem build_initial(const CaseConfig& k, const Units& u) {
  InitialSystem s;
  const int ntypes = int(k.mass.size());
  if (k.source == "lattice") s.particles = make_lattice(parse_lattice(k.lattice), k.cells, k.density, s.box);
  else if (k.source == "polymer") s = polymer_melt(k.cells, k.density, k.chain_length);
  else if (k.source == "xyz") s = read_xyz(k.file, ntypes);
  else s = read_lammps_data(k.file);
  if (k.source == "lammps_data" && int(s.particles.mass.size()) != ntypes)
    TESSERA_THROW(fmt::format("{} has {} atom types but system.mass lists {}", k.file, s.particles.mass.size(), ntypes));
  s.particles.mass = k.mass;
  if (!s.has_velocities) {
    std::vector<double> im(k.mass.size());
    for (std::size_t t = 0; t < im.size(); ++t) im[t] = u.ftm2v / k.mass[t];
    // random_velocities works with sum m v^2 = nf kT in energy units: pass kB T.
    random_velocities(s.particles, u.kB * k.init_temperature, k.velocity_seed, im);
  }
  // Walled axes: the box spans the particles plus the gap at each face (so no atom starts inside a wall).
  for (int a = 0; a < 3; ++a) {
    if (!k.sim.walls.on[a]) continue;
    const std::vector<double>& x = a == 0 ? s.particles.x : a == 1 ? s.particles.y : s.particles.z;
    if (x.empty()) continue;
    const auto [mn, mx] = std::minmax_element(x.begin(), x.end());
    s.box.lo[a] = *mn - k.wall_gap;
    s.box.L[a] = *mx - *mn + 2 * k.wall_gap;
    s.box.periodic[a] = false;
    if (k.wall_gap < k.sim.walls.cutoff)
      log::warn("walls.gap = {} is below the wall cut-off {}: atoms start inside the wall's range", k.wall_gap,
                k.sim.walls.cutoff);
  }
  if (!s.bonds.empty() && k.bond_style == "none")
    TESSERA_THROW("the system has bonds but bonds.style is none: set bonds.style to harmonic or fene");
  return s;
}

namespace {
std::vector<std::array<double, 3>> read_table(const std::string& path) {
  std::ifstream f = open_or_throw(path, "pair table");
  std::vector<std::array<double, 3>> rows;
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (auto p = line.find('#'); p != std::string::npos) line.resize(p);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::array<double, 3> r;
    if (!(std::istringstream(line) >> r[0] >> r[1] >> r[2]))
      TESSERA_THROW(fmt::format("{}:{}: expected 'r U F'", path, lineno));
    rows.push_back(r);
  }
  if (rows.size() < 2) TESSERA_THROW(path + ": a table needs at least two rows");
  const double dr = rows[1][0] - rows[0][0];
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (std::abs(rows[i][0] - rows[i - 1][0] - dr) > 1e-9 * std::max(1.0, rows[i][0]))
      TESSERA_THROW(fmt::format("{}: row {}: r must be uniformly spaced (dr = {})", path, i + 1, dr));
  return rows;
}
}  // namespace

PairPotential build_potential(exec::Space s, const CaseConfig& k, int ntypes) {
  const Mixing mixing = parse_mixing(k.mixing);
  const ShiftMode mode = k.shift == "none" ? ShiftMode::cut : (k.shift == "energy" ? ShiftMode::shift : ShiftMode::force_shift);
  PairPotential pot(s, parse_pair_style(k.pair_style == "wca" ? "lj" : k.pair_style), ntypes);
  if (k.pair_style == "lj" || k.pair_style == "wca") {
    for (int a = 0; a < ntypes; ++a)
      for (int b = a; b < ntypes; ++b) {
        double e, sg;
        mix(mixing, k.epsilon[std::size_t(a)], k.sigma[std::size_t(a)], k.epsilon[std::size_t(b)], k.sigma[std::size_t(b)], e, sg);
        pot.set_lj(a, b, k.pair_style == "wca" ? LJParam::wca(e, sg) : LJParam::make(e, sg, k.cutoff, mode));
      }
    for (const PairCoeff& c : k.coeffs)
      pot.set_lj(c.a, c.b, k.pair_style == "wca" ? LJParam::wca(c.epsilon, c.sigma)
                                                  : LJParam::make(c.epsilon, c.sigma, c.cutoff > 0 ? c.cutoff : k.cutoff, mode));
  } else if (k.pair_style == "morse") {
    for (int a = 0; a < ntypes; ++a)
      for (int b = a; b < ntypes; ++b)
        pot.set_morse(a, b, MorseParam::make(k.morse_d0, k.morse_alpha, k.morse_r0, k.cutoff, mode != ShiftMode::cut));
  } else {
    const auto rows = read_table(k.table_file);
    std::vector<double> u, f;
    for (const auto& r : rows) u.push_back(r[1]), f.push_back(r[2]);
    for (int a = 0; a < ntypes; ++a)
      for (int b = a; b < ntypes; ++b) pot.set_table(a, b, rows[0][0], rows[1][0] - rows[0][0], u, f);
  }
  pot.upload();
  return pot;
}

std::vector<BondParam> build_bond_params(const CaseConfig& k) {
  if (k.bond_style == "none") return {};
  // One bond type from the case (LAMMPS data files with several bond types use it for all of them).
  const BondParam p{k.bond_style == "fene" ? int(BondStyle::fene) : int(BondStyle::harmonic), k.bond_k, k.bond_r0};
  return std::vector<BondParam>(8, p);
}

}  // namespace tessera::md
