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

from weather_common import geostrophic_adjustment


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default="geostrophic.png")
    a = ap.parse_args()
    files, eta0, mean, bal, dx = geostrophic_adjustment(a.outdir)
    ny, nx = eta0.shape
    print(f"max |<eta> - eta_balanced| = {np.abs(mean - bal).max():.3e} m of {np.abs(bal).max():.3e} m "
          f"(time mean over {len(files) - 1} outputs: the inertia-gravity waves are not fully averaged out)")
    x = (np.arange(nx) + 0.5) * dx / 1e3
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(x, eta0[ny // 2], "k:", label="initial")
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
