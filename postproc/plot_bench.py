#!/usr/bin/env python3
"""Draw benchmark results (bench/results/*.jsonl) as bar charts of the fraction of the copy ceiling.

Usage: postproc/plot_bench.py RESULTS.jsonl [-o bench.png]
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("-o", "--output", default="bench.png")
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
    import records  # noqa: E402

    recs = [r for r in records.load(a.results)
            if "case" in r and "fraction_of_ceiling" in r and r.get("benchmark") != "copy"]
    if not recs:
        raise SystemExit(f"{a.results}: no records with case and fraction_of_ceiling")
    labels = [f"{r['benchmark']}\n{r['case']}" for r in recs]
    frac = [100.0 * float(r["fraction_of_ceiling"]) for r in recs]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(recs)), 4.5))
    bars = ax.bar(range(len(recs)), frac, color="#3b75af")
    for b, r in zip(bars, recs):
        ax.text(b.get_x() + b.get_width() / 2, b.get_height() + 1,
                f"{float(r['throughput']):.4g}\n{r.get('throughput_unit', '')}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(recs)))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("% of measured copy bandwidth")
    ax.set_ylim(0, 115)
    card = recs[0].get("card", "?")
    ax.set_title(f"Tessera benchmarks on {card} (commit {recs[0].get('commit', '?')})")
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
