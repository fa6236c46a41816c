"""docs/validation.md from the rows of scripts/validate: the header (which machine and commit made the runs
and the checks, and the commands that regenerate the page), the table, the plots and the notes."""
import os
import subprocess
import time

USAGE = [
    "To regenerate it: `scripts/validate --report` runs the CPU-sized set here (6 minutes of runs on 2 cores).",
    "The full-size set runs on a GPU machine in two halves; the first needs only the Python standard library:",
    "",
    "```",
    "scripts/validate --gpu --runs-only --work out/validation-gpu    # on the GPU machine (build/cuda); sized for < 4 min on one H200",
    "scripts/validate --gpu --checks-only --work out/validation-gpu --report    # here, on the copied out/validation-gpu",
    "```",
    "",
    "(`--pack DIR` after the first command writes the outputs as `DIR/validation-runs.tgz.NN` parts of at most "
    "15 MiB; copied into `out/validation-gpu/`, the second command unpacks them.)",
]


def cell(x):  # a Markdown table cell: '|' inside text would end the cell
    return str(x).replace("|", "\\|")


def provenance(manifest, size):
    """One sentence on where the runs were made, from WORK/runs.json and the solvers' run.json files."""
    if not manifest.get("entries") or "host" not in manifest:
        return "The runs' outputs were reused; they carry no record of where they were made (no runs.json)."
    devices, gits = set(), set()
    made = {(rec.get("host"), rec.get("commit")) for rec in manifest["entries"].values() if rec.get("host")}
    for rec in manifest["entries"].values():
        for r in rec.get("runs", []):
            s = r.get("solver_run") or {}
            if s.get("git_hash"):
                gits.add(s["git_hash"])
            g = s.get("gpu") or {}
            if g.get("name"):
                devices.add(f"{g['name']} (driver {g.get('driver_version', '?')}, sm {g.get('compute_capability', '?')})")
            elif s.get("device"):
                devices.add(f"{s['device']} ({s.get('build', '')})")
    return (f"The runs were made by `scripts/validate{' --gpu' if size == 'gpu' else ''}` on `{manifest['host']}` "
            f"at commit `{manifest.get('commit', '?')}`{' (with uncommitted changes)' if manifest.get('dirty') else ''}, "
            f"{manifest.get('started', '?')}, {manifest.get('wall_s', 0):.0f} s in all"
            + (f", on {', '.join(sorted(devices))}" if devices else "")
            + (f"; the solvers report git `{', '.join(sorted(gits))}`" if gits else "") + "."
            # entries rerun on their own (--only) at another commit or on another host
            + (" Entries were run at: " + "; ".join(f"`{h}` `{c}`" for h, c in sorted(made)) + "." if len(made) > 1
               else ""))


def write_report(path, rows, entries, size, manifest, root):
    git = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    lines = ["# Validation report", "",
             f"Checks run by `scripts/validate{' --gpu' if size == 'gpu' else ''}` at commit `{git}` on "
             f"`{os.uname().nodename}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, on "
             f"{'the full-size runs (GPU)' if size == 'gpu' else 'the CPU-sized runs'}. " + provenance(manifest, size),
             "", "The cases and their checks are listed in `cases/validation.yaml`; each check is a `postproc/` "
             "script that prints machine-readable records (`postproc/validation_record.py`).", ""] + USAGE + [
             "", f"**{sum(r['ok'] for r in rows)} of {len(rows)} checks pass.**", "",
             "| case | quantity | reference | result | error | tolerance | | run time |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        r = {k: (cell(v) if isinstance(v, str) else v) for k, v in r.items()}
        err = f"{r['error']:.3g}" if isinstance(r["error"], (int, float)) else str(r["error"])
        unit = f" {r['unit']}" if r["unit"] else ""
        run_time = f"{r['secs']:.0f} s" if r["secs"] > 0 else "reused output"
        lines.append(f"| {r['title']} | {r['quantity']} | {r['reference']}{unit} | {r['result']}{unit} | {err} | "
                     f"{r['tolerance']:.3g} | {'pass' if r['ok'] else '**FAIL**'} | {run_time} |")
    lines += ["", "## Plots", ""]
    by_id = {e["id"]: e for e in entries}
    seen = set()
    for r in rows:
        if r["id"] in seen or not r["png"]:
            continue
        seen.add(r["id"])
        e = by_id[r["id"]]
        lines += [f"### {e['title']}", "", " ".join(str(e.get("about", "")).split()), ""]
        lines += [f"![{e['title']}]({p})" for p in r["png"]] + [""]
    notes = [r for r in rows if r["note"]]
    if notes:
        lines += ["## Notes", ""] + [f"- {r['title']}, {r['quantity']}: {r['note']}" for r in notes] + [""]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)
