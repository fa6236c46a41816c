// Validation of the weather model against exact solutions (CTest label "validation"):
//   lake at rest over topography, dam break against Stoker, inertia-gravity wave against the discrete
//   dispersion relation, geostrophic adjustment against the balanced end state (FFT, mode by mode),
//   mass conservation and third-order energy drift, the barotropically unstable jet.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include <fftw3.h>
#include <fmt/format.h>
#include <mpi.h>

#include "catch_compat.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/weather_solver/config.hpp"
#include "tessera/weather_solver/model.hpp"

using namespace tessera;
using namespace tessera::weather;

namespace {
constexpr double pi = std::numbers::pi;

std::unique_ptr<Model> make_model(const std::string& yaml, const std::vector<std::string>& ov = {}) {
  const Config k = read_config(case_from_string(yaml, ov));
  auto m = std::make_unique<Model>(MPI_COMM_SELF, k, exec::Exec(exec::Space::Host));
  m->initialise();
  return m;
}
std::vector<double> global(Model& m, domain::Field<double>& f) { return domain::gather_to_root(m.decomposition(), f); }

// Dam break on a wet bed: rarefaction into a bore. Stoker (1957) closes the bore with mass and
// momentum (hu) conservation; the vector-invariant scheme conserves mass and u (flux g h + u^2/2)
// instead, whose Rankine-Hugoniot condition gives u_m = (h_m - h_r) sqrt(2 g / (h_m + h_r)).
// Both share the rarefaction fan.
struct DamBreak {
  double g, hl, hr, hm, um, s;
  DamBreak(double g_, double hl_, double hr_, bool momentum) : g(g_), hl(hl_), hr(hr_) {
    auto f = [&](double h) {  // rarefaction velocity minus bore velocity behind the bore
      const double ur = 2 * (std::sqrt(g * hl) - std::sqrt(g * h));
      const double us = momentum ? (h - hr) * std::sqrt(g * (h + hr) / (2 * h * hr)) : (h - hr) * std::sqrt(2 * g / (h + hr));
      return ur - us;
    };
    double a = hr, b = hl;
    for (int it = 0; it < 200; ++it) {
      const double c = 0.5 * (a + b);
      (f(c) > 0 ? a : b) = c;
    }
    hm = 0.5 * (a + b);
    um = 2 * (std::sqrt(g * hl) - std::sqrt(g * hm));
    s = hm * um / (hm - hr);
  }
  double tail() const { return um - std::sqrt(g * hm); }  // end of the fan, in x/t
  double depth(double xi) const {
    const double cl = std::sqrt(g * hl);
    if (xi < -cl) return hl;
    if (xi < tail()) return std::pow(2 * cl - xi, 2) / (9 * g);
    if (xi < s) return hm;
    return hr;
  }
};
}  // namespace

TEST_CASE("lake at rest over topography stays at rest to round-off", "[weather][validation]") {
  auto m = make_model(R"(
grid: {cells: [48, 40], length: [4.8e5, 4.0e5], boundary_x: wall, boundary_y: periodic}
physics: {f0: 1.0e-4}
initial: {type: lake_at_rest, depth: 100.0}
topography: {type: gaussian, height: 60.0, width: 8.0e4}
time: {end: 1.0e9, max_steps: 300}
)");
  for (int s = 0; s < 300; ++s) m->step(m->stable_dt());
  const auto h = global(*m, m->state().h), b = global(*m, m->topography());
  const auto u = global(*m, m->state().u), v = global(*m, m->state().v);
  double eta_err = 0, umax = 0;
  for (size_t n = 0; n < h.size(); ++n) {
    eta_err = std::max(eta_err, std::abs(h[n] + b[n] - 100.0));
    umax = std::max({umax, std::abs(u[n]), std::abs(v[n])});
  }
  INFO("max |eta - H| = " << eta_err << " m, max |u| = " << umax << " m/s after 300 steps");
  CHECK(eta_err < 1e-11);
  CHECK(umax < 1e-11);
}

TEST_CASE("dam break on a wet bed: Stoker's rarefaction, and the bore of the scheme's conservation law", "[weather][validation]") {
  const double hl = 10, hr = 2, t_end = 30, dx = 2;
  auto m = make_model(R"(
grid: {cells: [500, 3], length: [1000.0, 6.0], boundary_x: wall, boundary_y: periodic}
initial: {type: dam_break, depth_left: 10.0, depth_right: 2.0, dam_position: 0.5}
time: {end: 30.0, cfl: 0.4}
damping: {coefficient: 0.01}
)");
  while (m->time < t_end) m->step(std::min(m->stable_dt(), t_end - m->time));
  const DamBreak stoker(9.81, hl, hr, true), vi(9.81, hl, hr, false);
  const auto h = global(*m, m->state().h);
  double fan_err = 0, fan_ref = 0, plateau = 0;
  int np = 0;
  for (int64_t i = 0; i < m->config().nx; ++i) {
    const double x = (double(i) + 0.5) * dx - 500.0, hi = h[size_t(i)];
    if (x > -std::sqrt(9.81 * hl) * t_end + 10 && x < vi.tail() * t_end - 10) {  // inside the fan
      fan_err += std::abs(hi - stoker.depth(x / t_end));
      fan_ref += std::abs(stoker.depth(x / t_end) - hr);
    }
    if (x > vi.tail() * t_end + 20 && x < vi.s * t_end - 20) {
      plateau += hi;
      ++np;
    }
  }
  plateau /= np;
  INFO("fan: relative L1 error " << fan_err / fan_ref << "; plateau " << plateau << " m against " << vi.hm
                                  << " m (u-conserving bore) and " << stoker.hm << " m (Stoker, momentum-conserving)");
  CHECK(fan_err / fan_ref < 0.01);
  CHECK(std::abs(plateau - vi.hm) < 0.01 * vi.hm);
}

