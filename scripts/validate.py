#!/usr/bin/env python3
"""Run the validation cases of cases/validation.yaml and write the report (docs/validation.md).

usage: scripts/validate [--gpu] [--build DIR] [--only ID[,ID...]] [--report [FILE]] [--work DIR] [--list]
                        [--runs-only [--pack DIR] | --checks-only | --dry-run]

  --gpu          full-size runs on the GPU (the entries' `gpu` overrides, --device gpu, build/cuda)
  --build        build directory holding bin/lbm, bin/md, bin/weather (default build/cpu, or build/cuda with --gpu)
  --only         run only these entries (ids from --list)
  --report       where to write the Markdown report (default docs/validation.md, with --gpu docs/validation-gpu.md;
                 its PNGs go beside it in <report stem>/)
  --work         where the runs write their output (default out/validation[-gpu])
  --runs-only    run the solvers and stop: no checks, no report. Needs only the Python standard library
                 (for the GPU machine); writes WORK/runs.json (host, commit, command lines, times, sizes)
  --pack DIR     with --runs-only: also pack WORK into DIR/validation-runs.tgz.NN, parts of at most 15 MiB
  --checks-only  run the checks on the outputs in WORK and write the report; no solver runs (a missing
                 output is a failed row). Unpacks WORK/validation-runs.tgz.* first when WORK has no runs.json.
  --dry-run      resolve every run's case with its overrides (SOLVER CASE --check --set ...) and stop: a bad
                 override fails here, not in a GPU session. With --gpu, any build's binaries will do.

Full size on a GPU machine, checks here (the GPU machine need not have numpy, h5py or matplotlib):
  there: scripts/validate --gpu --runs-only --work out/validation-gpu [--pack DIR]
  here:  scripts/validate --gpu --checks-only --work out/validation-gpu --report

Each entry of cases/validation.yaml names a solver, a case file, `--set` overrides for the CPU-sized and
the GPU-sized runs, output files the checks do not read (`drop`, deleted after the run to keep the
output small) and check commands (postproc scripts). A check prints `VALIDATION {json}` lines
(postproc/validation_record.py) that become rows of the report; a check that prints none is one row
judged by its exit status. The exit status is 1 when any row fails or a run fails.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_registry  # noqa: E402
from validate_report import write_report  # noqa: E402
from validate_runs import pack, run, run_entry, runs_manifest, unpack  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_REPORT = os.path.join(ROOT, "docs", "validation.md")


def run_dirs(e, work):
    """The entry's runs: [(case file, extra --set list, output directory)]; several runs ("cases": [...])
    write {out0}, {out1}, ..."""
    runs = e["cases"] if "cases" in e else [e["case"]]
    out = []
    for n, case in enumerate(runs):
        extra = []
        if isinstance(case, dict):  # {case: FILE, set: [KEY=VALUE, ...]}: overrides of this run only
            case, extra = case["case"], case.get("set") or []
        out.append((case, extra, os.path.join(work, e["id"] if len(runs) == 1 else f"{e['id']}_{n}")))
    return out


def check_entry(e, outs, figdir, report, log):
    """Run the entry's checks; returns (rows, png paths relative to the report)."""
    fmt = dict(out=outs[0], root=ROOT, **{f"out{n}": o for n, o in enumerate(outs)})
    rows, pngs = [], []
    for n, chk in enumerate(e.get("checks") or []):
        png = os.path.join(figdir, f"{e['id']}{'' if n == 0 else f'_{n}'}.png")
        args = [x.format(png=png, **fmt) for x in shlex.split(chk)]
        if args[0].endswith(".py"):
            args = [sys.executable, os.path.join(ROOT, args[0])] + args[1:]
        crc, text, _ = run(args, log, ROOT)
        recs = [json.loads(ln[len("VALIDATION "):]) for ln in text.splitlines() if ln.startswith("VALIDATION ")]
        if os.path.exists(png):
            pngs.append(os.path.relpath(png, os.path.dirname(report)))
        if not recs and crc == 0:  # a plot without records
            continue
        script = os.path.basename(args[1]) if len(args) > 1 else chk
        if not recs:  # a failed check without records: one row from its exit status and last line
            last = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("wrote ")]
            recs = [dict(quantity=script, result=last[-1] if last else "", reference="(see script)",
                         error=float(crc != 0), tolerance=0.0, unit="", note="judged by the script's exit status",
                         **{"pass": crc == 0})]
        elif crc != 0 and all(r["pass"] for r in recs):
            recs.append(dict(quantity=f"{script}: exit status", result=f"exit {crc}", reference="exit 0", error=1.0,
                             tolerance=0.0, unit="", note=f"see {log}", **{"pass": False}))
        rows += recs
    return rows, pngs


