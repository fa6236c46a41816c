// Validation (label validation): LJ fluid against the NIST SRSW reference, a Kremer-Grest melt that stays
// stable, and NVE energy drift. Statistical checks say so and use the acceptance of the reference file:
// |mean_sim - ref| < 2.576 sqrt(err_sim^2 + err_ref^2), err_sim from block averages.
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "md_test_util.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"

using namespace mdtest;

namespace {
struct NistRow {
  double T, rho, u, u_err, p, p_err;
};

NistRow nist(double T, double rho) {
  const std::string path = std::string(MD_REFERENCE_DIR) + "/nist_lj_srsw_rc3.csv";
  std::ifstream f(path);
  REQUIRE(f.good());
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 'T') continue;
    std::vector<std::string> c;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) c.push_back(x);
    c.resize(6);
    auto num = [](const std::string& s) { return s.empty() ? 0.0 : std::stod(s); };
    NistRow r{num(c[0]), num(c[1]), num(c[2]), num(c[3]), num(c[4]), num(c[5])};
    if (std::abs(r.T - T) < 1e-9 && std::abs(r.rho - rho) < 1e-9) return r;
  }
  FAIL("no NIST row for T = " << T << ", rho = " << rho << " in " << path);
  return {};
}

// Mean and standard error from nb block means (blocks longer than the correlation time).
std::pair<double, double> block_stats(const std::vector<double>& x, int nb) {
  const std::size_t m = x.size() / std::size_t(nb);
  std::vector<double> b(std::size_t(nb), 0.0);
  for (int k = 0; k < nb; ++k) {
    for (std::size_t i = 0; i < m; ++i) b[std::size_t(k)] += x[std::size_t(k) * m + i];
    b[std::size_t(k)] /= double(m);
  }
  double mean = 0, var = 0;
  for (double v : b) mean += v / nb;
  for (double v : b) var += (v - mean) * (v - mean) / (nb - 1);
  return {mean, std::sqrt(var / nb)};
}
}  // namespace

TEST_CASE("LJ fluid at rho = 0.776 matches NIST (rc = 3, tail corrections)", "[md][validation][nist]") {
  for (double T : {0.85, 0.90}) {
    const NistRow ref = nist(T, 0.776);
    Box box;
    HostParticles h = make_lattice(LatticeKind::fcc, {5, 5, 5}, 0.776, box);  // N = 500 as in the reference
    h.mass = {1.0};
    random_velocities(h, T, 11, {1.0});
    SimConfig c;
    c.dt = 0.005;
    c.skin = 0.3;
    c.integrator = Integrator::langevin;
    c.temperature = T;
    c.gamma = 1.0;
    c.seed = 99;
    c.tail = true;
    PairPotential pot(exec::Space::Host, PairStyle::lj, 1);
    pot.set_lj(0, 0, LJParam::make(1.0, 1.0, 3.0, ShiftMode::cut));
    pot.upload();
    Simulation sim(exec::Space::Host, c, box, h, std::move(pot));
    sim.setup();
    for (int s = 0; s < 1000; ++s) sim.step(false);  // melt and equilibrate (5 tau)
    std::vector<double> u, p;
    for (int s = 1; s <= 8000; ++s) {  // 40 tau of production, sampled every 10 steps
      sim.step(s % 10 == 0);
      if (s % 10 != 0) continue;
      const Thermo t = sim.thermo();
      u.push_back(t.pe);
      p.push_back(t.pressure);
    }
    const auto [um, ue] = block_stats(u, 20);
    const auto [pm, pe] = block_stats(p, 20);
    INFO("T = " << T << ": U/N = " << um << " +- " << ue << " (NIST " << ref.u << " +- " << ref.u_err << "), P = " << pm
                << " +- " << pe << " (NIST " << ref.p << ")");
    CHECK(std::abs(um - ref.u) < 2.576 * std::sqrt(ue * ue + ref.u_err * ref.u_err));
    CHECK(std::abs(pm - ref.p) < 2.576 * std::sqrt(pe * pe + ref.p_err * ref.p_err));
    WARN("NIST LJ T = " << T << ": U/N = " << um << " +- " << ue << " (ref " << ref.u << "), P = " << pm << " +- "
                        << pe << " (ref " << ref.p << ")");
  }
}

