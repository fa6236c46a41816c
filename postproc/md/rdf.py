#!/usr/bin/env python3
"""Radial distribution function g(r) from an md H5MD trajectory (output.trajectory_every > 0).

    python3 postproc/md/rdf.py out/lj/trajectory.h5 [--rmax 3.0] [--bins 150] [--skip 1] [-o rdf.png]

Averages over frames after the first `--skip`; minimum image in the orthorhombic box, all pairs
(O(N^2) per frame with numpy, fine for up to ~10^4 atoms). Also writes rdf.csv (r, g).
"""
import argparse

import h5py
import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("h5md")
    ap.add_argument("--group", default="all")
    ap.add_argument("--rmax", type=float, default=3.0)
    ap.add_argument("--bins", type=int, default=150)
    ap.add_argument("--skip", type=int, default=1)
    ap.add_argument("-o", "--output", default="rdf.png")
    a = ap.parse_args()
    with h5py.File(a.h5md, "r") as f:
        g = f["particles"][a.group]
        pos = g["position/value"][a.skip:]
        edges = g["box/edges/value"][a.skip:]
    hist = np.zeros(a.bins)
    rmax = min(a.rmax, 0.5 * edges.min())
    n = pos.shape[1]
    for x, L in zip(pos, edges):
        for i in range(n - 1):
            d = x[i + 1:] - x[i]
            d -= L * np.rint(d / L)
            r = np.sqrt((d * d).sum(axis=1))
            hist += np.histogram(r, bins=a.bins, range=(0, rmax))[0]
    r_edges = np.linspace(0, rmax, a.bins + 1)
    shell = 4.0 / 3.0 * np.pi * (r_edges[1:] ** 3 - r_edges[:-1] ** 3)
    rho = n / np.prod(edges.mean(axis=0))
    gr = 2 * hist / (len(pos) * n * rho * shell)  # each pair counted once above
    r = 0.5 * (r_edges[1:] + r_edges[:-1])
    np.savetxt(a.output.rsplit(".", 1)[0] + ".csv", np.c_[r, gr], delimiter=",", header="r,g", comments="")
    plt.plot(r, gr)
    plt.axhline(1, color="gray", lw=0.5)
    plt.xlabel("r")
    plt.ylabel("g(r)")
    plt.title(f"{a.h5md}: {len(pos)} frames, {n} atoms")
    plt.savefig(a.output, dpi=120)
    print("wrote", a.output)


if __name__ == "__main__":
    main()