TEST_CASE("inertia-gravity wave follows the discrete dispersion relation", "[weather][validation]") {
  // eta = H + a cos(k x), at rest: eta(t) = H + a cos(k x) (f^2 C^2 + g H K^2 cos(w t)) / w^2 with
  // w^2 = f^2 C^2 + g H K^2, C = cos(k dx/2), K = 2 sin(k dx/2)/dx (C-grid, energy-conserving Coriolis)
  const double f = 1e-3, H = 100, g = 9.81, a = 1e-4, L = 64000, dx = 1000;
  const int kx = GENERATE(2, 12);
  auto m = make_model(R"(
grid: {cells: [64, 2], length: [64000.0, 2000.0]}
physics: {f0: 1.0e-3}
initial: {type: wave, depth: 100.0, amplitude: 1.0e-4}
time: {end: 1.0e9, cfl: 0.1}
)",
                      {fmt::format("initial.wave_number=[{}, 0]", kx)});
  const double k = 2 * pi * kx / L, C = std::cos(0.5 * k * dx), K = 2 * std::sin(0.5 * k * dx) / dx;
  const double w = std::sqrt(f * f * C * C + g * H * K * K);
  const double t_end = 2 * (2 * pi / w);
  double err = 0;
  while (m->time < t_end) {
    m->step(std::min(m->stable_dt(), t_end - m->time));
    const auto h = global(*m, m->state().h);
    const double x0 = 0.5 * dx;
    const double ex = a * std::cos(k * x0) * (f * f * C * C + g * H * K * K * std::cos(w * m->time)) / (w * w);
    err = std::max(err, std::abs(h[0] - H - ex));
  }
  INFO("kx = " << kx << ": omega = " << w << " 1/s, max error " << err / a << " of the amplitude over 2 periods");
  CHECK(err < 2e-3 * a);
}

TEST_CASE("geostrophic adjustment reaches the balanced state of its potential vorticity", "[weather][validation]") {
  // Linear PV q = zeta - f C eta'/H is conserved mode by mode, so the balanced end state is
  //   eta_f(k) = eta_0(k) f^2 C^2 / (f^2 C^2 + g H K^2)    (see docs/weather.md)
  // The model's time average (Hann window over 8 inertial periods) filters the inertia-gravity waves.
  const int64_t n = 40;
  const double f = 1e-4, H = 40, g = 9.81, L = 40 * 25000.0, dx = 25000;  // deformation radius 198 km
  auto m = make_model(R"(
grid: {cells: [40, 40], length: [1.0e6, 1.0e6]}
physics: {f0: 1.0e-4}
initial: {type: gaussian, depth: 40.0, amplitude: 0.001, width: 1.0e5}
time: {end: 1.0e9, cfl: 0.5}
)");
  const auto eta0 = global(*m, m->state().h);
  std::vector<double> avg(eta0.size(), 0.0);
  double wsum = 0;
  const double T = 8 * 2 * pi / f;
  while (m->time < T) {
    m->step(std::min(m->stable_dt(), T - m->time));
    const double wgt = std::pow(std::sin(pi * m->time / T), 2);
    const auto h = global(*m, m->state().h);
    for (size_t q = 0; q < h.size(); ++q) avg[q] += wgt * h[q];
    wsum += wgt;
  }
  for (auto& x : avg) x = x / wsum - H;
  // balanced state by FFT
  std::vector<double> in(eta0.size());
  for (size_t q = 0; q < in.size(); ++q) in[q] = eta0[q] - H;
  const int64_t nh = n / 2 + 1;
  std::vector<std::complex<double>> spec(size_t(n * nh));
  fftw_plan fw = fftw_plan_dft_r2c_2d(int(n), int(n), in.data(), reinterpret_cast<fftw_complex*>(spec.data()), FFTW_ESTIMATE);
  fftw_execute(fw);
  fftw_destroy_plan(fw);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < nh; ++i) {
      const int64_t ky = j <= n / 2 ? j : j - n;
      const double kxp = 2 * pi * double(i) / L, kyp = 2 * pi * double(ky) / L;
      const double C = std::cos(0.5 * kxp * dx) * std::cos(0.5 * kyp * dx);
      const double K2 = std::pow(2 * std::sin(0.5 * kxp * dx) / dx, 2) + std::pow(2 * std::sin(0.5 * kyp * dx) / dx, 2);
      spec[size_t(j * nh + i)] *= f * f * C * C / (f * f * C * C + g * H * K2) / double(n * n);
    }
  std::vector<double> bal(in.size());
  fftw_plan bw = fftw_plan_dft_c2r_2d(int(n), int(n), reinterpret_cast<fftw_complex*>(spec.data()), bal.data(), FFTW_ESTIMATE);
  fftw_execute(bw);
  fftw_destroy_plan(bw);
  double err = 0, peak = 0, peak0 = 0;
  for (size_t q = 0; q < bal.size(); ++q) {
    err = std::max(err, std::abs(avg[q] - bal[q]));
    peak = std::max(peak, std::abs(bal[q]));
    peak0 = std::max(peak0, std::abs(in[q]));
  }
  INFO("balanced peak " << peak << " m (initial " << peak0 << " m), max |<eta> - eta_balanced| = " << err << " m");
  CHECK(peak < 0.6 * peak0);  // a real adjustment: much of the bump radiated away
  CHECK(peak > 0.05 * peak0);  // and a real balanced remainder
  CHECK(err < 0.02 * peak);
}