TEST_CASE("Kremer-Grest melt (FENE + WCA) stays stable under Langevin dynamics", "[md][validation][polymer]") {
  InitialSystem s = polymer_melt({8, 8, 8}, 0.85, 32);  // 16 chains of 32 beads
  s.particles.mass = {1.0};
  random_velocities(s.particles, 1.0, 3, {1.0});
  SimConfig c;
  c.dt = 0.01;  // Kremer & Grest (1990) with a Langevin thermostat, gamma = 0.5
  c.skin = 0.4;
  c.integrator = Integrator::langevin;
  c.temperature = 1.0;
  c.gamma = 0.5;
  PairPotential pot(exec::Space::Host, PairStyle::lj, 1);
  pot.set_lj(0, 0, LJParam::wca(1.0, 1.0));
  pot.upload();
  Simulation sim(exec::Space::Host, c, s.box, s.particles, std::move(pot), s.bonds, {BondParam{int(BondStyle::fene), 30.0, 1.5}});
  sim.setup();
  double tsum = 0;
  int n = 0;
  for (int st = 1; st <= 4000; ++st) {
    sim.step(st % 50 == 0);
    if (st % 50 != 0) continue;
    const Thermo t = sim.thermo();  // throws if a bond broke (infinite FENE energy)
    REQUIRE(std::isfinite(t.pe));
    if (st > 1000) tsum += t.temperature, ++n;
  }
  CHECK(std::abs(tsum / n - 1.0) < 0.05);  // statistical: ~0.01 standard error
  // Mean bond length of the KG model at T = 1 is 0.97 sigma.
  HostParticles h;
  sim.particles().download(h);
  std::vector<std::size_t> row(std::size_t(h.size()));
  for (std::size_t i = 0; i < row.size(); ++i) row[std::size_t(h.id[i])] = i;
  double bsum = 0, bmax = 0;
  for (const Bond& b : s.bonds) {
    const std::size_t i = row[std::size_t(b.a)], j = row[std::size_t(b.b)];
    const double dx = s.box.image(h.x[i] - h.x[j], 0), dy = s.box.image(h.y[i] - h.y[j], 1), dz = s.box.image(h.z[i] - h.z[j], 2);
    const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
    bsum += r, bmax = std::max(bmax, r);
  }
  INFO("mean bond " << bsum / double(s.bonds.size()) << ", longest " << bmax);
  CHECK(std::abs(bsum / double(s.bonds.size()) - 0.97) < 0.01);
  CHECK(bmax < 1.3);
}

namespace {
// NVE at rho = 0.8442, rc = 2.5 (energy-shifted), dt = 0.005: slope of a linear fit of the conserved
// energy per atom against time, after melting from fcc at T = 1.44.
double nve_drift(exec::Space space, int cells, int steps, Precision prec, double* fluct) {
  Box box;
  HostParticles h = make_lattice(LatticeKind::fcc, {cells, cells, cells}, 0.8442, box);
  h.mass = {1.0};
  random_velocities(h, 1.44, 5, {1.0});
  SimConfig c;
  c.precision = prec;
  PairPotential pot(space, PairStyle::lj, 1);
  pot.set_lj(0, 0, LJParam::make(1.0, 1.0, 2.5, ShiftMode::shift));
  pot.upload();
  Simulation sim(space, c, box, h, std::move(pot));
  sim.setup();
  for (int s = 0; s < 2000; ++s) sim.step(false);
  double st = 0, se = 0, stt = 0, ste = 0, emin = 1e300, emax = -1e300;
  int n = 0;
  for (int s = 1; s <= steps; ++s) {
    sim.step(s % 100 == 0);
    if (s % 100 != 0) continue;
    const Thermo t = sim.thermo();
    st += t.time, se += t.conserved, stt += t.time * t.time, ste += t.time * t.conserved, ++n;
    emin = std::min(emin, t.conserved), emax = std::max(emax, t.conserved);
  }
  *fluct = emax - emin;
  return (n * ste - st * se) / (n * stt - st * st);
}
}  // namespace

TEST_CASE("NVE energy drift, double precision, 50 tau on the host", "[md][validation][nve]") {
  double fl = 0;
  const double slope = nve_drift(exec::Space::Host, 4, 10000, Precision::dbl, &fl);
  WARN("NVE host: drift " << slope << " eps/tau per atom over 50 tau, spread " << fl);
  CHECK(std::abs(slope) < 1e-5);
}

TEST_CASE("NVE energy drift over 500 tau on the GPU: double < 1e-6, mixed measured", "[md][validation][nve][gpu]") {
  TESSERA_GPU_TEST();
  double fl = 0;
  const double slope = nve_drift(exec::Space::Device, 10, 100000, Precision::dbl, &fl);
  WARN("NVE GPU double (4000 atoms): drift " << slope << " eps/tau per atom over 500 tau, spread " << fl);
  CHECK(std::abs(slope) < 1e-6);
  const double slope_m = nve_drift(exec::Space::Device, 10, 100000, Precision::mixed, &fl);
  WARN("NVE GPU mixed (4000 atoms): drift " << slope_m << " eps/tau per atom over 500 tau, spread " << fl);
  CHECK(std::abs(slope_m) < 1e-4);
}
