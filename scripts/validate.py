#!/usr/bin/env python3
"""Run the validation cases of cases/validation.yaml and write the report (docs/validation.md).

usage: scripts/validate [--gpu] [--build DIR] [--only ID[,ID...]] [--report FILE] [--work DIR] [--list]

  --gpu       full-size runs on the GPU (the entries' `gpu` overrides, --device gpu, build/cuda)
  --build     build directory holding bin/lbm, bin/md, bin/weather (default build/cpu, or build/cuda with --gpu)
  --only      run only these entries (ids from --list)
  --report    where to write the Markdown report (default docs/validation.md; its PNGs go beside it in
              <report stem>/)
  --work      where the runs write their output (default out/validation[-gpu])
  --checks-only  reuse the outputs already in --work (rerun the checks and the report, not the solvers)

Each entry of cases/validation.yaml names a solver, a case file, `--set` overrides for the CPU-sized and
the GPU-sized runs, and check commands (postproc scripts). A check prints `VALIDATION {json}` lines
(postproc/validation_record.py) that become rows of the report; a check that prints none is one row
judged by its exit status. The exit status is 1 when any row fails or a run fails.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, log, cwd=ROOT):
    t0 = time.time()
    with open(log, "a") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        f.write(p.stdout)
    return p.returncode, p.stdout, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--build")
    ap.add_argument("--only")
    ap.add_argument("--report", default=os.path.join(ROOT, "docs", "validation.md"))
    ap.add_argument("--work")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--checks-only", action="store_true")
    a = ap.parse_args()

    registry = os.path.join(ROOT, "cases", "validation.yaml")
    entries = yaml.safe_load(open(registry))
    if a.list:
        for e in entries:
            print(f"{e['id']:28s} {e['solver']:8s} {e['case']}  {e['title']}")
        return 0
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {e["id"] for e in entries}
        if unknown:
            sys.exit(f"validate: unknown id(s) {sorted(unknown)} (see scripts/validate --list)")
        entries = [e for e in entries if e["id"] in want]
    build = os.path.abspath(a.build or os.path.join(ROOT, "build", "cuda" if a.gpu else "cpu"))
    work = os.path.abspath(a.work or os.path.join(ROOT, "out", "validation-gpu" if a.gpu else "validation"))
    report = os.path.abspath(a.report)
    figdir = os.path.splitext(report)[0]
    os.makedirs(work, exist_ok=True)
    os.makedirs(figdir, exist_ok=True)
    log = os.path.join(work, "validate.log")
    open(log, "w").close()
    size = "gpu" if a.gpu else "cpu"

    rows, failed = [], 0
    for e in entries:
        exe = os.path.join(build, "bin", e["solver"])
        if not os.access(exe, os.X_OK):
            sys.exit(f"validate: {exe} not found: build first (scripts/build {'cuda' if a.gpu else 'cpu'}) or give --build")
        # One run, or several ("cases": [...]) whose output directories are {out0}, {out1}, ...
        runs = e["cases"] if "cases" in e else [e["case"]]
        outs = [os.path.join(work, e["id"] if len(runs) == 1 else f"{e['id']}_{n}") for n in range(len(runs))]
        print(f"validate: {e['id']}: {e['title']} ...", flush=True)
        rc, secs = 0, 0.0
        for case, out in zip(runs, outs):
            extra = []
            if isinstance(case, dict):  # {case: FILE, set: [KEY=VALUE, ...]}: overrides of this run only
                case, extra = case["case"], case.get("set") or []
            if a.checks_only and os.path.isdir(out):
                continue
            subprocess.run(["rm", "-rf", out])
            cmd = [exe, os.path.join(ROOT, case), "-o", out, "-q", "--device", "gpu" if a.gpu else "cpu"]
            for s_ in (e.get(size) or []) + extra:
                cmd += ["--set", s_]
            rc, _, t = run(cmd, log)
            secs += t
            if rc != 0:
                break
        if rc != 0:
            rows.append(dict(id=e["id"], title=e["title"], quantity="run", result=f"exit {rc}", reference="exit 0",
                             error=float(rc), tolerance=0.0, unit="", note=f"see {log}", png=[], secs=secs, ok=False))
            failed += 1
            print(f"validate: {e['id']}: the run failed (exit {rc}), see {log}")
            continue
        fmt = dict(out=outs[0], root=ROOT, **{f"out{n}": o for n, o in enumerate(outs)})
        pngs = []
        for n, chk in enumerate(e.get("checks") or []):
            png = os.path.join(figdir, f"{e['id']}{'' if n == 0 else f'_{n}'}.png")
            args = [x.format(png=png, **fmt) for x in shlex.split(chk)]
            if args[0].endswith(".py"):
                args = [sys.executable, os.path.join(ROOT, args[0])] + args[1:]
            crc, text, _ = run(args, log)
            recs = [json.loads(l[len("VALIDATION "):]) for l in text.splitlines() if l.startswith("VALIDATION ")]
            if os.path.exists(png):
                pngs.append(os.path.relpath(png, os.path.dirname(report)))
            if not recs and crc == 0:  # a plot without records
                continue
            if not recs:  # a failed check without records: one row from its exit status and last line
                last = [l for l in text.splitlines() if l.strip() and not l.startswith("wrote ")]
                recs = [dict(quantity=os.path.basename(args[1]) if len(args) > 1 else chk,
                             result=last[-1] if last else "", reference="(see script)", error=float(crc != 0),
                             tolerance=0.0, unit="", note="judged by the script's exit status", **{"pass": crc == 0})]
            elif crc != 0 and all(r["pass"] for r in recs):
                recs.append(dict(quantity=f"{args[1] if len(args) > 1 else chk}: exit status", result=f"exit {crc}",
                                 reference="exit 0", error=1.0, tolerance=0.0, unit="", note=f"see {log}",
                                 **{"pass": False}))
            for r in recs:
                ok = bool(r["pass"])
                failed += not ok
                rows.append(dict(id=e["id"], title=e["title"], quantity=r["quantity"], result=r["result"],
                                 reference=r["reference"], error=r["error"], tolerance=r["tolerance"],
                                 unit=r.get("unit", ""), note=r.get("note", ""), png=[], secs=secs, ok=ok))
                print(f"validate:   {'PASS' if ok else 'FAIL'}  {r['quantity']}: {r['result']} (ref {r['reference']})")
        for r in rows:
            if r["id"] == e["id"]:
                r["png"] = pngs
                break
    write_report(report, rows, entries, size, build)
    print(f"validate: {len(rows) - failed}/{len(rows)} checks passed; report {report}")
    return 1 if failed else 0


def write_report(path, rows, entries, size, build):
    git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    host = os.uname().nodename
    lines = ["# Validation report", "",
             f"Generated by `scripts/validate{' --gpu' if size == 'gpu' else ''}` at commit `{git}` on `{host}` "
             f"({'GPU-sized runs on the GPU' if size == 'gpu' else 'CPU-sized runs on the host'}), "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. The cases and their checks are listed in "
             "`cases/validation.yaml`; each check is a `postproc/` script. Rerun it to regenerate this page.", "",
             f"**{sum(r['ok'] for r in rows)} of {len(rows)} checks pass.**", "",
             "| case | quantity | reference | result | error | tolerance | | run time |",
             "|---|---|---|---|---|---|---|---|"]
    def cell(x):  # a Markdown table cell: '|' inside text would end the cell
        return str(x).replace("|", "\\|")

    for r in rows:
        r = {k: (cell(v) if isinstance(v, str) else v) for k, v in r.items()}
        err = f"{r['error']:.3g}" if isinstance(r["error"], (int, float)) else str(r["error"])
        unit = f" {r['unit']}" if r["unit"] else ""
        run_time = f"{r['secs']:.0f} s" if r["secs"] > 0 else "reused output"
        lines.append(f"| {r['title']} | {r['quantity']} | {r['reference']}{unit} | {r['result']}{unit} | {err} | "
                     f"{r['tolerance']:.3g} | {'pass' if r['ok'] else '**FAIL**'} | "
                     f"{run_time} |")
    lines += ["", "## Plots", ""]
    by_id = {e["id"]: e for e in entries}
    seen = set()
    for r in rows:
        if r["id"] in seen or not r["png"]:
            continue
        seen.add(r["id"])
        e = by_id[r["id"]]
        lines += [f"### {e['title']}", "", e.get("about", "").strip(), ""]
        lines += [f"![{e['title']}]({p})" for p in r["png"]] + [""]
    notes = [r for r in rows if r["note"]]
    if notes:
        lines += ["## Notes", ""] + [f"- {r['title']}, {r['quantity']}: {r['note']}" for r in notes] + [""]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
