#!/usr/bin/env python3
"""Kinetic-energy spectra written with each field output (spectrum_<step>.csv), log-log, with a k^-3
reference slope (two-dimensional enstrophy cascade).

usage: plot_spectrum.py OUTDIR [-o spectrum.png]
"""
import argparse
import glob
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default="spectrum.png")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.outdir, "spectrum_*.csv")))
    if not files:
        raise SystemExit(f"no spectrum_*.csv in {a.outdir} (output.spectrum: true writes them)")
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for p in files:
        with open(p) as fh:
            t = float(fh.readline().split("=")[1].split()[0])
        k, e = np.loadtxt(p, delimiter=",", skiprows=2, unpack=True)
        ok = (k > 0) & (e > 0)
        ax.loglog(k[ok], e[ok], label=f"t = {t:g} s")
    kk = np.array(ax.get_xlim())
    ax.loglog(kk, e[ok].max() * (kk / kk[0]) ** -3, "k:", label="k^-3")
    ax.set_xlabel("k [rad/m]")
    ax.set_ylabel("E(k) [m^2/s^2]")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.output, dpi=150)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
