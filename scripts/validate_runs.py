"""The solver-run half of scripts/validate: standard library only, so that `scripts/validate --gpu
--runs-only` works on a machine without numpy, h5py, PyYAML or matplotlib.

WORK/runs.json records where and how the runs were made (host, commit, command lines, wall times, output
sizes, and what each solver's own run.json says about the device), so that a report written later from
copied outputs (--checks-only) can say which machine and commit produced them.
"""
import glob
import json
import os
import shlex
import shutil
import subprocess
import tarfile
import time

PART_BYTES = 15 * 2**20  # parts of a packed WORK: the device tool returns files of at most 16 MiB


def run(cmd, log, cwd):
    t0 = time.time()
    with open(log, "a") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        f.write(p.stdout)
    return p.returncode, p.stdout, time.time() - t0


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


def run_entry(e, dirs, exe, size, log, root):
    """Run one registry entry (all its runs, stopping at the first failure) and return its runs.json record.

    Each output directory also gets case.resolved.yaml (`SOLVER CASE --check --set ...`: the case with every
    default filled in) and loses the files matching the entry's `drop` globs (ones the checks do not read)."""
    rec = {"solver": e["solver"], "runs": [], "rc": 0, "secs": 0.0}
    for case, extra, out in dirs:
        shutil.rmtree(out, ignore_errors=True)
        sets = []
        for s in (e.get(size) or []) + extra:
            sets += ["--set", s]
        cmd = [exe, os.path.join(root, case), "-o", out, "-q", "--device", "gpu" if size == "gpu" else "cpu"] + sets
        # The resolved case, alongside the run (it mostly waits for MPI to start).
        chk = subprocess.Popen([exe, os.path.join(root, case), "--check"] + sets, cwd=root, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
        rc, _, secs = run(cmd, log, root)
        resolved = chk.communicate()[0]
        r = {"out": os.path.basename(out), "command": " ".join(shlex.quote(c) for c in cmd), "rc": rc, "secs": secs}
        rec["runs"].append(r)
        rec["secs"] += secs
        if rc != 0:
            rec["rc"] = rc
            print(f"validate: {e['id']}: the run failed (exit {rc}), see {log}")
            break
        if chk.returncode == 0:
            with open(os.path.join(out, "case.resolved.yaml"), "w") as f:
                f.write(resolved)
        dropped = [p for g in (e.get("drop") or []) for p in glob.glob(os.path.join(out, g))]
        for p in dropped:
            os.remove(p)
        r["dropped"] = len(dropped)
        r["bytes"] = dir_bytes(out)
        r["solver_run"] = solver_record(out)
        print(f"validate:   {r['out']}: {secs:.1f} s, {r['bytes'] / 2**20:.1f} MiB"
              + (f" ({len(dropped)} files dropped)" if dropped else ""), flush=True)
    return rec


def solver_record(out):
    """What the solver's run.json says about where it ran (absent fields are left out)."""
    try:
        with open(os.path.join(out, "run.json")) as f:
            j = json.load(f)
    except (OSError, ValueError):
        return {}
    keep = {k: j[k] for k in ("git_hash", "build", "device", "ranks", "wall_time_s") if k in j}
    if "gpu" in j:
        keep["gpu"] = {k: j["gpu"][k] for k in ("name", "driver_version", "compute_capability") if k in j["gpu"]}
    if j.get("rank_bindings"):
        keep["binding"] = j["rank_bindings"][0]
    return keep


class Manifest(dict):
    def __init__(self, path, **kw):
        super().__init__(**kw)
        self.path = path

    def save(self):
        with open(self.path + ".tmp", "w") as f:
            json.dump(self, f, indent=1)
        os.replace(self.path + ".tmp", self.path)

    def finish(self):
        self["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self["wall_s"] = time.time() - self.pop("_t0", time.time())
        self["bytes"] = dir_bytes(os.path.dirname(self.path))
        self.save()


def git(root, *args):
    try:
        p = subprocess.run(["git", "-C", root] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        return p.stdout.strip() if p.returncode == 0 else ""
    except OSError:
        return ""


def runs_manifest(work, size, build, load=False):
    path = os.path.join(work, "runs.json")
    if load:
        if not os.path.exists(path):  # outputs from an older scripts/validate: no record of the runs
            return Manifest(path, entries={})
        with open(path) as f:
            return Manifest(path, **json.load(f))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    entries = {}
    try:  # runs of other entries from an earlier invocation (--only) stay recorded
        with open(path) as f:
            old = json.load(f)
        if old.get("size") == size:
            entries = old.get("entries", {})
    except (OSError, ValueError):
        pass
    return Manifest(path, size=size, host=os.uname().nodename, commit=git(root, "rev-parse", "--short=12", "HEAD")
                    or os.environ.get("TESSERA_GIT_HASH") or "unknown",  # (trees copied without .git) dirty=bool(git(root, "status", "--porcelain", "--untracked-files=no")),
                    started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), build=build, entries=entries,
                    _t0=time.time())


def pack(work, dest):
    """WORK as a gzip'd tar in parts DEST/validation-runs.tgz.00, .01, ... of at most PART_BYTES each."""
    os.makedirs(dest, exist_ok=True)
    tmp = os.path.join(dest, "validation-runs.tgz")
    with tarfile.open(tmp, "w:gz") as t:  # (earlier packs inside WORK are left out)
        t.add(work, arcname=".", filter=lambda m: None if "validation-runs.tgz" in m.name else m)
    parts = []
    with open(tmp, "rb") as f:
        while True:
            chunk = f.read(PART_BYTES)
            if not chunk:
                break
            parts.append(f"{tmp}.{len(parts):02d}")
            with open(parts[-1], "wb") as p:
                p.write(chunk)
    os.remove(tmp)
    return parts


def unpack(work):
    """Undo pack() when WORK holds validation-runs.tgz.NN parts (copied back from the GPU machine)."""
    parts = sorted(glob.glob(os.path.join(work, "validation-runs.tgz.[0-9][0-9]")))
    if not parts:
        return
    tmp = os.path.join(work, "validation-runs.tgz")
    with open(tmp, "wb") as f:
        for p in parts:
            with open(p, "rb") as src:
                shutil.copyfileobj(src, f)
    with tarfile.open(tmp, "r:gz") as t:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.12 (and security backports): no absolute/.. paths
            t.extractall(work, filter="data")
        else:
            t.extractall(work)
    os.remove(tmp)
    print(f"validate: unpacked {len(parts)} parts into {work}")
