#!/usr/bin/env python3
"""Force-driven Poiseuille channel: profile error of `lbm cases/lbm/poiseuille.yaml` runs and the convergence order.

usage: poiseuille.py OUTPUT_DIR [OUTPUT_DIR ...] [--png poiseuille.png] [--min-order 1.8]
For each run (the last fields_*.h5): the x-averaged u(y) against u = g / (2 nu) y (H - y) (g, nu, H from the
stored case), the rms and max error relative to u_max. With two or more runs at different resolutions, the
order log(e_coarse / e_fine) / log(n_fine / n_coarse); exit status 1 when an order is below --min-order.
"""
import argparse
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tessera_io as tio  # noqa: E402
from validation_record import all_passed, pyplot, record, save_plot  # noqa: E402


def profile_error(outdir):
    import yaml
    files = sorted(glob.glob(os.path.join(outdir, "fields_*.h5")))
    if not files:
        sys.exit(f"no fields_*.h5 in {outdir}: run `lbm cases/lbm/poiseuille.yaml -o {outdir}` first")
    f = tio.read_fields(files[-1], ["velocity"])
    c = yaml.safe_load(f.case_text)
    nu, g = float(c["physics"]["viscosity"]), float(c["physics"]["acceleration"][0])
    ny, dx = int(f.cells[1]), float(f.spacing[0])
    H = ny * dx
    u = f["velocity"][0, :, :, 0].mean(axis=1)  # [y]
    y = (np.arange(ny) + 0.5) * dx
    exact = g / (2 * nu) * y * (H - y)
    umax = g * H * H / (8 * nu)
    e = (u - exact) / umax
    return ny, y / H, u / umax, np.sqrt(np.mean(e ** 2)), np.max(np.abs(e))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdirs", nargs="+")
    p.add_argument("--png", default="poiseuille.png")
    p.add_argument("--min-order", type=float, default=1.8)
    a = p.parse_args()
    runs = sorted((profile_error(d) for d in a.outdirs), key=lambda r: r[0])
    for ny, _, _, rms, mx in runs:
        print(f"Poiseuille, {ny} cells across: rms error {rms:.3e} u_max, max {mx:.3e} u_max")
    orders = [np.log(r0[3] / r1[3]) / np.log(r1[0] / r0[0]) for r0, r1 in zip(runs, runs[1:])]
    if orders:
        print("orders: " + ", ".join(f"{o:.3f}" for o in orders))
    for (n0, *_), (n1, *_), o in zip(runs, runs[1:], orders):
        record(f"Poiseuille: convergence order, {n0} -> {n1} cells across", f"{o:.3f}", "2 (at least --min-order)",
               max(0.0, a.min_order - o), 0.0)
    plt = pyplot()
    if plt:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4.5))
        yy = np.linspace(0, 1, 100)
        ax[0].plot(4 * yy * (1 - yy), yy, "-", label="exact")
        for ny, y, u, _, _ in runs:
            ax[0].plot(u, y, "o", mfc="none", label=f"lbm, {ny} cells")
        ax[0].set_xlabel("u / u_max"), ax[0].set_ylabel("y / H"), ax[0].legend()
        n = np.array([r[0] for r in runs], float)
        e = np.array([r[3] for r in runs])
        ax[1].loglog(n, e, "o-", label="rms error")
        ax[1].loglog(n, e[0] * (n[0] / n) ** 2, "--", label="second order")
        ax[1].set_xlabel("cells across"), ax[1].set_ylabel("rms error / u_max"), ax[1].legend()
        fig.suptitle("Poiseuille channel" + (f": orders {', '.join(f'{o:.2f}' for o in orders)}" if orders else ""))
        save_plot(fig, a.png)
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
