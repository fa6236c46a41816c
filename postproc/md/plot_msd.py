#!/usr/bin/env python3
"""Plot an md msd.csv (mean-square displacement of unwrapped positions) on log-log axes and estimate the
self-diffusion coefficient from the Einstein relation MSD(t) ~ 6 D t (Allen & Tildesley, 2nd ed., eq. 2.112).

    python3 postproc/md/plot_msd.py out/lj/msd.csv [-o msd.png] [--fit-from 0.5]

D is the slope of a least-squares line through MSD(t) / 6 for t >= --fit-from (default: the second half of
the series, past the ballistic regime MSD = <v^2> t^2). Per-axis columns (msd_x, msd_y, msd_z) are drawn
too: they differ along a walled axis, where the MSD saturates at the slab width squared.
"""
import argparse

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_thermo import read_csv  # noqa: E402  (skips leading # comment lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default=None, help="image file (default: next to the CSV)")
    ap.add_argument("--fit-from", type=float, default=None, help="fit D for t >= this time")
    a = ap.parse_args()
    d = read_csv(a.csv)
    t, m = d["time"], d["msd"]
    keep = t > 0
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.loglog(t[keep], m[keep], "k-", label="MSD")
    for k in ("msd_x", "msd_y", "msd_z"):
        ax.loglog(t[keep], d[k][keep], "--", lw=0.8, label=k)
    t0 = a.fit_from if a.fit_from is not None else t[len(t) // 2]
    sel = t >= t0
    if sel.sum() >= 2:
        slope, icpt = np.polyfit(t[sel], m[sel], 1)
        D = slope / 6.0
        ax.loglog(t[sel], slope * t[sel] + icpt, "r:", label=f"6 D t + c, D = {D:.4g}")
        print(f"D = {D:.6g} length^2/time (fit for t >= {t0:g}, {sel.sum()} points)")
    ax.set_xlabel("time")
    ax.set_ylabel("mean-square displacement (length^2)")
    ax.legend()
    fig.tight_layout()
    out = a.output or a.csv.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
