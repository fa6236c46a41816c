#!/usr/bin/env python3
"""Summarise a vadv block timeline (TESSERA_VADV_TIMELINE=path; vadv_cuda.cpp writes the CSV).

Usage: vadv_timeline.py timeline.csv [--skip 10] [--slots 4] [--json out.json]

Per launch (the first --skip launches, the warm-up, are left out; medians over the rest, in us):
  span      first block start (past pdl_enter) to last block end
  gap       last block end of this launch to the first block start of the next
  waves     wave w of an SM = its blocks ordered by start, --slots per wave (the resident blocks per SM:
            4 for the default twisted kernel, 128 registers and 41 KB of shared memory per block)
  dur[w]    block duration (end - start) of wave w: median and 5-95 % range
  end1      spread of the first wave's block ends (5 % .. 95 % .. max after the first end)
  tail      last block end minus the median end of the last wave's blocks
  busy      sum of block durations / (slots x span): how full the slots were
"""
import argparse
import csv
import json
import statistics as st
from collections import defaultdict


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(round(p / 100 * (len(v) - 1)))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--skip", type=int, default=10)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--json")
    a = ap.parse_args()
    launches = defaultdict(list)
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            launches[int(r["launch"])].append((int(r["sm"]), int(r["resident_ns"]), int(r["start_ns"]), int(r["end_ns"])))
    ids = sorted(launches)
    sms = len({b[0] for l in ids for b in launches[l]})
    per = []
    for i, l in enumerate(ids):
        if l < a.skip or i + 1 >= len(ids):
            continue
        bl = launches[l]
        nxt = launches[ids[i + 1]]
        first = min(b[2] for b in bl)
        last = max(b[3] for b in bl)
        by_sm = defaultdict(list)
        for b in bl:
            by_sm[b[0]].append(b)
        slots = max(a.slots, 1)
        waves = defaultdict(list)
        for sm, bs in by_sm.items():
            bs.sort(key=lambda b: b[2])
            for k, b in enumerate(bs):
                waves[k // slots].append(b)
        nw = max(waves) + 1
        ends1 = sorted(b[3] - first for b in waves[0])
        last_w = waves[nw - 1]
        rec = {
            "launch": l,
            "blocks": len(bl),
            "span_us": (last - first) / 1e3,
            "gap_us": (min(b[2] for b in nxt) - last) / 1e3,
            "resident_wait_us": st.median(b[2] - b[1] for b in bl) / 1e3,
            "waves": nw,
            "blocks_per_wave": [len(waves[w]) for w in range(nw)],
            "dur_median_us": [st.median(b[3] - b[2] for b in waves[w]) / 1e3 for w in range(nw)],
            "dur_p5_us": [pct([b[3] - b[2] for b in waves[w]], 5) / 1e3 for w in range(nw)],
            "dur_p95_us": [pct([b[3] - b[2] for b in waves[w]], 95) / 1e3 for w in range(nw)],
            "wave_start_median_us": [st.median(b[2] - first for b in waves[w]) / 1e3 for w in range(nw)],
            "end1_p5_us": pct(ends1, 5) / 1e3,
            "end1_p95_us": pct(ends1, 95) / 1e3,
            "end1_max_us": ends1[-1] / 1e3,
            "tail_us": (last - st.median(b[3] for b in last_w)) / 1e3,
            "busy": sum(b[3] - b[2] for b in bl) / (sms * slots * (last - first)),
        }
        per.append(rec)
    if not per:
        raise SystemExit("vadv_timeline: no launches past --skip")
    keys = ["span_us", "gap_us", "resident_wait_us", "end1_p5_us", "end1_p95_us", "end1_max_us", "tail_us", "busy"]
    summ = {k: st.median(r[k] for r in per) for k in keys}
    nw = per[0]["waves"]
    for k in ["dur_median_us", "dur_p5_us", "dur_p95_us", "wave_start_median_us"]:
        summ[k] = [st.median(r[k][w] for r in per if len(r[k]) > w) for w in range(nw)]
    # Per multiprocessor: the median duration of its first-wave blocks over the launches (a fixed speed
    # per SM shows as a stable split; docs/performance.md, "vadv at 256^2 x 80").
    sm_d = defaultdict(list)
    for r in per:
        bl = sorted(launches[r["launch"]], key=lambda b: b[2])
        by_sm = defaultdict(list)
        for b in bl:
            by_sm[b[0]].append(b)
        for sm, bs in by_sm.items():
            for b in bs[: a.slots]:
                sm_d[sm].append(b[3] - b[2])
    sm_med = {sm: st.median(v) / 1e3 for sm, v in sorted(sm_d.items())}
    summ["sm_wave0_duration_median_us"] = sm_med
    summ["blocks_per_wave"] = per[0]["blocks_per_wave"]
    summ["launches"] = len(per)
    summ["sms"] = sms
    print(f"{a.csv}: {len(per)} launches of {per[0]['blocks']} blocks on {sms} SMs (medians, us)")
    print(f"  span {summ['span_us']:.2f}  gap to next launch {summ['gap_us']:.2f}  resident before start {summ['resident_wait_us']:.2f}  busy {summ['busy']:.3f}")
    for w in range(nw):
        print(f"  wave {w}: {summ['blocks_per_wave'][w]} blocks, start {summ['wave_start_median_us'][w]:.2f}, duration "
              f"{summ['dur_median_us'][w]:.2f} ({summ['dur_p5_us'][w]:.2f} .. {summ['dur_p95_us'][w]:.2f})")
    print(f"  first wave ends: 5 % {summ['end1_p5_us']:.2f}, 95 % {summ['end1_p95_us']:.2f}, last {summ['end1_max_us']:.2f}; "
          f"tail of the last wave {summ['tail_us']:.2f}")
    v = sorted(sm_med.values())
    cut = (v[0] + v[-1]) / 2
    fast = [sm for sm, d in sm_med.items() if d < cut]
    print(f"  first-wave block duration per SM: {v[0]:.2f} .. {v[-1]:.2f}; {len(fast)} SMs below {cut:.2f} "
          f"(median {st.median(d for d in v if d < cut):.2f}), {len(v) - len(fast)} above "
          f"(median {st.median(d for d in v if d >= cut):.2f}); the faster: {fast}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"file": a.csv, "summary": summ, "launches": per}, f, indent=1)


if __name__ == "__main__":
    main()
