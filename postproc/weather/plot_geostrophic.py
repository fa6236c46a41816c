#!/usr/bin/env python3
"""Linear geostrophic adjustment (cases/weather/geostrophic_adjustment.yaml): the Hann-weighted time mean
of the surface against the balanced end state of the initial potential vorticity, computed mode by mode:
  eta_f(k) = eta_0(k) f^2 C^2 / (f^2 C^2 + g H K^2),  C = cos(kx dx/2) cos(ky dy/2),
  K^2 = (2 sin(kx dx/2)/dx)^2 + (2 sin(ky dy/2)/dy)^2        (C-grid, docs/weather.md)

usage: plot_geostrophic.py OUTDIR [-o geostrophic.png]
"""
import argparse

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from weather_common import case_value, field_files, read


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default="geostrophic.png")
    a = ap.parse_args()
    files = field_files(a.outdir)
    g = float(case_value(a.outdir, "physics.gravity", 9.81))
    f0 = float(case_value(a.outdir, "physics.f0"))
    H = float(case_value(a.outdir, "initial.depth"))
    t0, eta0, dx, dy = read(files[0], "surface")
    T = read(files[-1], "surface")[0]
    mean, wsum = 0.0, 0.0
    for p in files[1:]:
        t, eta, _, _ = read(p, "surface")
        w = np.sin(np.pi * t / T) ** 2
        mean, wsum = mean + w * (eta - H), wsum + w
    mean /= wsum
    ny, nx = eta0.shape
    kx = 2 * np.pi * np.fft.rfftfreq(nx, dx)
    ky = 2 * np.pi * np.fft.fftfreq(ny, dy)
    KX, KY = np.meshgrid(kx, ky)
    C = np.cos(0.5 * KX * dx) * np.cos(0.5 * KY * dy)
    K2 = (2 * np.sin(0.5 * KX * dx) / dx) ** 2 + (2 * np.sin(0.5 * KY * dy) / dy) ** 2
    bal = np.fft.irfft2(np.fft.rfft2(eta0 - H) * f0**2 * C**2 / (f0**2 * C**2 + g * H * K2), s=eta0.shape)
    print(f"max |<eta> - eta_balanced| = {np.abs(mean - bal).max():.3e} m of {np.abs(bal).max():.3e} m "
          f"(time mean over {len(files) - 1} outputs: the inertia-gravity waves are not fully averaged out)")
    x = (np.arange(nx) + 0.5) * dx / 1e3
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(x, (eta0 - H)[ny // 2], "k:", label="initial")
    ax.plot(x, bal[ny // 2], "r-", label="balanced (PV inversion)")
    ax.plot(x, mean[ny // 2], "b.", label="weather, time mean")
    ax.set_xlabel("x [km]")
    ax.set_ylabel("eta - H [m]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.output, dpi=150)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
