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
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_runs import fail, same_datasets, same_final_checkpoint, same_series  # noqa: E402


def main():
    if len(sys.argv) != 3:
        fail(__doc__)
    ref, run = sys.argv[1], sys.argv[2]
    same_final_checkpoint(ref, run)
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
