#!/usr/bin/env python3
"""Compare a checkpointed-and-requeued md run with an uninterrupted one (tests/slurm).

usage: compare_md_runs.py REFERENCE_DIR REQUEUED_DIR

Checks, and exits 1 naming the first difference:
  - the newest checkpoint of both runs is at the same step and holds bit-identical datasets (positions,
    velocities, forces, images, ids, neighbour-list reference positions, thermostat state);
  - thermo.csv and msd.csv are the same text: every step once, in order, no gap and no duplicate;
  - trajectory.h5 holds bit-identical datasets (each H5MD frame once; frames after the restart come from
    the resumed state) and trajectory.xdmf lists the same frame times.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_runs import fail, same_datasets, step_of  # noqa: E402


def same_series(ref, run, name):
    a = open(os.path.join(ref, name)).read().splitlines()
    b = open(os.path.join(run, name)).read().splitlines()
    rows = [line for line in b if line and not line.startswith("#")][1:]
    steps = [int(line.split(",")[0]) for line in rows]
    if not steps:
        fail(f"{name} of the requeued run has no rows")
    if len(steps) != len(set(steps)) or steps != sorted(steps):
        dup = sorted({s for s in steps if steps.count(s) > 1})
        fail(f"{name} of the requeued run repeats or reorders steps (duplicates: {dup})")
    if a != b:
        missing = sorted(set(a) - set(b))[:3]
        fail(f"{name} differs from the uninterrupted run's (first lines missing: {missing})")
    print(f"{name} identical: {len(steps)} rows, steps {steps[0]}..{steps[-1]}")


def main():
    if len(sys.argv) != 3:
        fail(__doc__)
    ref, run = sys.argv[1], sys.argv[2]
    ckpt = {d: sorted(glob.glob(os.path.join(d, "checkpoint_*.h5")), key=step_of) for d in (ref, run)}
    for d, files in ckpt.items():
        if not files:
            fail(f"no checkpoint in {d}")
    a, b = ckpt[ref][-1], ckpt[run][-1]
    if step_of(a) != step_of(b):
        fail(f"final checkpoints at different steps: {a} vs {b}")
    print(f"final checkpoint step {step_of(a)}: {same_datasets(a, b)} datasets bit-identical")
    for name in ("thermo.csv", "msd.csv"):
        same_series(ref, run, name)
    n = same_datasets(os.path.join(ref, "trajectory.h5"), os.path.join(run, "trajectory.h5"))
    print(f"trajectory.h5: {n} datasets bit-identical")
    times = {d: re.findall(r'<Time Value="([^"]+)"', open(os.path.join(d, "trajectory.xdmf")).read()) for d in (ref, run)}
    if not times[ref] or times[ref] != times[run]:
        fail(f"trajectory.xdmf frames differ: reference {times[ref]}, requeued {times[run]}")
    print(f"trajectory.xdmf identical: {len(times[run])} frames")


if __name__ == "__main__":
    main()
