#!/usr/bin/env python3
"""Radial distribution function g(r) from an md H5MD trajectory (output.trajectory_every > 0).

    python3 postproc/md/rdf.py out/lj/trajectory.h5 [--rmax 3.0] [--bins 150] [--skip 1] [-o rdf.png]

Averages over frames after the first `--skip`; minimum image in the orthorhombic box, all pairs
(O(N^2) per frame with numpy, in row blocks: fine for up to ~10^4 atoms). Also writes rdf.csv (r, g).
The functions (read_frames, pair_counts, g_of_r) are shared with validate_rdf.py.

Normalisation: g(r_b) = 2 c_b / (N rho V_b), c_b the pairs (i < j) in bin b, V_b the shell volume and
rho = N / V. With this rho, sum_pairs f(r_ij) / N = (rho / 2) sum_b g_b V_b <f>_b exactly, which is what
the energy and virial routes of validate_rdf.py rely on; at large r, g tends to 1 - O(1/N) in a
fixed-N system (the pairs sum to N (N - 1) / 2, not N^2 / 2).
"""
import argparse

import numpy as np


def read_frames(path, group="all"):
    """(steps[F], positions[F, N, 3], edges[F, 3]) of an H5MD file written by md."""
    import h5py  # lazy: the module is also imported where only the numerics are needed

    with h5py.File(path, "r") as f:
        if f"particles/{group}/position" not in f:
            raise SystemExit(f"{path}: no /particles/{group}/position: run md with output.trajectory_every > 0")
        g = f["particles"][group]
        steps = g["position/step"][:]
        pos = g["position/value"][:]
        edges = g["box/edges/value"][:]
    return steps, pos, edges


def pair_counts(x, L, dr, nbins, block=256):
    """Histogram (int64[nbins], bin width dr from r = 0) of the minimum-image distances of all pairs i < j.

    Pairs beyond nbins * dr are not counted; nbins * dr must not exceed min(L) / 2 (the minimum image is
    then unique)."""
    if nbins * dr > 0.5 * float(np.min(L)) + 1e-12:
        raise ValueError(f"r_max = {nbins * dr} exceeds half the box {0.5 * np.min(L)}")
    n = len(x)
    counts = np.zeros(nbins, dtype=np.int64)
    rmax2 = (nbins * dr) ** 2
    for i0 in range(0, n - 1, block):
        i1 = min(n, i0 + block)
        d = x[i0:i1, None, :] - x[None, :, :]
        d -= L * np.rint(d / L)
        r2 = np.einsum("ijk,ijk->ij", d, d)
        upper = np.arange(n)[None, :] > np.arange(i0, i1)[:, None]  # each pair once
        r2 = r2[upper & (r2 < rmax2)]
        counts += np.bincount((np.sqrt(r2) / dr).astype(np.int64), minlength=nbins)[:nbins]
    return counts


def shell_volumes(dr, nbins):
    e = dr * np.arange(nbins + 1)
    return 4.0 / 3.0 * np.pi * (e[1:] ** 3 - e[:-1] ** 3)


def g_of_r(counts, frames, n, volume, dr):
    """g per bin from pair counts summed over `frames` frames of n atoms in a box of `volume`."""
    rho = n / volume
    return 2.0 * counts / (frames * n * rho * shell_volumes(dr, len(counts)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("h5md")
    ap.add_argument("--group", default="all")
    ap.add_argument("--rmax", type=float, default=3.0)
    ap.add_argument("--bins", type=int, default=150)
    ap.add_argument("--skip", type=int, default=1)
    ap.add_argument("-o", "--output", default="rdf.png")
    a = ap.parse_args()
    _, pos, edges = read_frames(a.h5md, a.group)
    pos, edges = pos[a.skip:], edges[a.skip:]
    rmax = min(a.rmax, 0.5 * edges.min())
    dr = rmax / a.bins
    hist = sum(pair_counts(x, L, dr, a.bins) for x, L in zip(pos, edges))
    n = pos.shape[1]
    gr = g_of_r(hist, len(pos), n, float(np.prod(edges.mean(axis=0))), dr)
    r = dr * (np.arange(a.bins) + 0.5)
    np.savetxt(a.output.rsplit(".", 1)[0] + ".csv", np.c_[r, gr], delimiter=",", header="r,g", comments="")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.plot(r, gr)
    plt.axhline(1, color="gray", lw=0.5)
    plt.xlabel("r")
    plt.ylabel("g(r)")
    plt.title(f"{a.h5md}: {len(pos)} frames, {n} atoms")
    plt.savefig(a.output, dpi=120)
    print("wrote", a.output)


if __name__ == "__main__":
    main()
