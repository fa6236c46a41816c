#!/usr/bin/env python3
"""Dam break on a wet bed against Stoker's solution (cases/weather/dam_break.yaml).

usage: plot_dam_break.py OUTDIR [-o dam_break.png]
Plots the depth along the channel at the last output with Stoker's solution (mass and momentum conserved
across the bore) and the Riemann solution of the scheme's own conservation law (mass and u conserved),
and prints the relative L1 errors. The rarefaction fan is common to both.
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from weather_common import case_value, field_files, read

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from validation_record import all_passed, record  # noqa: E402


def riemann(g, hl, hr, momentum):
    def bore(h):
        return (h - hr) * (np.sqrt(g * (h + hr) / (2 * h * hr)) if momentum else np.sqrt(2 * g / (h + hr)))
    a, b = hr, hl
    for _ in range(200):
        c = 0.5 * (a + b)
        if 2 * (np.sqrt(g * hl) - np.sqrt(g * c)) - bore(c) > 0:
            a = c
        else:
            b = c
    hm = 0.5 * (a + b)
    um = 2 * (np.sqrt(g * hl) - np.sqrt(g * hm))
    s = hm * um / (hm - hr)

    def depth(xi):
        cl, cm = np.sqrt(g * hl), np.sqrt(g * hm)
        fan = (2 * cl - xi) ** 2 / (9 * g)
        return np.where(xi < -cl, hl, np.where(xi < um - cm, fan, np.where(xi < s, hm, hr)))
    return depth, hm


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default="dam_break.png")
    a = ap.parse_args()
    t, h, dx, _ = read(field_files(a.outdir)[-1], "depth")
    g = float(case_value(a.outdir, "physics.gravity", 9.81))
    hl = float(case_value(a.outdir, "initial.depth_left"))
    hr = float(case_value(a.outdir, "initial.depth_right"))
    x0 = float(case_value(a.outdir, "initial.dam_position")) * dx * h.shape[1]
    x = (np.arange(h.shape[1]) + 0.5) * dx
    row = h[h.shape[0] // 2]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(x, row, "k.", ms=3, label=f"weather, t = {t:g} s")
    # The checks of tests/weather/test_validation.cpp: Stoker's rarefaction fan (common to both jump
    # conditions) within 1 % (L1), and the plateau depth of the scheme's own conservation law within 1 %.
    cl = np.sqrt(g * hl)
    depth_v, hm_v = riemann(g, hl, hr, False)
    um = 2 * (cl - np.sqrt(g * hm_v))
    tail, shock = um - np.sqrt(g * hm_v), hm_v * um / (hm_v - hr)
    xr = x - x0
    fan = (xr > -cl * t + 10) & (xr < tail * t - 10)
    fan_err = np.abs(row[fan] - depth_v(xr[fan] / t)).sum() / np.abs(depth_v(xr[fan] / t) - hr).sum()
    record("dam break: rarefaction fan depth (relative L1)", f"{fan_err:.2e}", "Stoker", fan_err, 0.01)
    plat = (xr > tail * t + 20) & (xr < shock * t - 20)
    plateau = row[plat].mean()
    record("dam break: plateau depth h_m (relative)", f"{plateau:.4f}", f"{hm_v:.4f}", abs(plateau - hm_v) / hm_v,
           0.01, "m", "bore of the vector-invariant form (mass and u conserved), docs/weather.md")
    for momentum, style, name in [(True, "r-", "Stoker (momentum)"), (False, "b--", "mass + u conserved")]:
        depth, hm = riemann(g, hl, hr, momentum)
        exact = depth((x - x0) / t)
        err = np.abs(row - exact).sum() / np.abs(exact - hr).sum()
        ax.plot(x, exact, style, lw=1.2, label=f"{name}: h_m = {hm:.3f} m, L1 {err:.3f}")
        print(f"{name}: h_m = {hm:.4f} m, relative L1 error {err:.4f}")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("depth h [m]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.output, dpi=150)
    print(f"wrote {a.output}")
    sys.exit(0 if all_passed() else 1)


if __name__ == "__main__":
    main()
