"""Read benchmark JSON Lines and give every record the common fields that bench/compare and
postproc/plot_bench.py use: benchmark, case, throughput, throughput_unit, fraction_of_ceiling, and where
the record has the card's mean power, energy_pj_per_byte.
The drivers name their own fields (lbm: mlups/fraction_of_copy, md: atom_steps_per_s, weather:
cell_updates_per_s/fraction_of_copy); this is the one place that maps them."""
import json


def normalise(r):
    r = dict(r)
    if "fraction_of_ceiling" not in r and "fraction_of_copy" in r:
        r["fraction_of_ceiling"] = r["fraction_of_copy"]
    b = r.get("benchmark") or r.get("driver") or ""
    if b == "lbm_stream_collide" or "mlups" in r:
        r["benchmark"] = "lbm"
        r.setdefault("case", f"{r.get('lattice')}-{r.get('precision')}-{r.get('collision')}-{r.get('box')}-{r.get('n')}")
        r.setdefault("throughput", r.get("mlups"))
        r.setdefault("throughput_unit", "MLUPs/s")
    elif b == "md":
        r.setdefault("case", f"{r.get('config')}-{r.get('precision')}")
        r.setdefault("throughput", r.get("atom_steps_per_s"))
        r.setdefault("throughput_unit", "atom-steps/s")
    elif "kernel" in r and "cell_updates_per_s" in r:
        r["benchmark"] = "weather"
        dims = "x".join(str(r[k]) for k in ("nx", "ny", "nz") if k in r)
        r.setdefault("case", f"{r['kernel']}-{r.get('precision')}-{dims}")
        r.setdefault("throughput", r.get("cell_updates_per_s"))
        r.setdefault("throughput_unit", "cell-updates/s")
    elif b == "copy":
        r.setdefault("case", f"{r.get('space')}-{r.get('ceiling_size_bytes')}")
        r.setdefault("throughput", r.get("GB_per_s"))
        r.setdefault("throughput_unit", "GB/s")
        r.setdefault("fraction_of_ceiling", 1.0)
    # Energy per byte moved: the card's mean power over the timed calls (NVML, GPU records) over the byte
    # rate the protocol counts (lbm: MLUPs/s x bytes per cell; weather and copy: GB/s). At the card's power
    # limit this is what a kernel must cut to go faster (docs/performance.md, "Energy per byte").
    if "bytes_per_s" not in r:
        if r.get("benchmark") == "lbm" and r.get("mlups") and r.get("bytes_per_cell"):
            r["bytes_per_s"] = float(r["mlups"]) * 1e6 * float(r["bytes_per_cell"])
        elif r.get("GB_per_s"):
            r["bytes_per_s"] = float(r["GB_per_s"]) * 1e9
    if r.get("power_w_mean") and r.get("bytes_per_s"):
        r.setdefault("energy_pj_per_byte", float(r["power_w_mean"]) / float(r["bytes_per_s"]) * 1e12)
    return r


def read(path):
    """The records of a JSON Lines file as they are (lines not starting with '{' skipped)."""
    out = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{n}: not valid JSON ({e}); fix or drop that line")
    except OSError as e:
        raise SystemExit(f"{path}: {e.strerror}; name a JSON Lines file of benchmark records")
    return out


def load(path):
    return [normalise(r) for r in read(path)]
