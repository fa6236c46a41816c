// Initial states of the weather cases.
#include "tessera/weather_solver/initial.hpp"

#include <cmath>
#include <numbers>

namespace tessera::weather {

namespace {
constexpr double pi = std::numbers::pi;

// splitmix64: a reproducible hash of (seed, i, j) -> [0, 1), independent of the decomposition
double hash01(uint64_t seed, int64_t i, int64_t j) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + uint64_t(i) * 0xBF58476D1CE4E5B9ull + uint64_t(j) * 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53;
}

// Jet: u(y) = U exp(-((y - Ly/2)/w)^2); geostrophic balance f u = -g d(eta)/dy gives
// eta(y) = depth - (U / g) int_{Ly/2}^{y} f(y') exp(-((y' - Ly/2)/w)^2) dy'. With f = f0 + beta (y - Ly/2):
//   int f0 e^{-s^2/w^2} ds = f0 w sqrt(pi)/2 erf(s/w),  int beta s e^{-s^2/w^2} ds = -beta w^2/2 (e^{-s^2/w^2} - 1).
double jet_eta(const Config& k, double y) {
  const double s = y - 0.5 * k.ly, w = k.jet_width;
  const double i0 = k.phys.f0 * w * std::sqrt(pi) * 0.5 * std::erf(s / w);
  const double i1 = -k.phys.beta * w * w * 0.5 * (std::exp(-s * s / (w * w)) - 1.0);
  return k.depth - k.jet_speed / k.phys.gravity * (i0 + i1);
}
}  // namespace

double topography_at(const Config& k, int64_t i, int64_t j) {
  const double x = (double(i) + 0.5) * k.dx, y = (double(j) + 0.5) * k.dy;
  const double xc = 0.5 * k.lx, yc = 0.5 * k.ly, w = k.topo_width;
  if (k.topography == "gaussian") return k.topo_height * std::exp(-((x - xc) * (x - xc) + (y - yc) * (y - yc)) / (w * w));
  if (k.topography == "ridge") return k.topo_height * std::exp(-((x - xc) * (x - xc)) / (w * w));
  if (k.topography == "random") return k.topo_height * hash01(k.topo_seed, i, j);
  return 0.0;
}

double surface_at(const Config& k, int64_t i, int64_t j) {
  const double x = (double(i) + 0.5) * k.dx, y = (double(j) + 0.5) * k.dy;
  if (k.initial == "dam_break") return x < k.dam_position * k.lx ? k.depth_left : k.depth_right;
  if (k.initial == "gaussian") {
    const double dx = x - k.center_x * k.lx, dy = y - k.center_y * k.ly;
    return k.depth + k.amplitude * std::exp(-(dx * dx + dy * dy) / (k.width * k.width));
  }
  if (k.initial == "wave")
    return k.depth + k.amplitude * std::cos(2 * pi * (double(k.wave_kx) * x / k.lx + double(k.wave_ky) * y / k.ly));
  if (k.initial == "jet") {
    // Galewsky et al. (2004, Tellus 56A, 429) style: a localised bump on the balanced jet triggers the
    // barotropic instability
    const double dx = x - 0.25 * k.lx, dy = y - 0.5 * k.ly;
    const double bump = k.perturbation * std::exp(-(dx * dx) / (0.01 * k.lx * k.lx) - (dy * dy) / (k.jet_width * k.jet_width));
    return jet_eta(k, y) + bump;
  }
  return k.depth;  // lake at rest
}

double u_at(const Config& k, int64_t /*i*/, int64_t j) {
  if (k.initial != "jet") return 0.0;
  const double s = (double(j) + 0.5) * k.dy - 0.5 * k.ly;
  return k.jet_speed * std::exp(-(s * s) / (k.jet_width * k.jet_width));
}

double v_at(const Config& /*k*/, int64_t /*i*/, int64_t /*j*/) { return 0.0; }

}  // namespace tessera::weather
