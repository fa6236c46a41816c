// Mean-square displacement against the exact ballistic result, and 9-3 walls: force = -dU/dh, no atom
// leaves a walled box, energy conserved in NVE.
#include <cmath>

#include <fmt/format.h>

#include "catch_compat.hpp"
#include "md_case_util.hpp"
#include "tessera/md/msd.hpp"
#include "tessera/md/walls.hpp"

using namespace mdcase;

namespace {
// Free particles: LJ with epsilon = 0 (no force), 256 atoms, T = 1.
const char* kGas = R"(
system: {source: lattice, lattice: fcc, cells: [4, 4, 4], density: 0.8442}
velocity: {temperature: 1.0, seed: 3}
pair: {style: lj, epsilon: [0.0], cutoff: 2.5}
run: {steps: 1000, dt: 0.005}
output: {msd_every: 100}
)";

const char* kWalled = R"(
system: {source: lattice, lattice: fcc, cells: [4, 4, 5], density: 0.8442}
velocity: {temperature: 1.0, seed: 21}
pair: {style: lj, shift: force, cutoff: 2.5}
walls: {z: lj93, epsilon: 1.0, sigma: 1.0, gap: 1.0}
neighbor: {skin: 0.3}
run: {steps: 2000, dt: 0.004}
output: {thermo_every: 50}
)";
}  // namespace

TEST_CASE("MSD of free particles is <v^2> t^2 (ballistic), across periodic images", "[md][msd]") {
  const Case c = make_case(kGas);
  auto sim = make_sim(exec::Space::Host, c);
  sim->setup();
  HostParticles h0;
  sim->particles().download(h0);
  double v2[3] = {0, 0, 0};
  for (int64_t i = 0; i < h0.size(); ++i) {
    const auto k = std::size_t(i);
    v2[0] += h0.vx[k] * h0.vx[k], v2[1] += h0.vy[k] * h0.vy[k], v2[2] += h0.vz[k] * h0.vz[k];
  }
  for (double& v : v2) v /= double(h0.size());
  CHECK(sim->msd()[0] == 0.0);
  for (int block = 0; block < 10; ++block) {
    advance(*sim, sim->step_count() + 100, 1000000);
    const double t = sim->time();
    const auto m = sim->msd();
    for (int a = 0; a < 3; ++a) CHECK(std::abs(m[std::size_t(a)] - v2[a] * t * t) <= 1e-9 * v2[a] * t * t);
  }
  // By t = 5 every atom moved ~ 8.7 sigma on average, more than the box (6.7 sigma): images were needed.
  HostParticles h;
  sim->particles().download(h);
  int crossed = 0;
  for (int64_t i = 0; i < h.size(); ++i) crossed += h.ix[std::size_t(i)] != 0 || h.iy[std::size_t(i)] != 0;
  CHECK(crossed > h.size() / 2);
}

TEST_CASE("9-3 wall: force is -dU/dh, minimum at (2/5)^(1/6) sigma, U(rc) = 0", "[md][walls]") {
  const bool axes[3] = {false, false, true};
  for (double rc : {0.0, 2.5}) {
    const WallParam w = WallParam::make(axes, 1.3, 0.9, rc);
    if (rc == 0) CHECK(w.cutoff == Approx(std::pow(0.4, 1.0 / 6.0) * 0.9).epsilon(1e-14));
    for (double hh = 0.5; hh < w.cutoff - 1e-3; hh += 0.0137) {
      double f, u, fp, up, fm, um;
      WallParam::eval(hh, w, f, u);
      const double d = 1e-6;
      WallParam::eval(hh + d, w, fp, up);
      WallParam::eval(hh - d, w, fm, um);
      CHECK(f == Approx(-(up - um) / (2 * d)).epsilon(1e-6).margin(1e-8));
    }
    double f, u;
    WallParam::eval(w.cutoff * (1 - 1e-12), w, f, u);
    CHECK(std::abs(u) < 1e-9);
  }
  const WallParam w = WallParam::make(axes, 1.0, 1.0, 0.0);
  double f, u;
  WallParam::eval(0.99 * w.cutoff, w, f, u);
  CHECK(f > 0);  // repulsive everywhere inside the cut
  CHECK(u > 0);
}

