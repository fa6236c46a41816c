// Kinetic-energy spectra: a single Fourier mode lands in its shell with energy A^2/4, Parseval holds
// for random fields, and cuFFT on the GPU matches FFTW on the host.
#include <cmath>
#include <numbers>

#include "catch_compat.hpp"
#include "tessera/weather_solver/spectrum.hpp"
#include "weather_test_util.hpp"

using namespace tessera;
using namespace tessera::weather;

TEST_CASE("spectrum of one Fourier mode", "[weather][spectrum]") {
  const int64_t nx = 32, ny = 24;
  const double lx = 3.2e6, ly = 2.4e6, A = 3.0;
  const int m = GENERATE(1, 5, 11);
  std::vector<double> u(size_t(nx * ny)), v(u.size(), 0.0);
  for (int64_t j = 0; j < ny; ++j)
    for (int64_t i = 0; i < nx; ++i)
      u[size_t(i + nx * j)] = A * std::cos(2 * std::numbers::pi * m * (double(i) + 0.5) / double(nx) + 0.4);
  const Spectrum s = kinetic_energy_spectrum(exec::Space::Host, nx, ny, lx, ly, u, v);
  const double dk = 2 * std::numbers::pi / std::max(lx, ly);
  const size_t shell = size_t(std::lround(2 * std::numbers::pi * m / lx / dk));
  double rest = 0;
  for (size_t n = 0; n < s.energy.size(); ++n)
    if (n != shell) rest += std::abs(s.energy[n]);
  CHECK(s.energy[shell] == Approx(A * A / 4).epsilon(1e-12));
  CHECK(rest < 1e-12 * A * A);
  CHECK(s.k[shell] == Approx(double(shell) * dk));
}

TEST_CASE("spectrum sums to the mean kinetic energy (Parseval)", "[weather][spectrum]") {
  const int64_t nx = 30, ny = 17;  // odd and even sizes
  const auto u = weather::test::random_field(size_t(nx * ny), -1, 1, 3), v = weather::test::random_field(size_t(nx * ny), -1, 1, 4);
  const Spectrum s = kinetic_energy_spectrum(exec::Space::Host, nx, ny, 1.0, 0.6, u, v);
  double total = 0, mean = 0;
  for (double e : s.energy) total += e;
  for (size_t n = 0; n < u.size(); ++n) mean += 0.5 * (u[n] * u[n] + v[n] * v[n]);
  mean /= double(u.size());
  CHECK(total == Approx(mean).epsilon(1e-12));
}

TEST_CASE("cuFFT spectrum matches FFTW", "[weather][spectrum][gpu]") {
  TESSERA_GPU_TEST();
  const int64_t nx = 384, ny = 250;
  const auto u = weather::test::random_field(size_t(nx * ny), -1, 1, 5), v = weather::test::random_field(size_t(nx * ny), -1, 1, 6);
  const auto ph = power_r2c(exec::Space::Host, nx, ny, u, v);
  const auto pd = power_r2c(exec::Space::Device, nx, ny, u, v);
  REQUIRE(ph.size() == pd.size());
  double err = 0, scale = 0;
  for (size_t n = 0; n < ph.size(); ++n) {
    err = std::max(err, std::abs(ph[n] - pd[n]));
    scale = std::max(scale, std::abs(ph[n]));
  }
  CHECK(err < 1e-11 * scale);
}
