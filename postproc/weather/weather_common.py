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


def geostrophic_adjustment(outdir):
    """The linear geostrophic adjustment's check (docs/weather.md): (files, eta0 - H, the Hann-weighted time
    mean of eta - H over the outputs after the first, the balanced state of the initial potential vorticity,
    dx), the balance computed mode by mode on the C-grid:
      eta_f(k) = eta_0(k) f^2 C^2 / (f^2 C^2 + g H K^2),  C = cos(kx dx/2) cos(ky dy/2),
      K^2 = (2 sin(kx dx/2)/dx)^2 + (2 sin(ky dy/2)/dy)^2
    """
    files = field_files(outdir)
    g = float(case_value(outdir, "physics.gravity", 9.81))
    f0 = float(case_value(outdir, "physics.f0"))
    H = float(case_value(outdir, "initial.depth"))
    eta0, dx, dy = read(files[0], "surface")[1:]
    T = read(files[-1], "surface")[0]
    mean, wsum = 0.0, 0.0
    for p in files[1:]:
        t, eta, _, _ = read(p, "surface")
        w = np.sin(np.pi * t / T) ** 2
        mean, wsum = mean + w * (eta - H), wsum + w
    mean /= wsum
    ny, nx = eta0.shape
    KX, KY = np.meshgrid(2 * np.pi * np.fft.rfftfreq(nx, dx), 2 * np.pi * np.fft.fftfreq(ny, dy))
    C = np.cos(0.5 * KX * dx) * np.cos(0.5 * KY * dy)
    K2 = (2 * np.sin(0.5 * KX * dx) / dx) ** 2 + (2 * np.sin(0.5 * KY * dy) / dy) ** 2
    bal = np.fft.irfft2(np.fft.rfft2(eta0 - H) * f0**2 * C**2 / (f0**2 * C**2 + g * H * K2), s=eta0.shape)
    return files, eta0 - H, mean, bal, dx
