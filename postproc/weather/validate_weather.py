#!/usr/bin/env python3
"""Validation checks of weather runs, one sub-command per case (records for scripts/validate).

usage: validate_weather.py CHECK OUTDIR
  lake          cases/weather/lake_at_rest.yaml: surface flat and fluid at rest to round-off
  conservation  cases/weather/conservation.yaml: mass to round-off; energy and enstrophy drift stated
  wave          cases/weather/inertia_gravity_wave.yaml: surface at x0 against the discrete dispersion relation
  geostrophic   cases/weather/geostrophic_adjustment.yaml: time mean against the balanced state (PV inversion)
  jet           cases/weather/unstable_jet.yaml: meridional kinetic energy grows (roll-up), mass conserved
The tolerances are those of tests/weather/test_validation.cpp. Exit status 1 when a check fails.
"""
import os
import sys

import numpy as np

from weather_common import case_value, diagnostics, field_files, geostrophic_adjustment, read

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from validation_record import all_passed, record  # noqa: E402


def lake(out):
    files = field_files(out)
    H = float(case_value(out, "initial.depth"))
    eta = max(np.abs(read(p, "surface")[1] - H).max() for p in files)
    u = max(np.abs(read(p, "velocity")[1]).max() for p in files)
    record("lake at rest: max |surface - H|", f"{eta:.2e}", "0", eta, 1e-11, "m", "over every output")
    record("lake at rest: max |u|, |v|", f"{u:.2e}", "0", u, 1e-11, "m/s")


def conservation(out):
    d = diagnostics(out)
    m = np.abs(d["mass"] - d["mass"][0]).max() / d["mass"][0]
    record("conservation: mass, max relative change", f"{m:.2e}", "0", m, 1e-13)
    for key, tol in [("energy", 1e-3), ("enstrophy", 1e-2)]:
        r = np.abs(d[key] - d[key][0]).max() / abs(d[key][0])
        record(f"conservation: {key}, max relative change", f"{r:.2e}", "0", r, tol,
               note="time-discretisation error (SSP-RK3, third order in dt; the CTest measures the order)")


def wave(out):
    files = field_files(out)
    g = float(case_value(out, "physics.gravity", 9.81))
    f = float(case_value(out, "physics.f0"))
    H = float(case_value(out, "initial.depth"))
    a = float(case_value(out, "initial.amplitude"))
    err = 0.0
    for p in files:
        t, eta, dx, _ = read(p, "surface")
        nx = eta.shape[1]
        kx = 2 * np.pi * 4 / (nx * dx)  # the case's wave_number [4, 0]
        C, K = np.cos(0.5 * kx * dx), 2 * np.sin(0.5 * kx * dx) / dx
        w2 = f * f * C * C + g * H * K * K
        ex = a * np.cos(kx * 0.5 * dx) * (f * f * C * C + g * H * K * K * np.cos(np.sqrt(w2) * t)) / w2
        err = max(err, abs(eta[0, 0] - H - ex))
    record("inertia-gravity wave: max |eta - exact| / amplitude", f"{err / a:.2e}", "discrete dispersion relation",
           err / a, 2e-3, note=f"{len(files)} outputs")


def geostrophic(out):
    _, _, mean, bal, _ = geostrophic_adjustment(out)
    peak = np.abs(bal).max()
    err = np.abs(mean - bal).max()
    record("geostrophic adjustment: max |<eta> - eta_balanced| / balanced peak", f"{err / peak:.2e}",
           "PV inversion, mode by mode", err / peak, 0.02, note="Hann-weighted time mean of the outputs")


def jet(out):
    files = field_files(out)
    e = [float((read(p, "velocity")[1][..., 1] ** 2).sum()) for p in files]
    growth = e[-1] / max(e[1], 1e-300)
    record("unstable jet: growth of meridional kinetic energy", f"{growth:.3g}x", "> 100x (roll-up)",
           0.0 if growth > 100 else 1.0, 0.5, note="from the first output after t = 0 to the last")
    d = diagnostics(out)
    m = np.abs(d["mass"] - d["mass"][0]).max() / d["mass"][0]
    record("unstable jet: mass, max relative change", f"{m:.2e}", "0", m, 1e-12)


def main():
    checks = {"lake": lake, "conservation": conservation, "wave": wave, "geostrophic": geostrophic, "jet": jet}
    if len(sys.argv) != 3 or sys.argv[1] not in checks:
        sys.exit(__doc__)
    checks[sys.argv[1]](sys.argv[2])
    sys.exit(0 if all_passed() else 1)


if __name__ == "__main__":
    main()