def dry_run(entries, size, build):
    """SOLVER CASE --check --set ... for every run; concurrently, since each mostly waits for MPI to start."""
    from concurrent.futures import ThreadPoolExecutor

    cmds = []
    for e in entries:
        for case, extra, _ in run_dirs(e, "."):
            cmd = [os.path.join(build, "bin", e["solver"]), os.path.join(ROOT, case), "--check"]
            for s in (e.get(size) or []) + extra:
                cmd += ["--set", s]
            cmds.append((e["id"], case, cmd))
    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(lambda c: subprocess.run(c[2], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                                      text=True), cmds))
    for (eid, case, cmd), p in zip(cmds, done):
        print(f"validate: {eid}: {case} {' '.join(cmd[3:])}: "
              + ("ok" if p.returncode == 0 else f"FAILS (exit {p.returncode}): {p.stderr.strip()}"))
    return 1 if any(p.returncode for p in done) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--build")
    ap.add_argument("--only")
    ap.add_argument("--report", nargs="?", const="", default="")
    ap.add_argument("--work")
    ap.add_argument("--list", action="store_true")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--checks-only", action="store_true")
    mode.add_argument("--runs-only", action="store_true")
    mode.add_argument("--dry-run", action="store_true")
    ap.add_argument("--pack")
    a = ap.parse_args()
    if a.pack and not a.runs_only:
        ap.error("--pack goes with --runs-only")

    entries = validate_registry.load(os.path.join(ROOT, "cases", "validation.yaml"))
    if a.list:
        for e in entries:
            print(f"{e['id']:28s} {e['solver']:8s} {e.get('case') or e['cases']}  {e['title']}")
        return 0
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {e["id"] for e in entries}
        if unknown:
            sys.exit(f"validate: unknown id(s) {sorted(unknown)} (see scripts/validate --list)")
        entries = [e for e in entries if e["id"] in want]
    size = "gpu" if a.gpu else "cpu"
    # The full-size (GPU) report sits beside the CPU-sized one instead of replacing it.
    if not a.report:
        a.report = DEFAULT_REPORT if size == "cpu" else os.path.join(ROOT, "docs", "validation-gpu.md")
    build = os.path.abspath(a.build or os.path.join(ROOT, "build", "cuda" if a.gpu else "cpu"))
    work = os.path.abspath(a.work or os.path.join(ROOT, "out", "validation-gpu" if a.gpu else "validation"))
    if a.dry_run:
        return dry_run(entries, size, build)
    os.makedirs(work, exist_ok=True)
    if a.checks_only and not os.path.exists(os.path.join(work, "runs.json")):
        unpack(work)
    log = os.path.join(work, "checks.log" if a.checks_only else "validate.log")
    open(log, "w").close()

    # Runs (not with --checks-only): each entry's solver runs, recorded in WORK/runs.json.
    manifest = runs_manifest(work, size, build) if not a.checks_only else None
    if not a.checks_only:
        for e in entries:
            exe = os.path.join(build, "bin", e["solver"])
            if not os.access(exe, os.X_OK):
                sys.exit(f"validate: {exe} not found: build first (cmake --preset {'cuda' if a.gpu else 'cpu'} && "
                         f"cmake --build --preset {'cuda' if a.gpu else 'cpu'}) or give --build")
            print(f"validate: {e['id']}: {e['title']} ...", flush=True)
            rec = run_entry(e, run_dirs(e, work), exe, size, log, ROOT)
            rec.update(host=manifest["host"], commit=manifest["commit"], started=manifest["started"])
            manifest["entries"][e["id"]] = rec
            manifest.save()
        manifest.finish()
    if a.runs_only:
        failed = [e["id"] for e in entries if manifest["entries"][e["id"]]["rc"] != 0]
        print(f"validate: runs done in {manifest['wall_s']:.0f} s, {manifest['bytes'] / 2**20:.1f} MiB in {work}"
              + (f"; FAILED: {', '.join(failed)} (see {log})" if failed else ""))
        if a.pack:
            for p in pack(work, a.pack):
                print(f"validate: packed {p}")
        return 1 if failed else 0

    # Checks and the report.
    if manifest is None:
        manifest = runs_manifest(work, size, build, load=True)
        if manifest.get("size", size) != size:
            sys.exit(f"validate: {work} holds {manifest['size']}-sized runs (runs.json): "
                     f"{'drop' if size == 'gpu' else 'add'} --gpu")
    report = os.path.abspath(a.report)
    figdir = os.path.splitext(report)[0]
    os.makedirs(figdir, exist_ok=True)
    rows, failed = [], 0
    for e in entries:
        dirs = run_dirs(e, work)
        rec = manifest["entries"].get(e["id"], {})
        secs = rec.get("secs", 0.0)
        missing = [d for _, _, d in dirs if not os.path.isdir(d)]
        base = dict(id=e["id"], title=e["title"], secs=secs, png=[], reused=a.checks_only)
        if rec.get("rc", 0) != 0 or missing:
            why = (f"exit {rec['rc']}" if rec.get("rc", 0) != 0 else
                   f"no output {os.path.relpath(missing[0], work)} in {work}: run scripts/validate"
                   f"{' --gpu' if a.gpu else ''} --runs-only --work {work} first")
            rows.append(dict(base, quantity="run", result=why, reference="exit 0", error=1.0, tolerance=0.0, unit="",
                             note=f"see {os.path.join(work, 'validate.log')}", ok=False))
            failed += 1
            print(f"validate: {e['id']}: {why}")
            continue
        recs, pngs = check_entry(e, [d for _, _, d in dirs], figdir, report, log)
        for k, r in enumerate(recs):
            ok = bool(r["pass"])
            failed += not ok
            rows.append(dict(base, quantity=r["quantity"], result=r["result"], reference=r["reference"],
                             error=r["error"], tolerance=r["tolerance"], unit=r.get("unit", ""),
                             note=r.get("note", ""), png=pngs if k == 0 else [], ok=ok))
            print(f"validate:   {'PASS' if ok else 'FAIL'}  {r['quantity']}: {r['result']} (ref {r['reference']})")
    write_report(report, rows, entries, size, manifest, ROOT)
    print(f"validate: {len(rows) - failed}/{len(rows)} checks passed; report {report}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
