#!/usr/bin/env python3
"""Conservation diagnostics of a weather run: relative change of mass, energy and potential enstrophy
against time (diagnostics.csv).

usage: plot_diagnostics.py OUTDIR [-o diagnostics.png]
"""
import argparse

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from weather_common import diagnostics


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default="diagnostics.png")
    a = ap.parse_args()
    d = diagnostics(a.outdir)
    fig, ax = plt.subplots(figsize=(7, 4))
    for key in ["mass", "energy", "enstrophy"]:
        rel = (d[key] - d[key][0]) / abs(d[key][0])
        ax.plot(d["time"], np.abs(rel) + 1e-17, label=key)
        print(f"{key}: final relative change {rel[-1]:.3e}")
    ax.set_yscale("log")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("|relative change|")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.output, dpi=150)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
