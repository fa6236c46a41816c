#!/usr/bin/env python3
"""Plot an md thermo.csv: temperature, energies per atom, pressure and the integrator's conserved quantity.

    python3 postproc/md/plot_thermo.py out/lj/thermo.csv [-o thermo.png]

Also prints the drift of the conserved quantity (slope of a least-squares line, energy/time per atom),
the quantity the NVE validation bounds.
"""
import argparse
import os
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from validation_record import all_passed, record  # noqa: E402


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
    ap.add_argument("--max-drift", type=float, default=None,
                    help="fail (exit 1) when |drift of the conserved quantity| exceeds this (energy/time per atom)")
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
        if a.max_drift is not None:
            record(f"conserved quantity: drift per atom over {t[-1] - t[0]:g} time units", f"{slope:.2e}", "0",
                   slope, a.max_drift, "energy/time", "least-squares slope of thermo.csv")
    fig.tight_layout()
    out = a.output or a.csv.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=120)
    print("wrote", out)
    sys.exit(0 if all_passed() else 1)


if __name__ == "__main__":
    main()
