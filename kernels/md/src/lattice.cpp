// Lattice initial positions and random velocities (host; uploaded once).
#include "tessera/md/lattice.hpp"

#include <cmath>

#include "tessera/core/error.hpp"
#include "tessera/md/philox.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {

Units parse_units(const std::string& s) {
  if (s == "lj") return units_lj();
  if (s == "real") return units_real();
  TESSERA_THROW("unknown units '" + s + "': expected lj or real");
}

LatticeKind parse_lattice(const std::string& s) {
  if (s == "sc") return LatticeKind::sc;
  if (s == "bcc") return LatticeKind::bcc;
  if (s == "fcc") return LatticeKind::fcc;
  TESSERA_THROW("unknown lattice '" + s + "': expected sc, bcc or fcc");
}

int basis_size(LatticeKind k) { return k == LatticeKind::sc ? 1 : (k == LatticeKind::bcc ? 2 : 4); }

HostParticles make_lattice(LatticeKind kind, std::array<int, 3> cells, double density, Box& box) {
  TESSERA_REQUIRE(density > 0, "lattice density must be positive");
  TESSERA_REQUIRE(cells[0] > 0 && cells[1] > 0 && cells[2] > 0, "lattice needs at least one cell per axis");
  static const double sc[1][3] = {{0, 0, 0}};
  static const double bcc[2][3] = {{0, 0, 0}, {0.5, 0.5, 0.5}};
  static const double fcc[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  const double(*basis)[3] = kind == LatticeKind::sc ? sc : (kind == LatticeKind::bcc ? bcc : fcc);
  const int nb = basis_size(kind);
  const double a = std::cbrt(double(nb) / density);
  for (int d = 0; d < 3; ++d) box.lo[d] = 0, box.L[d] = cells[std::size_t(d)] * a;
  const int64_t n = int64_t(cells[0]) * cells[1] * cells[2] * nb;
  HostParticles h;
  h.resize(n);
  int64_t i = 0;
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int c = 0; c < cells[0]; ++c)
        for (int b = 0; b < nb; ++b, ++i) {
          // Offset by a quarter cell so no atom sits exactly on the box boundary.
          h.x[std::size_t(i)] = (c + basis[b][0] + 0.25) * a;
          h.y[std::size_t(i)] = (j + basis[b][1] + 0.25) * a;
          h.z[std::size_t(i)] = (k + basis[b][2] + 0.25) * a;
          h.id[std::size_t(i)] = i;
        }
  return h;
}

void random_velocities(HostParticles& h, double kT, uint64_t seed, const std::vector<double>& inv_mass_eff) {
  const auto n = std::size_t(h.size());
  if (n == 0) return;
  double p[3] = {0, 0, 0}, mt = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double g[3];
    philox_normal3(seed, uint64_t(h.id[i]), 0, 1u, g);  // stream 1: never collides with Langevin (stream 0)
    const double im = inv_mass_eff[std::size_t(h.type[i])];
    const double s = std::sqrt(kT * im);
    h.vx[i] = s * g[0], h.vy[i] = s * g[1], h.vz[i] = s * g[2];
    const double m = 1 / im;
    p[0] += m * h.vx[i], p[1] += m * h.vy[i], p[2] += m * h.vz[i];
    mt += m;
  }
  double ke2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h.vx[i] -= p[0] / mt, h.vy[i] -= p[1] / mt, h.vz[i] -= p[2] / mt;
    ke2 += (h.vx[i] * h.vx[i] + h.vy[i] * h.vy[i] + h.vz[i] * h.vz[i]) / inv_mass_eff[std::size_t(h.type[i])];
  }
  const double nf = n > 1 ? 3.0 * double(n) - 3.0 : 3.0;
  if (kT <= 0 || ke2 <= 0) {
    for (std::size_t i = 0; i < n; ++i) h.vx[i] = h.vy[i] = h.vz[i] = 0;
    return;
  }
  const double s = std::sqrt(nf * kT / ke2);
  for (std::size_t i = 0; i < n; ++i) h.vx[i] *= s, h.vy[i] *= s, h.vz[i] *= s;
}

}  // namespace tessera::md