TEST_CASE("mass is conserved to round-off and energy drifts at third order in dt", "[weather][validation]") {
  const char* yaml = R"(
grid: {cells: [40, 40], length: [4.0e5, 4.0e5]}
physics: {f0: 1.0e-4}
initial: {type: gaussian, depth: 100.0, amplitude: 30.0, width: 5.0e4}
topography: {type: gaussian, height: 20.0, width: 8.0e4}
time: {end: 1.0e9}
)";
  double drift[2];
  for (int r = 0; r < 2; ++r) {
    const double dt = r == 0 ? 240.0 : 120.0;  // Courant about 0.8 and 0.4
    auto m = make_model(yaml, {fmt::format("time.dt={}", dt)});
    const SwIntegrals i0 = m->integrals();
    while (m->time < 4800.0 - 1e-9) m->step(dt);
    const SwIntegrals i1 = m->integrals();
    INFO("dt " << dt << ": mass drift " << (i1.mass - i0.mass) / i0.mass);
    CHECK(std::abs(i1.mass - i0.mass) < 1e-13 * i0.mass);
    drift[r] = std::abs(i1.energy - i0.energy) / i0.energy;
  }
  const double order = std::log2(drift[0] / drift[1]);
  INFO("relative energy drift " << drift[0] << " (dt) and " << drift[1] << " (dt/2): order " << order);
  CHECK(drift[1] > 1e-12);  // well above round-off, so the order is measured
  CHECK(order > 2.6);
  CHECK(order < 3.6);
}

TEST_CASE("barotropically unstable jet on a beta-plane channel rolls up", "[weather][validation]") {
  auto m = make_model(R"(
grid: {cells: [80, 40], length: [2.0e6, 1.0e6], boundary_x: periodic, boundary_y: wall}
physics: {f0: 1.0e-4, beta: 1.6e-11}
initial: {type: jet, depth: 1000.0, jet_speed: 40.0, jet_width: 1.0e5, perturbation: 2.0}
time: {end: 1.0e9, cfl: 0.5}
damping: {coefficient: 0.002}
)");
  auto eddy = [&]() {  // kinetic energy of the meridional velocity (zero in the unperturbed jet)
    const auto v = global(*m, m->state().v);
    double s = 0;
    for (double x : v) s += x * x;
    return s;
  };
  m->step(m->stable_dt());
  const double e0 = eddy();
  const SwIntegrals i0 = m->integrals();
  // Growth is exponential after about a day: e(1.5 d) / e(1 d) measured 130 (Arakawa-Lamb) and 119
  // (Sadourny energy), the same instability. Before that the energy-only scheme adds an early burst
  // (x71 in the first half day against x13), so the total growth by day 1 (3177 against 57) says more
  // about the scheme's grid noise than the instability: check the exponential phase and the total.
  auto run_to = [&](double days) {
    while (m->time < days * 86400) m->step(std::min(m->stable_dt(), days * 86400 - m->time));
  };
  run_to(1.0);
  const double e1 = eddy();
  run_to(1.5);
  const double e2 = eddy();
  const SwIntegrals i1 = m->integrals();
  INFO("meridional kinetic energy grew by " << e1 / e0 << " (1 day), " << e2 / e1 << " (the next half day); energy change "
                                            << (i1.energy - i0.energy) / i0.energy);
  CHECK(e2 > 1000 * e0);
  CHECK(e2 > 30 * e1);
  CHECK(std::abs(i1.mass - i0.mass) < 1e-12 * i0.mass);
}
