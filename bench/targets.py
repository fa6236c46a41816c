"""The open speed targets (issues 5 and 8) against benchmark records: one line per target and case, the
best record of that case (whatever kernel ran it: the solver's auto takes the faster too), and whether it
meets the target or by how much it falls short. Only records run with the defaults count (no TESSERA_* knob
set in the record) unless --any-knobs, and only those of the sustained protocol (a warm-up of at least 3 s,
`warmup_s`: the card at its power limit, as in a long run; docs/performance.md) unless --burst. The records'
card must be the target's (an H200): records of another card are listed as such and never count as met.

    python3 bench/targets.py RECORDS.jsonl [...]  [--card H200] [--any-knobs] [--burst]

Exit status 0 whatever the verdicts (a report, not a test of the code); 1 on unreadable input."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records as bench_records  # noqa: E402  (bench/records.py)

# LBM: (lattice, storage, MLUPs/s), each judged in the cases: the periodic box and the walled one,
# 256^3 and 512^3. COSMO: (the record's kernel, fraction of copy), at every size recorded (256^2 x 80 and up).
LBM = [("D3Q19", "fp32", 25000.0), ("D3Q19", "fp16", 45000.0), ("D3Q27", "fp32", 17500.0)]
COSMO = [("cosmo_hdiff", 0.85), ("cosmo_vadv", 0.85)]


def defaults_only(r):
    return not any(v not in ("", None) for k, v in r.items() if k.startswith("TESSERA_"))


def sustained(r):  # the protocol's warm-up is 3 s; the records hold the time it took (3.00-3.3 s)
    return float(r.get("warmup_s") or 0.0) >= 2.5


def judge(rs, field, target, card):
    """The best of records rs by field, and its verdict against target (never met off the target's card)."""
    best = max(rs, key=lambda r: r[field])
    value = best[field]
    if card not in str(best.get("card", "")):
        return best, "not the target's card"
    return best, "met" if value >= target else f"short {100.0 * (1.0 - value / target):.1f} %"


def report(records, card):
    lines = []
    for lat, prec, target in LBM:
        for box in ("periodic", "walls"):
            for n in (256, 512):
                rs = [r for r in records if r.get("benchmark") == "lbm_stream_collide" and r.get("lattice") == lat
                      and r.get("precision") == prec and r.get("box") == box and r.get("n") == n and r.get("mlups")]
                label = f"LBM {lat} {prec} {box:8} {n}^3 >= {target:,.0f} MLUPs/s"
                if not rs:
                    lines.append(f"{label}: no record")
                    continue
                best, v = judge(rs, "mlups", target, card)
                lines.append(f"{label}: {best['mlups']:,.0f} ({best.get('kernel_form', best.get('kernel', '?'))}, "
                             f"{best.get('fraction_of_copy', 0):.3f} of copy, {best.get('card', '?')}, "
                             f"{best.get('commit', '?')}): {v}")
    for kern, target in COSMO:
        for n in sorted({r.get("nx") for r in records if r.get("kernel") == kern and r.get("nx")}):
            rs = [r for r in records if r.get("kernel") == kern and r.get("nx") == n and "fraction_of_copy" in r]
            if not rs:
                continue
            best, v = judge(rs, "fraction_of_copy", target, card)
            lines.append(f"{kern[6:]} {n}^2 x {best.get('nz', '?')} >= {target:.2f} of copy: "
                         f"{best['fraction_of_copy']:.3f} ({best.get('power_w_mean', 0):.0f} W, "
                         f"{best.get('card', '?')}, {best.get('commit', '?')}): {v}")
    return lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="+")
    ap.add_argument("--card", default="H200", help="the targets' card (a substring of the records' card)")
    ap.add_argument("--any-knobs", action="store_true", help="also records run with TESSERA_* knobs set")
    ap.add_argument("--burst", action="store_true", help="also records without the sustained warm-up")
    a = ap.parse_args(argv)
    recs = [r for p in a.records for r in bench_records.read(p)]
    if not a.burst:
        recs = [r for r in recs if sustained(r)]
    if not a.any_knobs:
        recs = [r for r in recs if defaults_only(r)]
    for line in report(recs, a.card):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
