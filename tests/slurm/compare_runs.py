#!/usr/bin/env python3
"""Compare a checkpointed-and-requeued weather run with an uninterrupted one (tests/slurm).

usage: compare_runs.py REFERENCE_DIR REQUEUED_DIR

Checks, and exits 1 naming the first difference:
  - the newest checkpoint of both runs is at the same step and holds bit-identical datasets;
  - the same field files weather_<step>.h5 exist in both and their datasets are bit-identical (fields written
    after the restart come from the resumed state, so this also checks the resumed trajectory);
  - diagnostics.csv is the same text: every step once, in order, no gap and no duplicate at the restart;
  - weather.xdmf lists the same (step, time) entries, strictly increasing, each once.
Datasets only: file attributes (creation time, host, run id) legitimately differ between runs.
"""
import glob
import os
import re
import sys

import h5py
import numpy as np


def fail(msg):
    print(f"compare_runs: {msg}", file=sys.stderr)
    sys.exit(1)


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out


def same_datasets(a, b):
    da, db = datasets(a), datasets(b)
    if set(da) != set(db):
        fail(f"{a} and {b} hold different datasets: {sorted(set(da) ^ set(db))}")
    for name in sorted(da):
        x, y = np.asarray(da[name]), np.asarray(db[name])
        # Bit for bit: compare the raw bytes (NaN == NaN, -0.0 != +0.0).
        if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
            fail(f"dataset /{name} differs between {a} and {b}")
    return len(da)


def step_of(path):
    return int(re.search(r"_(\d+)\.h5$", path).group(1))


def same_final_checkpoint(ref, run):
    """The newest checkpoint_<step>.h5 of both runs: the same step, bit-identical datasets."""
    ckpt = {d: sorted(glob.glob(os.path.join(d, "checkpoint_*.h5")), key=step_of) for d in (ref, run)}
    for d, files in ckpt.items():
        if not files:
            fail(f"no checkpoint in {d}")
    a, b = ckpt[ref][-1], ckpt[run][-1]
    if step_of(a) != step_of(b):
        fail(f"final checkpoints at different steps: {a} vs {b}")
    print(f"final checkpoint step {step_of(a)}: {same_datasets(a, b)} datasets bit-identical")


def same_series(ref, run, name):
    """A per-step CSV (header, then one row a step; '#' lines are comments): the requeued run's has every step
    once and in order, and the whole text equals the uninterrupted run's."""
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


def xdmf_entries(path):
    text = open(path).read()
    entries = re.findall(r'<Grid Name="step_(\d+)" GridType="Uniform">\s*<Time Value="([^"]+)"', text)
    return [(int(s), float(t)) for s, t in entries]


def main():
    if len(sys.argv) != 3:
        fail(__doc__)
    ref, run = sys.argv[1], sys.argv[2]

    same_final_checkpoint(ref, run)

    fields = {d: sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "weather_*.h5"))) for d in (ref, run)}
    if not fields[ref]:
        fail(f"no field files in {ref}")
    if fields[ref] != fields[run]:
        fail(f"different field files: {sorted(set(fields[ref]) ^ set(fields[run]))}")
    for name in fields[ref]:
        same_datasets(os.path.join(ref, name), os.path.join(run, name))
    print(f"{len(fields[ref])} field files bit-identical")

    same_series(ref, run, "diagnostics.csv")

    xa, xb = xdmf_entries(os.path.join(ref, "weather.xdmf")), xdmf_entries(os.path.join(run, "weather.xdmf"))
    if not xa:
        fail(f"no time steps in {ref}/weather.xdmf")
    if xa != xb:
        fail(f"weather.xdmf entries differ: reference {xa}, requeued {xb}")
    times = [t for _, t in xb]
    if any(t1 <= t0 for t0, t1 in zip(times, times[1:])):
        fail(f"weather.xdmf times are not strictly increasing: {times}")
    if [f"weather_{s:08d}.h5" for s, _ in xb] != fields[run]:
        fail("weather.xdmf does not list exactly the field files on disk")
    print(f"weather.xdmf identical: {len(xb)} time steps, no gaps or duplicates")


if __name__ == "__main__":
    main()
