// Kinetic-energy spectra: r2c FFTs with FFTW (host) or cuFFT (device), then shell sums on the host.
#include "tessera/weather_solver/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include <fftw3.h>

#include "tessera/core/buffer.hpp"
#include "tessera/core/error.hpp"

#if TESSERA_HAVE_CUDA
#include <cufft.h>
#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::weather {

namespace {

// |X|^2 of the r2c transform of a (ny rows of nx), accumulated into p (ny x (nx/2+1)).
void add_power_fftw(int64_t nx, int64_t ny, const std::vector<double>& a, std::vector<double>& p) {
  const int64_t nh = nx / 2 + 1;
  std::vector<double> in(a);
  fftw_complex* out = fftw_alloc_complex(size_t(ny * nh));
  TESSERA_REQUIRE(out != nullptr, "FFTW could not allocate the spectrum buffer");
  // FFTW's row-major n0 x n1 with n1 fastest: n0 = ny, n1 = nx
  fftw_plan plan = fftw_plan_dft_r2c_2d(int(ny), int(nx), in.data(), out, FFTW_ESTIMATE);
  fftw_execute(plan);
  for (int64_t m = 0; m < ny * nh; ++m) p[size_t(m)] += out[m][0] * out[m][0] + out[m][1] * out[m][1];
  fftw_destroy_plan(plan);
  fftw_free(out);
}

#if TESSERA_HAVE_CUDA
void add_power_cufft(int64_t nx, int64_t ny, const std::vector<double>& a, std::vector<double>& p) {
  const int64_t nh = nx / 2 + 1;
  Buffer<double> d_in(a.size(), MemKind::Device, "spectrum_in");
  Buffer<cufftDoubleComplex> d_out(size_t(ny * nh), MemKind::Device, "spectrum_out");
  copy_n(d_in.data(), MemKind::Device, a.data(), MemKind::Host, a.size());
  cufftHandle plan;
  if (cufftPlan2d(&plan, int(ny), int(nx), CUFFT_D2Z) != CUFFT_SUCCESS)
    TESSERA_THROW("cufftPlan2d(D2Z) failed for the kinetic-energy spectrum");
  const cufftResult r = cufftExecD2Z(plan, d_in.data(), d_out.data());
  cufftDestroy(plan);
  if (r != CUFFT_SUCCESS) TESSERA_THROW("cufftExecD2Z failed for the kinetic-energy spectrum");
  std::vector<cufftDoubleComplex> h(size_t(ny * nh));
  copy_n(h.data(), MemKind::Host, d_out.data(), MemKind::Device, h.size());
  for (size_t m = 0; m < h.size(); ++m) p[m] += h[m].x * h[m].x + h[m].y * h[m].y;
}
#endif

}  // namespace

std::vector<double> power_r2c(exec::Space space, int64_t nx, int64_t ny, const std::vector<double>& u,
                              const std::vector<double>& v) {
  TESSERA_REQUIRE(u.size() == size_t(nx * ny) && v.size() == u.size(), "spectrum input has the wrong size");
  std::vector<double> p(size_t(ny * (nx / 2 + 1)), 0.0);
  if (space == exec::Space::Device) {
#if TESSERA_HAVE_CUDA
    add_power_cufft(nx, ny, u, p);
    add_power_cufft(nx, ny, v, p);
    return p;
#else
    TESSERA_THROW("a GPU spectrum needs a CUDA build (cuFFT); run with --device cpu");
#endif
  }
  add_power_fftw(nx, ny, u, p);
  add_power_fftw(nx, ny, v, p);
  return p;
}

Spectrum kinetic_energy_spectrum(exec::Space space, int64_t nx, int64_t ny, double lx, double ly,
                                 const std::vector<double>& u, const std::vector<double>& v) {
  const std::vector<double> p = power_r2c(space, nx, ny, u, v);
  const int64_t nh = nx / 2 + 1;
  const double two_pi = 2 * std::numbers::pi;
  const double dk = two_pi / std::max(lx, ly);
  const double kmax = two_pi * std::hypot(double(nx / 2) / lx, double(ny / 2) / ly);
  const size_t nshell = size_t(std::floor(kmax / dk + 0.5)) + 1;
  Spectrum s;
  s.energy.assign(nshell, 0.0);
  for (size_t n = 0; n < nshell; ++n) s.k.push_back(double(n) * dk);
  const double norm = 1.0 / (double(nx * ny) * double(nx * ny));
  for (int64_t j = 0; j < ny; ++j) {
    const int64_t ky = j <= ny / 2 ? j : j - ny;
    for (int64_t i = 0; i < nh; ++i) {
      // the r2c half plane holds kx >= 0; columns 1 .. (nx-1)/2 stand for +kx and -kx
      const double weight = (i == 0 || (nx % 2 == 0 && i == nx / 2)) ? 1.0 : 2.0;
      const double kk = two_pi * std::hypot(double(i) / lx, double(ky) / ly);
      const size_t shell = std::min(nshell - 1, size_t(std::floor(kk / dk + 0.5)));
      s.energy[shell] += 0.5 * weight * p[size_t(j * nh + i)] * norm;
    }
  }
  return s;
}

}  // namespace tessera::weather
