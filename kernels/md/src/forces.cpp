// Pair and bond force kernels (one source for host and device) and the O(N^2) host reference.
#include "tessera/md/forces.hpp"

#include <cmath>

#include "tessera/core/error.hpp"
#include "tessera/md/pair_lj.hpp"
#include "tessera/md/pair_morse.hpp"
#include "tessera/md/pair_table.hpp"

namespace tessera::md {

Precision parse_precision(const std::string& s) {
  if (s == "double") return Precision::dbl;
  if (s == "mixed") return Precision::mixed;
  TESSERA_THROW("unknown precision '" + s + "': expected double or mixed");
}

namespace {

// Force on particle i from its neighbour list, summed in list order. Eval: PairLJ / PairMorse / PairTable.
template <class Eval, class T, bool Energy>
struct PairForce {
  ParticleView p;
  Box box;
  NeighborView nl;
  const typename Eval::Param* params;
  int ntypes;
  TESSERA_HD void operator()(int64_t i) const {
    const double xi = p.x[i], yi = p.y[i], zi = p.z[i];
    const typename Eval::Param* row = params + p.type[i] * ntypes;
    const int cnt = nl.count[i] < nl.capacity ? nl.count[i] : nl.capacity;
    T fx = 0, fy = 0, fz = 0;
    double e = 0, w = 0;
    for (int k = 0; k < cnt; ++k) {
      const int j = nl.neigh[int64_t(k) * nl.stride + i];
      const T dx = T(box.image(xi - p.x[j], 0));
      const T dy = T(box.image(yi - p.y[j], 1));
      const T dz = T(box.image(zi - p.z[j], 2));
      const T r2 = dx * dx + dy * dy + dz * dz;
      T fr, u;
      if (Eval::eval(r2, row[p.type[j]], fr, u)) {
        fx += fr * dx;
        fy += fr * dy;
        fz += fr * dz;
        if (Energy) {
          e += 0.5 * double(u);
          w += 0.5 * double(fr) * double(r2);
        }
      }
    }
    p.fx[i] = double(fx);
    p.fy[i] = double(fy);
    p.fz[i] = double(fz);
    if (Energy) {
      p.pe[i] = e;
      p.vir[i] = w;
    }
  }
};

template <class T, bool Energy>
struct BondForce {
  ParticleView p;
  Box box;
  BondView b;
  TESSERA_HD void operator()(int64_t i) const {
    const int nb = b.nbond[i];
    if (nb == 0) return;
    T fx = 0, fy = 0, fz = 0;
    double e = 0, w = 0;
    for (int k = 0; k < nb; ++k) {
      const int64_t slot = int64_t(k) * b.stride + i;
      const int j = b.index_of_id[b.partner[slot]];
      const T dx = T(box.image(p.x[i] - p.x[j], 0));
      const T dy = T(box.image(p.y[i] - p.y[j], 1));
      const T dz = T(box.image(p.z[i] - p.z[j], 2));
      const T r2 = dx * dx + dy * dy + dz * dz;
      T fr, u;
      const bool ok = BondEval::eval(r2, b.params[b.btype[slot]], fr, u);
      fx += fr * dx;
      fy += fr * dy;
      fz += fr * dz;
      if (Energy) {
        // A broken FENE bond has no finite energy: report it through pe (checked by the solver).
        e += ok ? 0.5 * double(u) : HUGE_VAL;
        w += 0.5 * double(fr) * double(r2);
      }
    }
    p.fx[i] += double(fx);
    p.fy[i] += double(fy);
    p.fz[i] += double(fz);
    if (Energy) {
      p.pe[i] += e;
      p.vir[i] += w;
    }
  }
};

template <class Eval, class T>
void launch_pair(const exec::Exec& ex, ParticleView v, const Box& box, NeighborView nl,
                 const typename Eval::Param* params, int nt, bool energy) {
  if (energy)
    exec::parallel_for(ex, "md::pair_force", v.n, PairForce<Eval, T, true>{v, box, nl, params, nt});
  else
    exec::parallel_for(ex, "md::pair_force", v.n, PairForce<Eval, T, false>{v, box, nl, params, nt});
}

template <class Eval>
void launch_pair_prec(const exec::Exec& ex, ParticleView v, const Box& box, NeighborView nl,
                      const typename Eval::Param* params, int nt, Precision prec, bool energy) {
  if (prec == Precision::mixed)
    launch_pair<Eval, float>(ex, v, box, nl, params, nt, energy);
  else
    launch_pair<Eval, double>(ex, v, box, nl, params, nt, energy);
}

}  // namespace

void compute_pair_forces(const exec::Exec& ex, Particles& p, const Box& box, const NeighborList& nl,
                         const PairPotential& pot, Precision prec, bool energy, PairKernel kernel, int threads_per_atom) {
  TESSERA_REQUIRE(pot.ntypes() == p.ntypes(), "pair potential and particles disagree on the number of types");
  if (kernel == PairKernel::tuned || (kernel == PairKernel::automatic && ex.on_device() && tuned_pair_forces_available()))
    return compute_pair_forces_tuned(ex, p, box, nl, pot, prec, energy, threads_per_atom);
  const ParticleView v = p.view();
  const NeighborView n = nl.view();
  TESSERA_REQUIRE(n.stride == v.n, "neighbour list is out of date (built for a different particle count)");
  switch (pot.style()) {
    case PairStyle::lj: launch_pair_prec<PairLJ>(ex, v, box, n, pot.lj(), pot.ntypes(), prec, energy); break;
    case PairStyle::morse: launch_pair_prec<PairMorse>(ex, v, box, n, pot.morse(), pot.ntypes(), prec, energy); break;
    case PairStyle::table: launch_pair_prec<PairTable>(ex, v, box, n, pot.table(), pot.ntypes(), prec, energy); break;
  }
}

void add_bond_forces(const exec::Exec& ex, Particles& p, const Box& box, const BondList& bonds, Precision prec,
                     bool energy) {
  if (bonds.empty()) return;
  const ParticleView v = p.view();
  const BondView b = bonds.view();
  if (prec == Precision::mixed) {
    if (energy) exec::parallel_for(ex, "md::bond_force", v.n, BondForce<float, true>{v, box, b});
    else exec::parallel_for(ex, "md::bond_force", v.n, BondForce<float, false>{v, box, b});
  } else {
    if (energy) exec::parallel_for(ex, "md::bond_force", v.n, BondForce<double, true>{v, box, b});
    else exec::parallel_for(ex, "md::bond_force", v.n, BondForce<double, false>{v, box, b});
  }
}

namespace {
template <class Eval>
ReferenceForces reference(const HostParticles& h, const Box& box, const std::vector<typename Eval::Param>& prm, int nt) {
  const auto n = std::size_t(h.size());
  ReferenceForces r;
  r.fx.assign(n, 0.0), r.fy.assign(n, 0.0), r.fz.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = box.image(h.x[i] - h.x[j], 0), dy = box.image(h.y[i] - h.y[j], 1),
                   dz = box.image(h.z[i] - h.z[j], 2);
      double fr, u;
      if (!Eval::eval(dx * dx + dy * dy + dz * dz, prm[std::size_t(h.type[i] * nt + h.type[j])], fr, u)) continue;
      r.fx[i] += fr * dx, r.fy[i] += fr * dy, r.fz[i] += fr * dz;
      r.fx[j] -= fr * dx, r.fy[j] -= fr * dy, r.fz[j] -= fr * dz;
      r.pe += u;
      r.virial += fr * (dx * dx + dy * dy + dz * dz);
    }
  return r;
}
}  // namespace

ReferenceForces reference_pair_forces(const HostParticles& h, const Box& box, const PairPotential& pot) {
  switch (pot.style()) {
    case PairStyle::lj: return reference<PairLJ>(h, box, pot.host_lj(), pot.ntypes());
    case PairStyle::morse: return reference<PairMorse>(h, box, pot.host_morse(), pot.ntypes());
    case PairStyle::table: return reference<PairTable>(h, box, pot.host_table(), pot.ntypes());
  }
  return {};
}

}  // namespace tessera::md
