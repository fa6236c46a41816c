#!/usr/bin/env python3
"""Couette flow: the velocity profile of an `lbm cases/lbm/couette.yaml` run against u(y) = U y / H.

usage: couette.py OUTPUT_DIR [--png couette.png] [--tol 1e-6]
Reads the last step of OUTPUT_DIR/line_profile.csv (the case's line sample across the gap, nearest-cell
values), takes U and H from the case (the moving wall's velocity and the box height), prints the maximum
error relative to U and draws the comparison plot. Exit status 1 when the error exceeds --tol.
"""
import argparse
import csv
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tessera_io as tio  # noqa: E402
from validation_record import all_passed, pyplot, record, save_plot  # noqa: E402


def case_of(outdir):
    """The resolved case (dict) stored in the run's field files."""
    import yaml
    files = sorted(glob.glob(os.path.join(outdir, "fields_*.h5")))
    if not files:
        sys.exit(f"no fields_*.h5 in {outdir}: run `lbm cases/lbm/couette.yaml -o {outdir}` first")
    return yaml.safe_load(tio.read_fields(files[-1], []).case_text)


def last_rows(path):
    rows = [r for r in csv.reader(l for l in open(path) if l[:1].isdigit())]
    last = max(int(r[0]) for r in rows)
    return np.array([[float(x) for x in r] for r in rows if int(r[0]) == last]), last


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir")
    p.add_argument("--png", default="couette.png")
    p.add_argument("--tol", type=float, default=1e-6)
    a = p.parse_args()
    c = case_of(a.outdir)
    cells, length = c["domain"]["cells"], float(c["domain"]["length"])
    H = length / cells[0] * cells[1]
    U = float(c["boundary"]["y_max"]["velocity"][0])
    d, step = last_rows(os.path.join(a.outdir, "line_profile.csv"))
    # columns: step,time,s,x,y,z,i,j,k,rho,ux,uy,uz; the value is the cell's, at the cell centre (j + 1/2) dx
    dx = length / cells[0]
    yc = (d[:, 7] + 0.5) * dx
    exact = U * yc / H
    err = np.max(np.abs(d[:, 10] - exact)) / U
    print(f"Couette, H = {cells[1]} cells, step {step}: max |u - U y/H| = {err:.2e} U")
    record("Couette: max |u - U y/H| / U", f"{err:.2e}", "0 (linear profile)", err, a.tol)
    plt = pyplot()
    if plt:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4.5))
        yy = np.linspace(0, H, 50)
        ax[0].plot(U * yy / H, yy, "-", label="U y / H")
        ax[0].plot(d[:, 10], yc, "o", mfc="none", label="lbm (line sample)")
        ax[0].set_xlabel("u (m/s)"), ax[0].set_ylabel("y (m)"), ax[0].legend()
        ax[1].semilogx(np.maximum(np.abs(d[:, 10] - exact) / U, 1e-17), yc, "o-")
        ax[1].set_xlabel("|u - U y/H| / U"), ax[1].set_ylabel("y (m)")
        fig.suptitle(f"Couette flow, {cells[1]} cells across: max error {err:.1e} U")
        save_plot(fig, a.png)
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
