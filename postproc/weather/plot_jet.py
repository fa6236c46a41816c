#!/usr/bin/env python3
"""Barotropically unstable jet (cases/weather/unstable_jet.yaml): relative vorticity at up to six
output times, showing the roll-up into vortices.

usage: plot_jet.py OUTDIR [-o unstable_jet.png]
"""
import argparse

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from weather_common import field_files, read


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default="unstable_jet.png")
    a = ap.parse_args()
    files = field_files(a.outdir)
    pick = [files[int(round(i))] for i in np.linspace(0, len(files) - 1, min(6, len(files)))]
    fig, axes = plt.subplots(len(pick), 1, figsize=(8, 2.2 * len(pick)), squeeze=False)
    vmax = max(np.abs(read(p, "vorticity")[1]).max() for p in pick)
    for ax, p in zip(axes[:, 0], pick):
        t, z, dx, dy = read(p, "vorticity")
        ny, nx = z.shape
        im = ax.imshow(z, origin="lower", extent=[0, nx * dx / 1e3, 0, ny * dy / 1e3], cmap="RdBu_r",
                       vmin=-vmax, vmax=vmax, aspect="auto")
        ax.set_title(f"relative vorticity, t = {t / 86400:.2f} d", fontsize=9)
        ax.set_ylabel("y [km]")
        fig.colorbar(im, ax=ax, label="1/s")
    axes[-1, 0].set_xlabel("x [km]")
    fig.tight_layout()
    fig.savefig(a.output, dpi=130)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
