#!/usr/bin/env python3
"""Compare LJ-fluid thermo output with the NIST SRSW reference (rc = 3 sigma, tail corrections).

    python3 postproc/md/plot_nist.py cases/md/reference/nist_lj_srsw_rc3.csv RUN_T085/thermo.csv RUN_T090/thermo.csv \
        [--skip 0.2] [-o nist.png]

Each run is a `cases/md/nist_lj_T*.yaml` case. The first `--skip` fraction of every run is discarded as
equilibration; the error bar is the standard error from 20 block averages. Acceptance (as in the
reference file): |mean - ref| < 2.576 sqrt(err_sim^2 + err_ref^2).
"""
import argparse

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from validation_record import record  # noqa: E402
from plot_thermo import read_csv  # noqa: E402  (skips leading '#' comment lines)


def block(x, nb=20):
    m = len(x) // nb
    b = np.array([x[k * m:(k + 1) * m].mean() for k in range(nb)])
    return b.mean(), b.std(ddof=1) / np.sqrt(nb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reference")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--skip", type=float, default=0.2)
    ap.add_argument("--rho", type=float, default=0.776)
    ap.add_argument("-o", "--output", default="nist_lj.png")
    a = ap.parse_args()
    ref = read_csv(a.reference)
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ok = True
    for path in a.runs:
        d = read_csv(path)
        n0 = int(len(d) * a.skip)
        T = d["temperature"][n0:].mean()
        row = ref[np.isclose(ref["rho"], a.rho) & np.isclose(ref["T"], round(T, 2))]
        if len(row) == 0:
            print(f"{path}: no reference row for T = {T:.3f}, rho = {a.rho}")
            continue
        row = row[0]
        for i, (key, rk, ek, label) in enumerate((("pe", "U_per_N", "U_err", "U/N"), ("pressure", "P", "P_err", "P"))):
            m, e = block(d[key][n0:])
            er = 0.0 if np.isnan(row[ek]) else row[ek]
            good = abs(m - row[rk]) < 2.576 * np.hypot(e, er)
            ok &= good
            print(f"{path}: T = {T:.3f} {label} = {m:.5f} +- {e:.5f}  NIST {row[rk]:.5f} +- {er:.1e}  {'ok' if good else 'FAIL'}")
            record(f"LJ T* = {T:.2f}: {label}", f"{m:.4f} +- {e:.4f}", f"{row[rk]:.4f}", m - row[rk],
                   2.576 * np.hypot(e, er), note="99 % band of the combined standard errors")
            ax[i].errorbar([row["T"]], [m], yerr=[2.576 * e], fmt="o", color="C0", label="Tessera md" if path == a.runs[0] else None)
            ax[i].errorbar([row["T"]], [row[rk]], yerr=[2.576 * er], fmt="s", color="C3", label="NIST SRSW" if path == a.runs[0] else None)
            ax[i].set_xlabel("T*")
            ax[i].set_ylabel(label)
    ax[0].legend()
    fig.suptitle(f"LJ fluid, rho* = {a.rho}, rc = 3 sigma, tail corrections (99% intervals)")
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print("wrote", a.output, "- all within tolerance" if ok else "- SOME OUTSIDE tolerance")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
