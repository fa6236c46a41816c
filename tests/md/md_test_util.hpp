// Shared set-up for the md tests: jittered lattices (random but without overlaps), potentials, and
// helpers that run the engine's pieces in a given execution space.
#pragma once
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tessera/md/forces.hpp"
#include "tessera/md/lattice.hpp"
#include "tessera/md/neighbor.hpp"
#include "tessera/md/potential.hpp"

namespace mdtest {
using namespace tessera;
using namespace tessera::md;

// fcc lattice at density rho, every coordinate displaced uniformly in [-jitter, jitter], random types.
inline HostParticles jittered_fcc(int cells, double rho, double jitter, int ntypes, unsigned seed, Box& box) {
  HostParticles h = make_lattice(LatticeKind::fcc, {cells, cells, cells}, rho, box);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-jitter, jitter);
  std::uniform_int_distribution<int> t(0, ntypes - 1);
  for (int64_t i = 0; i < h.size(); ++i) {
    h.x[std::size_t(i)] += d(g), h.y[std::size_t(i)] += d(g), h.z[std::size_t(i)] += d(g);
    h.type[std::size_t(i)] = t(g);
  }
  h.mass.assign(std::size_t(ntypes), 1.0);
  for (int k = 0; k < ntypes; ++k) h.mass[std::size_t(k)] = 1.0 + 0.5 * k;
  return h;
}

// LJ with Lorentz-Berthelot mixing over ntypes types (eps, sigma varying by type).
inline PairPotential lj_mixture(exec::Space s, int ntypes, double rc, ShiftMode m) {
  PairPotential pot(s, PairStyle::lj, ntypes);
  for (int a = 0; a < ntypes; ++a)
    for (int b = a; b < ntypes; ++b) {
      double e, sg;
      mix(Mixing::lorentz_berthelot, 1.0 + 0.2 * a, 1.0 - 0.05 * a, 1.0 + 0.2 * b, 1.0 - 0.05 * b, e, sg);
      pot.set_lj(a, b, LJParam::make(e, sg, rc, m));
    }
  pot.upload();
  return pot;
}

inline std::vector<double> inv_masses(const HostParticles& h) {
  std::vector<double> im(h.mass.size());
  for (std::size_t k = 0; k < im.size(); ++k) im[k] = 1.0 / h.mass[k];
  return im;
}

// Forces (and energies) indexed by particle id, so results from sorted runs compare directly.
struct ById {
  std::vector<double> fx, fy, fz;
  double pe = 0, vir = 0;
};
inline ById by_id(const Particles& p) {
  HostParticles h;
  p.download(h);
  const auto n = std::size_t(h.size());
  std::vector<double> fx(n), fy(n), fz(n), pe(n), vir(n);
  copy_n(fx.data(), MemKind::Host, p.fx.data(), p.fx.kind(), n);
  copy_n(fy.data(), MemKind::Host, p.fy.data(), p.fy.kind(), n);
  copy_n(fz.data(), MemKind::Host, p.fz.data(), p.fz.kind(), n);
  copy_n(pe.data(), MemKind::Host, p.pe.data(), p.pe.kind(), n);
  copy_n(vir.data(), MemKind::Host, p.vir.data(), p.vir.kind(), n);
  ById r;
  r.fx.resize(n), r.fy.resize(n), r.fz.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = std::size_t(h.id[i]);
    r.fx[k] = fx[i], r.fy[k] = fy[i], r.fz[k] = fz[i];
    r.pe += pe[i], r.vir += vir[i];
  }
  return r;
}

}  // namespace mdtest