namespace {
// Runs the walled liquid for 8 tau at time step dt; checks confinement and momentum, returns the spread
// (max - min) of the conserved energy per atom.
double walled_nve_spread(double dt) {
  const Case c = make_case(kWalled, {fmt::format("run.dt={}", dt)});
  auto sim = make_sim(exec::Space::Host, c);
  const Box box = sim->box();
  REQUIRE(!box.periodic[2]);
  REQUIRE(box.periodic[0]);
  sim->setup();
  const Thermo t0 = sim->thermo();
  double emin = t0.conserved, emax = t0.conserved;
  double zmin = 1e300, zmax = -1e300;
  const int64_t every = int64_t(std::llround(0.2 / dt)), nsteps = int64_t(std::llround(8.0 / dt));
  while (sim->step_count() < nsteps) {
    advance(*sim, sim->step_count() + every, every);
    const Thermo t = sim->thermo();
    emin = std::min(emin, t.conserved), emax = std::max(emax, t.conserved);
    // Momentum along the periodic axes is conserved; the walls exchange it along z.
    CHECK(std::abs(t.momentum[0]) < 1e-9);
    CHECK(std::abs(t.momentum[1]) < 1e-9);
    HostParticles h;
    sim->particles().download(h);
    for (double z : h.z) zmin = std::min(zmin, z), zmax = std::max(zmax, z);
    for (int iz : h.iz) REQUIRE(iz == 0);
  }
  INFO("dt " << dt << ": z range [" << zmin << ", " << zmax << "] in box [" << box.lo[2] << ", "
             << box.lo[2] + box.L[2] << "]");
  CHECK(zmin > box.lo[2]);
  CHECK(zmax < box.lo[2] + box.L[2]);
  // Atoms did come within the walls' range (the test exercises them).
  CHECK(zmin < box.lo[2] + sim->config().walls.cutoff);
  CHECK(zmax > box.lo[2] + box.L[2] - sim->config().walls.cutoff);
  return emax - emin;
}
}  // namespace

TEST_CASE("Walls keep every atom in the box and NVE conserves energy", "[md][walls]") {
  // Force-shifted LJ and a wall whose force vanishes at its cut: the energy error of velocity Verlet is
  // O(dt^2) bounded fluctuation, so halving dt must cut the spread by ~4 (>= 2.5 asserted; a
  // non-conservative or discontinuous wall force would not scale so). Stated tolerance: the spread of
  // the conserved energy per atom over 8 tau is below 4e-4 epsilon at dt = 0.004, 1e-4 at dt = 0.002.
  const double s4 = walled_nve_spread(0.004), s2 = walled_nve_spread(0.002);
  INFO("conserved/N spread: dt 0.004: " << s4 << ", dt 0.002: " << s2);
  CHECK(s4 < 4e-4);
  CHECK(s2 < 1e-4);
  CHECK(s4 / s2 > 2.5);
}

TEST_CASE("GPU follows the host with walls, NPT and the MSD", "[md][walls][npt][msd][gpu]") {
  TESSERA_GPU_TEST();
  const std::vector<std::vector<std::string>> variants = {
      {"output.msd_every=10"},
      {"run.integrator=npt", "barostat.pressure=1.0", "barostat.tau=1.0", "output.msd_every=10"}};
  for (const auto& extra : variants) {
    const bool npt = extra.size() > 1;
    std::vector<std::string> ov = extra;
    if (npt) ov.push_back("walls.z=none");  // NPT needs a periodic box
    const Case c = make_case(kWalled, ov);
    auto a = make_sim(exec::Space::Host, c);
    auto b = make_sim(exec::Space::Device, c);
    a->setup();
    b->setup();
    advance(*a, 100, 100);
    advance(*b, 100, 100);
    HostParticles ha, hb;
    a->particles().download(ha);
    b->particles().download(hb);
    // Positions by id (the two back ends sort alike, but compare by id regardless). Chaotic dynamics
    // amplify FMA rounding differences; after 100 steps they stay far below 1e-6.
    std::vector<double> za(ha.z.size()), zb(hb.z.size());
    for (std::size_t i = 0; i < ha.z.size(); ++i) {
      za[std::size_t(ha.id[i])] = ha.z[i] + ha.iz[i] * a->box().L[2];
      zb[std::size_t(hb.id[i])] = hb.z[i] + hb.iz[i] * b->box().L[2];
    }
    double worst = 0;
    for (std::size_t i = 0; i < za.size(); ++i) worst = std::max(worst, std::abs(za[i] - zb[i]));
    INFO((npt ? "npt" : "walls") << ": worst z difference " << worst);
    CHECK(worst < 1e-6);
    CHECK(b->thermo().conserved == Approx(a->thermo().conserved).epsilon(1e-9));
    CHECK(b->box().L[0] == Approx(a->box().L[0]).epsilon(1e-12));
    const auto ma = a->msd(), mb = b->msd();
    for (int k = 0; k < 3; ++k) CHECK(mb[std::size_t(k)] == Approx(ma[std::size_t(k)]).epsilon(1e-8));
  }
}
