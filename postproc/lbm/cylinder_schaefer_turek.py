#!/usr/bin/env python3
"""Schaefer & Turek (1996) 2D-1 (Re 20 cylinder in a channel): an `lbm` run of cases/lbm/cylinder2d.yaml
against the published ranges.

usage: cylinder_schaefer_turek.py OUTPUT_DIR [OUTPUT_DIR ...] [--png cylinder.png] [--strict]

For each output directory: C_D and C_L from forces.csv (mean over the last acoustic period of the channel,
4 L / c_s), dp = p(0.15, 0.2) - p(0.25, 0.2) and the recirculation length L_a from the last fields_*.h5
(same evaluation as tests/lbm/cylinder_metrics.hpp: the line y = 0.2 interpolates the two cell rows around
it; the surface points are extrapolated linearly from the two nearest fluid cells). Prints each quantity
with its relative error to the published range and draws C_D(t), C_L(t) and u_x on the line y = 0.2.
Exit status 1 with --strict when a value is outside its published range.
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tessera_io as tio  # noqa: E402
from validation_record import record  # noqa: E402

# Tolerances of the report: the relative distance to the published range. Issue 4 asks for dp and L_a
# inside their ranges: tolerance 0. With interpolated bounce-back (boundary.curved: interpolated, the
# default; Bouzidi et al. 2001) at 30 cells per diameter and lattice velocity 0.025 (the case file) C_D's
# remaining +0.28 % is the LBM's compressibility error (it falls as Mach^2: 5.593 extrapolated to Mach 0)
# plus the grid; docs/lbm.md has the figures per resolution and Mach number. C_L within 1 %: at D = 20
# linear Bouzidi walls give C_L -3.4 % (0.01004-0.01007 at D = 10 and 20, 0.01040-0.01044 at D = 30 and 40:
# a discretisation error of the wall closure; the force bookkeeping is exact, tests/lbm/test_lbm_force_balance.cpp). Half-way bounce-back
# (the staircase, first order) gets the looser tolerances that tests/lbm/test_lbm_cylinder.cpp had for it.
TOLERANCE = {"interpolated": {"C_D": 0.005, "C_L": 0.01, "dp": 0.0, "L_a": 0.0},
             "halfway": {"C_D": 0.04, "C_L": 0.20, "dp": 0.04, "L_a": 0.03}}
NOTE = {"interpolated": "interpolated bounce-back (Bouzidi), second order",
        "halfway": "staircase cylinder (half-way bounce-back), first order"}

RANGES = {"C_D": (5.57, 5.59), "C_L": (0.0104, 0.0110), "dp": (0.1172, 0.1176), "L_a": (0.0842, 0.0852)}


def forces(out):
    t, cd, cl = [], [], []
    with open(os.path.join(out, "forces.csv")) as f:
        for r in csv.DictReader(f):
            if r["body"] != "cylinder":
                continue
            t.append(float(r["time"]))
            cd.append(float(r["cd"]))
            cl.append(float(r["cl"]))
    return np.array(t), np.array(cd), np.array(cl)


def wall_model(out):
    """boundary.curved of the run: --set on its command line, else the case file, else the default."""
    try:
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
    except (OSError, ValueError):
        return "interpolated"
    for tok in str(run.get("command_line", "")).split():
        if tok.startswith("boundary.curved="):
            return tok.split("=", 1)[1]
    try:
        import yaml
        with open(run.get("case_file", "")) as f:
            case = yaml.safe_load(f)
        return case.get("boundary", {}).get("curved", "interpolated")
    except (OSError, ImportError, AttributeError):
        return "interpolated"


def metrics(fld):
    rho = fld["density"][0]            # [ny][nx]
    ux = fld["velocity"][0][..., 0]
    solid = fld["solid"][0] > 0.5
    dx = float(fld.spacing[0])
    dt = fld.time / fld.step           # s per step
    ny, nx = rho.shape
    yc = 0.2 / dx - 0.5
    j0 = int(math.floor(yc))
    wy = yc - j0

    def line(a, i):
        return (1 - wy) * a[j0, i] + wy * a[j0 + 1, i]

    def fluid(i):
        return not solid[j0, i] and not solid[j0 + 1, i]

    ps = (dx / dt) ** 2 / 3.0          # p = c_s^2 (rho - 1) (dx / dt)^2, rho_0 = 1

    def p_at(x, d):
        i = int(math.floor(x / dx - 0.5))
        if d < 0:
            while not fluid(i):
                i -= 1
        else:
            i += 1
            while not fluid(i):
                i += 1
        i2 = i + d
        x1, x2 = (i + 0.5) * dx, (i2 + 0.5) * dx
        p1, p2 = line(rho, i) - 1, line(rho, i2) - 1
        return ps * (p1 + (p2 - p1) * (x - x1) / (x2 - x1))

    dp = p_at(0.15, -1) - p_at(0.25, +1)
    i = int(math.floor(0.25 / dx - 0.5)) + 1
    while not fluid(i):
        i += 1
    while i + 1 < nx and line(ux, i + 1) < 0:
        i += 1
    u1, u2 = line(ux, i), line(ux, i + 1)
    xr = (i + 0.5) * dx + (dx * u1 / (u1 - u2) if u1 < 0 else 0.0)
    xs = (np.arange(nx) + 0.5) * dx
    prof = np.array([line(ux, k) for k in range(nx)])
    return dp, xr - 0.25, xs, prof, dx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outputs", nargs="+")
    ap.add_argument("--png", default="cylinder_schaefer_turek.png")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a value is outside its published range")
    a = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    bad = False
    for out in a.outputs:
        last = sorted(glob.glob(os.path.join(out, "fields_*.h5")))[-1]
        fld = tio.read_fields(last, ["density", "velocity", "solid"])
        dp, la, xs, prof, dx = metrics(fld)
        dt = fld.time / fld.step
        t, cd, cl = forces(out)
        period = 4.0 * math.sqrt(3.0) * fld.cells[0] * dt   # 4 L / c_s in seconds
        sel = t >= t[-1] - period
        vals = {"C_D": cd[sel].mean(), "C_L": cl[sel].mean(), "dp": dp, "L_a": la}
        wall = wall_model(out)
        label = f"D = {0.1 / dx:.0f} cells, u_lat = {0.3 * dt / dx:.2g}, {wall}"
        print(f"{out} ({label}, {fld.cells[0]}x{fld.cells[1]}, t = {fld.time:g} s):")
        for k, v in vals.items():
            lo, hi = RANGES[k]
            err = 0.0 if lo <= v <= hi else (v - hi) / hi if v > hi else (v - lo) / lo
            bad |= err != 0.0
            print(f"  {k:4s} = {v:.5g}   published [{lo}, {hi}]   error to range {100 * err:+.2f} %")
            record(f"Schaefer-Turek 2D-1, {label}: {k} (relative distance to the published range)", f"{v:.5g}",
                   f"[{lo}, {hi}]", err, TOLERANCE[wall][k], note=NOTE[wall])
        ax[0].plot(t, cd, label=label)
        ax[1].plot(t, cl, label=label)
        ax[2].plot(xs, prof / 0.3, label=label)
    ax[0].axhspan(*RANGES["C_D"], color="0.8")
    ax[0].set_ylim(5.0, 6.5)
    ax[1].axhspan(*RANGES["C_L"], color="0.8")
    ax[1].set_ylim(0.0, 0.03)
    ax[2].axvline(0.25, color="0.5")
    ax[2].axvline(0.25 + sum(RANGES["L_a"]) / 2, color="0.5", ls="--")
    ax[2].set_xlim(0.0, 0.6)
    for x, t_ in zip(ax, ["C_D(t)", "C_L(t)", "u_x / U_max on y = 0.2"]):
        x.set_title(t_)
        x.legend()
    ax[0].set_xlabel("t (s)")
    ax[1].set_xlabel("t (s)")
    ax[2].set_xlabel("x (m)")
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)
    print(f"plot: {a.png}")
    return 1 if (bad and a.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
