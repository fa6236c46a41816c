"""Shared helpers for the weather plots: read the field files and the CSVs a run writes.

A run directory holds weather_<step>.h5 (datasets /fields/<name> as [nz][ny][nx]), weather.xdmf,
diagnostics.csv (step,time,dt,mass,energy,enstrophy,circulation,tracer_total) and spectrum_<step>.csv.
"""
import csv
import glob
import os

import h5py
import numpy as np


def field_files(outdir):
    files = sorted(glob.glob(os.path.join(outdir, "weather_*.h5")))
    if not files:
        raise SystemExit(f"no weather_*.h5 in {outdir}: run `weather CASE.yaml -o {outdir}` first")
    return files


def read(path, name):
    """(time, 2-D array [ny][nx], dx, dy) of one field of one output file."""
    with h5py.File(path, "r") as f:
        a = np.asarray(f["fields"][name])
        sp = f.attrs["spacing"]
        return float(f.attrs["time"]), a[0], float(sp[0]), float(sp[1])


def diagnostics(outdir):
    path = os.path.join(outdir, "diagnostics.csv")
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def case_value(outdir, dotted, default=None):
    """A scalar key of the resolved case stored in the first field file (e.g. 'physics.f0').

    The stored case is the solver's resolved YAML: two-level block maps ("section:" then "  key: value"),
    so a few lines of parsing avoid a YAML dependency.
    """
    with h5py.File(field_files(outdir)[0], "r") as f:
        text = f.attrs["case_text"]
        text = text.decode() if isinstance(text, bytes) else str(text)
    section, key = dotted.split(".", 1)
    current = None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line.rstrip(":").strip()
        elif current == section and line.strip().startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return default
