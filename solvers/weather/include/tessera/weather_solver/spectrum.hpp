// Kinetic-energy spectrum of a horizontal velocity field on a doubly periodic grid.
//
// With u_hat(k) = sum_x u(x) exp(-i k.x) / N (N = nx ny), the shell spectrum is
//   E(K) = sum over |k| in [K - dk/2, K + dk/2) of (|u_hat|^2 + |v_hat|^2) / 2,   dk = 2 pi / max(Lx, Ly),
// so that sum_K E(K) = mean of (u^2 + v^2)/2 over the grid (Parseval). Real-to-complex transforms of
// size nx x ny: FFTW on the host, cuFFT on the GPU (same plan shape, so results agree to rounding).
// Walled axes are transformed as if periodic (a diagnostic; the wall discontinuity leaks some energy
// to high wavenumbers).
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/core/exec.hpp"

namespace tessera::weather {

struct Spectrum {
  std::vector<double> k;       // shell centre wavenumber [rad/m]
  std::vector<double> energy;  // E(K) [m^2/s^2]
};

// u, v: nx*ny host arrays, x fastest (cell-centred velocities). space: where the FFT runs
// (Device uses cuFFT and needs a CUDA build; the arrays are copied to the GPU and back).
Spectrum kinetic_energy_spectrum(exec::Space space, int64_t nx, int64_t ny, double lx, double ly,
                                 const std::vector<double>& u, const std::vector<double>& v);

// |u_hat|^2 + |v_hat|^2 on the r2c half plane (ny rows of nx/2+1), for tests.
std::vector<double> power_r2c(exec::Space space, int64_t nx, int64_t ny, const std::vector<double>& u,
                              const std::vector<double>& v);

}  // namespace tessera::weather
