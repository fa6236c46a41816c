#!/usr/bin/env python3
"""Taylor-Green vortex: kinetic-energy decay of an `lbm` run (initial.state: taylor_green).

usage: taylor_green.py OUTPUT_DIR [--png taylor_green.png] [--tol 0.01]
2-D (cases/lbm/taylor_green2d.yaml): E(t) = <|u|^2/2> from every fields_*.h5; the energy decays as
  exp(-2 nu (kx^2 + ky^2) t); prints the viscosity fitted from the decay (outputs after the first, which
  holds the initial adjustment) against physics.viscosity. Exit 1 when the relative error exceeds --tol.
3-D (cases/lbm/taylor_green3d.yaml): E(t) from energy.csv (output.energy_every); the dissipation
  eps = -dE/dt. At t = 0 the enstrophy is 3 E / L0^2 (L0 = box / 2 pi), so eps / E = 6 nu / L0^2: prints
  the early-time rate (t < 0.2 L0/U) against it, and the dissipation peak (Re 1600 spectral references,
  e.g. DeBonis 2013: about 0.0127 U^3/L0 near t = 9 L0/U). Checked: below Re 1000 the early-time rate
  (--tol); from Re 1000 the peak dissipation (--peak-tol), since the early decay is then too small to see.
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


def plot(png, title, panels):
    plt = pyplot()
    if not plt:
        return
    fig, ax = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5))
    ax = np.atleast_1d(ax)
    for a, (xl, yl, curves, logy) in zip(ax, panels):
        for x, y, fmt, lab in curves:
            (a.semilogy if logy else a.plot)(x, y, fmt, mfc="none", label=lab)
        a.set_xlabel(xl), a.set_ylabel(yl), a.legend()
    fig.suptitle(title)
    save_plot(fig, png)


def main():
    import yaml
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir")
    p.add_argument("--png", default="taylor_green.png")
    p.add_argument("--tol", type=float, default=0.01)
    p.add_argument("--peak-tol", type=float, default=0.1, help="3-D, Re >= 1000: relative tolerance on the peak dissipation")
    a = p.parse_args()
    files = sorted(glob.glob(os.path.join(a.outdir, "fields_*.h5")))
    # scripts/validate writes the resolved case (lbm --check) and drops the 3-D fields it does not need.
    resolved = os.path.join(a.outdir, "case.resolved.yaml")
    if not files and not os.path.exists(resolved):
        sys.exit(f"no fields_*.h5 in {a.outdir}: run `lbm cases/lbm/taylor_green2d.yaml -o {a.outdir}` first")
    c = yaml.safe_load(tio.read_fields(files[0], []).case_text if files else open(resolved).read())
    nu = float(c["physics"]["viscosity"])
    cells, length = c["domain"]["cells"], float(c["domain"]["length"])
    dx = length / cells[0]
    if cells[2] == 1:
        t, e = [], []
        for fn in files:
            f = tio.read_fields(fn, ["velocity"])
            u = f["velocity"]
            t.append(f.time)
            e.append(0.5 * np.mean(np.sum(u.astype(np.float64) ** 2, axis=-1)))
        t, e = np.array(t), np.array(e)
        k2 = (2 * np.pi / (cells[0] * dx)) ** 2 + (2 * np.pi / (cells[1] * dx)) ** 2
        slope = np.polyfit(t[1:], np.log(e[1:]), 1)[0]
        nu_fit = -slope / (2 * k2)
        err = nu_fit / nu - 1
        print(f"Taylor-Green 2-D {cells[0]}x{cells[1]}: viscosity from the decay {nu_fit:.6g} m^2/s vs {nu:.6g} "
              f"({100 * err:+.3f}%)")
        record(f"Taylor-Green 2-D {cells[0]}^2: viscosity from the energy decay (relative error)", f"{nu_fit:.6g}", f"{nu:.6g}",
               err, a.tol, "m^2/s")
        exact = e[1] * np.exp(-2 * nu * k2 * (t - t[1]))
        plot(a.png, f"Taylor-Green 2-D, {cells[0]}^2: viscosity error {100 * err:+.2f}%",
             [("t (s)", "E = <|u|^2/2> (m^2/s^2)", [(t, exact, "-", "exp(-2 nu k^2 t)"), (t, e, "o", "lbm")], True)])
        return 0 if all_passed() else 1
    path = os.path.join(a.outdir, "energy.csv")
    rows = np.array([[float(x) for x in r] for r in csv.reader(l for l in open(path) if l[:1].isdigit())])
    t, e = rows[:, 1], rows[:, 2]
    U = float(c["initial"].get("velocity", 0) or c["physics"]["velocity"])
    L0 = cells[0] * dx / (2 * np.pi)
    eps = -np.gradient(e, t)
    early = t < 0.2 * L0 / U
    if early.sum() < 3:
        early = np.arange(len(t)) < 3  # coarse series: the first three rows
    rate = -np.polyfit(t[early], np.log(e[early]), 1)[0]
    expect = 6 * nu / L0 ** 2
    err = rate / expect - 1
    ts, es = t * U / L0, eps * L0 / U ** 3
    # The peak after the start-up (t > 1 L0/U): the acoustic adjustment of the equilibrium start makes -dE/dt
    # oscillate in the first steps.
    late = ts > 1.0
    k = int(np.argmax(np.where(late, es, -np.inf))) if late.any() else int(np.argmax(es))
    print(f"Taylor-Green 3-D {cells[0]}^3, Re {U * L0 / nu:.0f}: early-time decay rate {rate:.5g} 1/s vs 6 nu / L0^2 = "
          f"{expect:.5g} ({100 * err:+.2f}%); peak dissipation {es[k]:.4g} U^3/L0 at t = {ts[k]:.2f} L0/U")
    re_ = U * L0 / nu
    if re_ < 1000:
        # Low Re: the viscous decay dominates the early window and is the check.
        record(f"Taylor-Green 3-D {cells[0]}^3: early-time decay rate vs 6 nu / L0^2 (relative error)", f"{rate:.5g}",
               f"{expect:.5g}", err, a.tol, "1/s", f"peak dissipation {es[k]:.4g} U^3/L0 at t = {ts[k]:.2f} L0/U")
    else:
        # High Re: the early viscous decay (0.1% over 0.2 L0/U at Re 1600) is hidden by the acoustic start-up of
        # the equilibrium initial state, so the check is the dissipation peak of the spectral references
        # (about 0.0127 U^3/L0 near t = 9 L0/U at Re 1600; DeBonis 2013), within --peak-tol.
        record(f"Taylor-Green 3-D {cells[0]}^3, Re {re_:.0f}: peak dissipation (relative error)", f"{es[k]:.4g}", "0.0127",
               es[k] / 0.0127 - 1, a.peak_tol, "U^3/L0", f"at t = {ts[k]:.2f} L0/U (reference near 9)")
    plot(a.png, f"Taylor-Green 3-D, {cells[0]}^3, Re {U * L0 / nu:.0f}",
         [("t U / L0", "E / U^2", [(ts, e / U ** 2, "-", "lbm")], False),
          ("t U / L0", "-dE/dt L0 / U^3", [(ts, es, "-", "lbm"), ([9.0], [0.0127], "s", "spectral ref. peak (Re 1600)")],
           False)])
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
