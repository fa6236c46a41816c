// Integrator kernels and thermodynamic sums (see integrate.hpp).
#include "tessera/md/integrate.hpp"

#include <cmath>

#include "tessera/md/philox.hpp"

namespace tessera::md {

namespace {
// Velocity Verlet half kick: v += (dt/2) F/m.
TESSERA_HD inline void half_kick(const ParticleView& p, double dt, int64_t i) {
  const double a = 0.5 * dt * p.inv_mass[p.type[i]];
  p.vx[i] += a * p.fx[i];
  p.vy[i] += a * p.fy[i];
  p.vz[i] += a * p.fz[i];
}

struct KickDrift {
  ParticleView p;
  double dt;
  TESSERA_HD void operator()(int64_t i) const {
    half_kick(p, dt, i);
    p.x[i] += dt * p.vx[i];
    p.y[i] += dt * p.vy[i];
    p.z[i] += dt * p.vz[i];
  }
};

struct Kick {
  ParticleView p;
  double dt;
  TESSERA_HD void operator()(int64_t i) const { half_kick(p, dt, i); }
};

struct LangevinBAOA {
  ParticleView p;
  double dt, c1, c2kT;  // c2kT = (1 - c1^2) kT
  uint64_t seed, step;
  TESSERA_HD void operator()(int64_t i) const {
    const double im = p.inv_mass[p.type[i]];
    const double a = 0.5 * dt * im;
    double vx = p.vx[i] + a * p.fx[i], vy = p.vy[i] + a * p.fy[i], vz = p.vz[i] + a * p.fz[i];
    double x = p.x[i] + 0.5 * dt * vx, y = p.y[i] + 0.5 * dt * vy, z = p.z[i] + 0.5 * dt * vz;
    double g[3];
    philox_normal3(seed, uint64_t(p.id[i]), step, 0u, g);
    const double s = sqrt(c2kT * im);  // sqrt((1-c1^2) kT / m)
    vx = c1 * vx + s * g[0];
    vy = c1 * vy + s * g[1];
    vz = c1 * vz + s * g[2];
    p.vx[i] = vx, p.vy[i] = vy, p.vz[i] = vz;
    p.x[i] = x + 0.5 * dt * vx;
    p.y[i] = y + 0.5 * dt * vy;
    p.z[i] = z + 0.5 * dt * vz;
  }
};

struct LangevinBAOAAt {  // LangevinBAOA with the step read from memory
  LangevinBAOA f;
  const uint64_t* step;
  TESSERA_HD void operator()(int64_t i) const {
    LangevinBAOA g = f;
    g.step = *step;
    g(i);
  }
};

struct Scale {
  ParticleView p;
  double s;
  TESSERA_HD void operator()(int64_t i) const {
    p.vx[i] *= s;
    p.vy[i] *= s;
    p.vz[i] *= s;
  }
};

struct KickScaled {
  ParticleView p;
  double h, a, b;  // h = dt/2
  TESSERA_HD void operator()(int64_t i) const {
    const double k = b * h * p.inv_mass[p.type[i]];
    p.vx[i] = a * p.vx[i] + k * p.fx[i];
    p.vy[i] = a * p.vy[i] + k * p.fy[i];
    p.vz[i] = a * p.vz[i] + k * p.fz[i];
  }
};

struct DriftScaled {
  ParticleView p;
  double dt, lo0, lo1, lo2, e, c;
  TESSERA_HD void operator()(int64_t i) const {
    p.x[i] = lo0 + e * (p.x[i] - lo0) + c * dt * p.vx[i];
    p.y[i] = lo1 + e * (p.y[i] - lo1) + c * dt * p.vy[i];
    p.z[i] = lo2 + e * (p.z[i] - lo2) + c * dt * p.vz[i];
  }
};

struct Sums {
  ParticleView p;
  bool energies;
  TESSERA_HD exec::Vec<double, 6> operator()(int64_t i) const {
    const double m = 1.0 / p.inv_mass[p.type[i]];
    const double vx = p.vx[i], vy = p.vy[i], vz = p.vz[i];
    exec::Vec<double, 6> r;
    r[0] = 0.5 * m * (vx * vx + vy * vy + vz * vz);
    r[1] = energies ? p.pe[i] : 0.0;
    r[2] = energies ? p.vir[i] : 0.0;
    r[3] = m * vx, r[4] = m * vy, r[5] = m * vz;
    return r;
  }
};

struct Kinetic {
  ParticleView p;
  TESSERA_HD double operator()(int64_t i) const {
    const double vx = p.vx[i], vy = p.vy[i], vz = p.vz[i];
    return 0.5 * (vx * vx + vy * vy + vz * vz) / p.inv_mass[p.type[i]];
  }
};
}  // namespace

void kick_drift(const exec::Exec& ex, Particles& p, double dt) {
  exec::parallel_for(ex, "md::kick_drift", p.size(), KickDrift{p.view(), dt});
}

void kick(const exec::Exec& ex, Particles& p, double dt) { exec::parallel_for(ex, "md::kick", p.size(), Kick{p.view(), dt}); }

void langevin_baoa(const exec::Exec& ex, Particles& p, double dt, double gamma, double kT, uint64_t seed,
                   uint64_t step) {
  const double c1 = std::exp(-gamma * dt);
  exec::parallel_for(ex, "md::langevin_baoa", p.size(), LangevinBAOA{p.view(), dt, c1, (1 - c1 * c1) * kT, seed, step});
}

void langevin_baoa(const exec::Exec& ex, Particles& p, double dt, double gamma, double kT, uint64_t seed,
                   const uint64_t* step) {
  const double c1 = std::exp(-gamma * dt);
  exec::parallel_for(ex, "md::langevin_baoa", p.size(),
                     LangevinBAOAAt{LangevinBAOA{p.view(), dt, c1, (1 - c1 * c1) * kT, seed, 0}, step});
}

void scale_velocities(const exec::Exec& ex, Particles& p, double s) {
  exec::parallel_for(ex, "md::scale_v", p.size(), Scale{p.view(), s});
}

void kick_scaled(const exec::Exec& ex, Particles& p, double dt, double a, double b) {
  exec::parallel_for(ex, "md::kick_scaled", p.size(), KickScaled{p.view(), 0.5 * dt, a, b});
}

void drift_scaled(const exec::Exec& ex, Particles& p, double dt, const double lo[3], double e, double c) {
  exec::parallel_for(ex, "md::drift_scaled", p.size(), DriftScaled{p.view(), dt, lo[0], lo[1], lo[2], e, c});
}

ThermoSums thermo_sums(const exec::Exec& ex, Particles& p, bool energies) {
  const auto a = exec::reduce_sums<double, 6>(ex, "md::thermo", p.size(), Sums{p.view(), energies});
  ThermoSums t;
  t.ke = a[0], t.pe = a[1], t.virial = a[2];
  t.p[0] = a[3], t.p[1] = a[4], t.p[2] = a[5];
  return t;
}

double kinetic_energy(const exec::Exec& ex, Particles& p) {
  return exec::reduce_sum<double>(ex, "md::ke", p.size(), Kinetic{p.view()});
}

}  // namespace tessera::md
