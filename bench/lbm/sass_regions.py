"""Where a kernel's time goes, from ncu's source page (SASS): per run of N consecutive instructions, the warp
instructions executed, the warp-state samples (proportional to warp time spent there) and the main stall
reasons, with the memory and control instructions the run holds; then the totals per stall reason, and with
two files their difference (the second file's kernel as the baseline).

    ncu ... --section WarpStateStats --section SourceCounters -o rep ...
    ncu --import rep.ncu-rep --page source --csv --print-source sass > kernel.csv
    python3 bench/lbm/sass_regions.py kernel.csv [baseline.csv] [--chunk 100]

Used for docs/performance.md, LBM item 48 (the walled fp16 fused launch against the periodic one)."""
import argparse
import csv
import sys

MARK = ("LDG", "STG", "LDS", "STS", "SHFL", "BAR", "NANOSLEEP", "ATOMG", "RED", "MEMBAR", "VOTE", "CALL", "EXIT")
MAIN = ("stall_long_sb", "stall_wait", "stall_no_inst", "stall_barrier", "stall_short_sb", "stall_branch_resolving")


def load(path):
    """The instructions of the file's (first) kernel: address, SASS text, samples, executed, stall columns."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 3 or "Address" not in rows[1]:
        sys.exit(f"sass_regions: {path}: not an ncu source-page CSV (want --page source --csv --print-source sass)")
    head = rows[1]
    col = {h: i for i, h in enumerate(head)}
    stalls = [h for h in head if h.startswith("stall_") and "Not Issued" not in h]

    def num(r, h):
        try:
            return float(r[col[h]].replace(",", ""))
        except (ValueError, IndexError):
            return 0.0

    out = []
    for r in rows[2:]:
        if len(r) < len(head) or not r[0].startswith("0x"):
            continue
        out.append({"sass": r[col["Source"]].strip(), "samples": num(r, "Warp Stall Sampling (All Samples)"),
                    "executed": num(r, "Instructions Executed"), **{h: num(r, h) for h in stalls}})
    return rows[0][1] if len(rows[0]) > 1 else "?", out, stalls


def opcode(sass):
    words = sass.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def regions(name, ins, chunk):
    print(f"== {name[:120]}")
    print(f"{len(ins)} instructions, {sum(i['executed'] for i in ins) / 1e6:.1f} M warp instructions executed, "
          f"{sum(i['samples'] for i in ins):,.0f} samples")
    print(f"{'from':>5} {'exec M':>7} {'samples':>8} " + " ".join(f"{m[6:]:>9}" for m in MAIN) + "  holds")
    for a in range(0, len(ins), chunk):
        part = ins[a:a + chunk]
        ops = sorted({opcode(i["sass"]) for i in part if opcode(i["sass"]).split(".")[0] in MARK})
        print(f"{a:5d} {sum(i['executed'] for i in part) / 1e6:7.1f} {sum(i['samples'] for i in part):8.0f} "
              + " ".join(f"{sum(i.get(m, 0.0) for i in part):9.0f}" for m in MAIN) + "  " + " ".join(ops)[:100])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("baseline", nargs="?")
    ap.add_argument("--chunk", type=int, default=100)
    a = ap.parse_args()
    name, ins, stalls = load(a.csv)
    regions(name, ins, a.chunk)
    if a.baseline:
        bname, base, _ = load(a.baseline)
        regions(bname, base, a.chunk)
        print("== stall samples: first file, baseline, difference")
        for s in stalls:
            x, y = sum(i[s] for i in ins), sum(i[s] for i in base)
            if x + y >= 500:
                print(f"{s:24} {x:8.0f} {y:8.0f} {x - y:+8.0f}")
        print(f"{'warp instructions (M)':24} {sum(i['executed'] for i in ins) / 1e6:8.1f} "
              f"{sum(i['executed'] for i in base) / 1e6:8.1f}")


if __name__ == "__main__":
    main()
