#!/usr/bin/env python3
"""Validate md's LJ energy and pressure through g(r): the energy and virial routes of liquid-state theory.

    python3 postproc/md/validate_rdf.py RUN_DIR --rc 3.0 [--shift none|energy] [--tail] [--skip 0.2]
        [--dr 0.002] [--blocks 10] [--z 3] [--png rdf.png]

RUN_DIR holds thermo.csv and trajectory.h5 of one LJ run (units: lj, epsilon = sigma = 1, one atom type;
output.trajectory_every a multiple of output.thermo_every). --rc/--shift/--tail must be the run's
pair.cutoff/pair.shift/pair.tail. For a pair potential u(r) cut at rc (Hansen & McDonald, Theory of Simple
Liquids, 4th ed., eqs. 2.5.20 and 2.5.22; Allen & Tildesley, 2nd ed., eqs. 2.94 and 2.144-2.145):

    U/N = 2 pi rho Int_0^rc r^2 u(r) g(r) dr            + U_tail,  U_tail = (8/3) pi rho [rc^-9/3 - rc^-3]
    P   = rho kT - (2 pi / 3) rho^2 Int_0^rc r^3 u'(r) g(r) dr + P_tail,  P_tail = (16/3) pi rho^2 [2 rc^-9/3 - rc^-3]

(tails only with --tail: g = 1 beyond rc; with --shift energy u is u - u(rc) inside rc). rho kT is taken as
(2/3) rho <KE/N> from thermo.csv, which is what md's pressure uses (it equals rho T up to md's 3N - 3
degrees of freedom in T). g is piecewise constant per bin (the histogram), so each bin's integral of
r^2 u and r^3 u' is done exactly. What remains is the binning error: where the pairs sit inside a bin.
On the steep repulsive wall it is mostly random from frame to frame and scales like dr (the O(dr^2)
bias of a smooth g is smaller), so a Richardson extrapolation does not remove it. The script evaluates
both routes at dr and at 2 dr and bounds the error of the dr result by the change
|<I_2dr - I_dr>| + z * sd(I_2dr - I_dr) / sqrt(frames) (at least the error at 2 dr, hence conservative).
Checked on single frames against direct pair sums over the positions: md's pe and virial agree with
those to 1e-11; the dr = 0.001 routes differ from them by ~1e-4 (U/N) and up to ~1e-3 (P) per frame.

Records (postproc/validation_record.py):
  1. same frames: U/N and P from g(r) of the trajectory frames against thermo.csv at the same steps. The
     statistics cancel (identical configurations), so the tolerance is the binning error plus the CSV's
     printed digits: a tight check of md's energy, virial and tail terms.
  2. run averages: the routes over the production frames against md's thermo averages over all production
     rows; tolerance z * sqrt(s_thermo^2 + s_frames^2) + binning error, s = standard error of the mean from
     --blocks block averages (frames and rows are from one run, so this is conservative).
  3. g(r) -> 1 over the last sigma before half the box: |<g> - 1| <= z * s_blocks + 1/N (the fixed-N offset)
     + 0.01: the liquid's structure has not died out there in a small box (at rho = 0.78 g still swings
     by ~3 % around 4 sigma; averaged over a window of about one period, below 1 %).
  4. g = 0 below 0.8 sigma: no pair closer (u(0.8) = 43 epsilon, Boltzmann factor < 1e-20 at T ~ 1).
The first --skip fraction of the run is equilibration and not used.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rdf import g_of_r, pair_counts, read_frames  # noqa: E402
from validation_record import all_passed, record  # noqa: E402


def read_thermo(path):
    """thermo.csv columns by name; its leading '# ...' lines are comments."""
    skip = 0
    with open(path) as f:
        while f.readline().startswith("#"):
            skip += 1
    return np.genfromtxt(path, delimiter=",", names=True, skip_header=skip)


def u_lj(r):
    return 4.0 * (r ** -12 - r ** -6)


def du_lj(r):
    return -48.0 * r ** -13 + 24.0 * r ** -7


def shell_means(dr, nbins):
    """Per bin [a, b]: Int r^2 u dr and Int r^2 (r u') dr (exact for LJ), and Int r^2 dr."""
    e = dr * np.arange(nbins + 1)
    e[0] = 0.5 * e[1]  # no pair is that close (checked); avoids 0^-9
    F_u = lambda r: 4.0 * (-(r ** -9) / 9.0 + (r ** -3) / 3.0)  # noqa: E731  antiderivative of r^2 u
    F_w = lambda r: 48.0 / 9.0 * r ** -9 - 8.0 * r ** -3  # noqa: E731  antiderivative of r^2 (r u')
    w = (e[1:] ** 3 - e[:-1] ** 3) / 3.0
    return (F_u(e[1:]) - F_u(e[:-1])) / w, (F_w(e[1:]) - F_w(e[:-1])) / w


def routes(counts, dr, n, volume, rc, shift):
    """U_pairs/N and P_conf from one frame's pair counts (bins of dr up to rc): the integrals above with
    g = 2 c_b / (N rho V_b), i.e. sum_b c_b <u>_b / N and -sum_b c_b <r u'>_b / (3 V)."""
    nb = int(round(rc / dr))
    ub, wb = shell_means(dr, nb)
    if shift == "energy":
        ub = ub - u_lj(rc)
    c = counts[:nb]
    return float(c @ ub) / n, -float(c @ wb) / (3.0 * volume)


def tails(rho, rc):
    return (8.0 / 3.0 * np.pi * rho * (rc ** -9 / 3.0 - rc ** -3),
            16.0 / 3.0 * np.pi * rho ** 2 * (2.0 * rc ** -9 / 3.0 - rc ** -3))


def block_err(x, nb):
    x = np.asarray(x, dtype=float)
    m = len(x) // nb
    if m < 1:
        return float("nan")
    b = x[: m * nb].reshape(nb, m).mean(axis=1)
    return float(b.std(ddof=1) / np.sqrt(nb))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--rc", type=float, required=True)
    ap.add_argument("--shift", choices=["none", "energy"], default="none")
    ap.add_argument("--tail", action="store_true")
    ap.add_argument("--skip", type=float, default=0.2)
    ap.add_argument("--dr", type=float, default=0.001)
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--z", type=float, default=3.0)
    ap.add_argument("--png")
    a = ap.parse_args()
    if a.tail and a.shift != "none":
        sys.exit("validate_rdf: --tail goes with --shift none (md adds tails to the plain cut only)")

    th = read_thermo(os.path.join(a.run, "thermo.csv"))
    steps, pos, edges = read_frames(os.path.join(a.run, "trajectory.h5"))
    first = a.skip * th["step"][-1]
    keep = steps >= first
    steps, pos, edges = steps[keep], pos[keep], edges[keep]
    n, nf = pos.shape[1], len(steps)
    rmax = 0.5 * float(edges.min())
    if rmax < a.rc:
        sys.exit(f"validate_rdf: half the box ({rmax:.3f}) is shorter than rc = {a.rc}: use a bigger system")
    nbins = 2 * int(rmax / (2 * a.dr))  # even: the 2 dr histogram sums adjacent bins
    if abs(a.rc / (2 * a.dr) - round(a.rc / (2 * a.dr))) > 1e-9:
        sys.exit(f"validate_rdf: rc = {a.rc} must be a multiple of 2 dr = {2 * a.dr}")
    print(f"{a.run}: {nf} frames of {n} atoms from step {steps[0]} on; bins of {a.dr} up to {nbins * a.dr:.3f}")

    # Per frame: pair histogram, then both routes at dr and at 2 dr.
    vol = np.prod(edges, axis=1)
    counts = np.zeros((nf, nbins), dtype=np.int64)
    U = np.zeros((nf, 2))
    W = np.zeros((nf, 2))
    for f in range(nf):
        counts[f] = pair_counts(pos[f], edges[f], a.dr, nbins)
        for k, m in enumerate((1, 2)):
            c = counts[f].reshape(-1, m).sum(axis=1)
            U[f, k], W[f, k] = routes(c, m * a.dr, n, vol[f], a.rc, a.shift)
    rho = n / vol
    ut, pt = tails(rho, a.rc) if a.tail else (np.zeros(nf), np.zeros(nf))

    def binning(x):  # bound on the error of the mean of x[:, 0] from the dr -> 2 dr change
        d = x[:, 1] - x[:, 0]
        return abs(d.mean()) + a.z * d.std(ddof=1) / np.sqrt(nf)

    bin_u, bin_w = binning(U), binning(W)
    U_r, W_r = U[:, 0], W[:, 0]
    print(f"binning error bound: U/N {bin_u:.2e}, P {bin_w:.2e} (dr = {a.dr} -> {2 * a.dr})")

    # 1. Same frames: thermo rows at the frame steps.
    row = {int(s): i for i, s in enumerate(th["step"])}
    missing = [int(s) for s in steps if int(s) not in row]
    if missing:
        sys.exit(f"validate_rdf: thermo.csv has no row for trajectory steps {missing[:5]}...: make "
                 "output.trajectory_every a multiple of output.thermo_every")
    idx = np.array([row[int(s)] for s in steps])
    kin = 2.0 / 3.0 * rho * th["ke"][idx]
    for name, route, md, berr in (("U/N", U_r + ut, th["pe"][idx], bin_u),
                                  ("P", kin + W_r + pt, th["pressure"][idx], bin_w)):
        d = float(np.mean(route - md))
        record(f"LJ g(r) {name} route vs md thermo, same {nf} frames", f"{np.mean(route):.5f}",
               f"{np.mean(md):.5f}", d, berr + 1e-6 * (1 + abs(np.mean(md))),
               note=f"the binning error bound (dr = {a.dr} vs {2 * a.dr}) + the CSV's printed digits")

    # 2. Run averages: all production thermo rows against the frame averages of the routes.
    prod = th["step"] >= first
    nb = a.blocks
    kin_all = 2.0 / 3.0 * (n / th["volume"][prod]) * th["ke"][prod]
    for name, route, md, berr in (("U/N", U_r + ut, th["pe"][prod], bin_u),
                                  ("P", np.mean(kin_all) + W_r + pt, th["pressure"][prod], bin_w)):
        s = float(np.hypot(block_err(route, nb), block_err(md, nb)))
        d = float(np.mean(route) - np.mean(md))
        record(f"LJ g(r) {name} route ({nf} frames) vs md thermo average ({int(prod.sum())} rows)",
               f"{np.mean(route):.4f} +- {block_err(route, nb):.4f}", f"{np.mean(md):.4f} +- {block_err(md, nb):.4f}",
               d, a.z * s + berr, note=f"{a.z:g} sigma of {nb} block averages each, + the binning error")

    # 3. and 4.: g at large r and inside the core, from 0.02-wide bins.
    m = max(1, int(round(0.02 / a.dr)))
    nc = (nbins // m) * m
    cf = counts[:, :nc].reshape(nf, -1, m).sum(axis=2)
    gf = np.array([g_of_r(c, 1, n, v, m * a.dr) for c, v in zip(cf, vol)])
    r = m * a.dr * (np.arange(cf.shape[1]) + 0.5)
    far = r > r[-1] - 1.0
    gfar = gf[:, far].mean(axis=1)
    record(f"LJ g(r) -> 1: mean g over r in [{r[far][0] - m * a.dr / 2:.2f}, {r[-1] + m * a.dr / 2:.2f}]",
           f"{gfar.mean():.4f}", "1", gfar.mean() - 1.0, a.z * block_err(gfar, nb) + 1.0 / n + 0.01,
           note=f"{a.z:g} sigma of {nb} block averages + 1/N (pairs sum to N(N-1)/2) + 0.01 (residual structure)")
    close = int(counts[:, : int(0.8 / a.dr)].sum())
    record("LJ g(r) = 0 below 0.8 sigma: pairs closer than 0.8 sigma (all frames)", str(close), "0", close, 0)

    if a.png:
        plot(a, r, gf.mean(axis=0), rho.mean(), th, prod, U_r + ut, kin_all, W_r + pt, ut, pt, nf, n)
    sys.exit(0 if all_passed() else 1)


def plot(a, r, g, rho, th, prod, U_route, kin_all, P_route, ut, pt, nf, n):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.3))
    ax[0].plot(r, g, "C0")
    ax[0].axhline(1, color="gray", lw=0.5)
    ax[0].axvline(0.8, color="C3", ls=":", lw=1, label="0.8 sigma: g = 0 below")
    ax[0].axvline(a.rc, color="gray", ls="--", lw=1, label=f"rc = {a.rc}")
    ax[0].set_xlabel("r / sigma"), ax[0].set_ylabel("g(r)"), ax[0].legend()
    ax[0].set_title(f"g(r): {nf} frames, N = {n}, rho = {rho:.4f}")
    inside = r < a.rc
    ri, gi = r[inside], g[inside]
    shift = u_lj(a.rc) if a.shift == "energy" else 0.0
    eu = 2 * np.pi * rho * ri ** 2 * (u_lj(ri) - shift) * gi
    ew = -(2 * np.pi / 3) * rho ** 2 * ri ** 3 * du_lj(ri) * gi
    dr = r[1] - r[0]
    for k, (y, lab, md, tail, kin) in enumerate(
            ((eu, "2 pi rho r^2 u(r) g(r)", th["pe"][prod].mean(), ut.mean(), 0.0),
             (ew, "-(2 pi/3) rho^2 r^3 u'(r) g(r)", th["pressure"][prod].mean(), pt.mean(), kin_all.mean()))):
        x = ax[k + 1]
        x.plot(ri, y, "C0", label="integrand")
        x.plot(ri, np.cumsum(y) * dr + tail + kin, "C1", label="running integral" + (" + tail" if a.tail else "")
               + (" + rho kT" if kin else ""))
        x.axhline(md, color="C3", ls="--", lw=1, label=f"md thermo average {md:.3f}")
        x.set_xlabel("r / sigma"), x.set_title(lab), x.legend(fontsize=8)
        x.set_ylim(min(y.min(), md) * 1.3 - 0.5, max(y.max(), md, 0) * 1.1 + 0.5)
    ax[1].set_ylabel("U/N contribution"), ax[2].set_ylabel("P contribution")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print("wrote", a.png)


if __name__ == "__main__":
    main()
