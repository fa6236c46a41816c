#!/usr/bin/env python3
"""Plot an md thermo.csv: temperature, energies per atom, pressure and the integrator's conserved quantity.

    python3 postproc/md/plot_thermo.py out/lj/thermo.csv [-o thermo.png]

Also prints the drift of the conserved quantity (slope of a least-squares line, energy/time per atom),
the quantity the NVE validation bounds.
"""
import argparse

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read_csv(path):
    """Columns by name; leading '# ...' lines are comments (genfromtxt would take the first one for the header)."""
    with open(path) as f:
        skip = 0
        for line in f:
            if not line.startswith("#"):
                break
            skip += 1
    return np.genfromtxt(path, delimiter=",", names=True, skip_header=skip)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default=None, help="image file (default: next to the CSV)")
    a = ap.parse_args()
    d = read_csv(a.csv)
    t = d["time"]
    fig, ax = plt.subplots(2, 2, figsize=(10, 7), sharex=True)
    ax[0, 0].plot(t, d["temperature"])
    ax[0, 0].set_ylabel("temperature")
    for k in ("ke", "pe", "etotal"):
        ax[0, 1].plot(t, d[k], label=k)
    ax[0, 1].set_ylabel("energy per atom")
    ax[0, 1].legend()
    ax[1, 0].plot(t, d["pressure"])
    ax[1, 0].set_ylabel("pressure")
    if "volume" in d.dtype.names and np.ptp(d["volume"]) > 0:  # NPT: the volume on a second axis
        tv = ax[1, 0].twinx()
        tv.plot(t, d["volume"], "C1", lw=0.8)
        tv.set_ylabel("volume", color="C1")
    c = d["conserved"]
    ax[1, 1].plot(t, c - c[0])
    ax[1, 1].set_ylabel("conserved - conserved(0), per atom")
    for x in ax[1]:
        x.set_xlabel("time")
    if len(t) > 2:
        slope = np.polyfit(t, c, 1)[0]
        print(f"drift of the conserved quantity: {slope:.3e} energy/time per atom over {t[-1] - t[0]:g} time units")
        ax[1, 1].set_title(f"drift {slope:.2e} per atom per time unit")
    fig.tight_layout()
    out = a.output or a.csv.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
