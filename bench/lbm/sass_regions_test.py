"""CTest bench_sass_regions: bench/lbm/sass_regions.py on two made-up ncu source-page CSVs (the layout ncu
2025.3 writes: the kernel's name, the header, one row per SASS instruction). Checks the per-run sums, the
memory instructions named per run, the stall totals and their difference, and that a file of another kind is
refused with its name. Exit 1 with the line that differs."""
import csv
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
HEAD = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
        "# Samples", "Instructions Executed", "stall_long_sb", "stall_wait", "stall_wait (Not Issued)"]


def write(path, name, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["Kernel Name", name])
        w.writerow(HEAD)
        for i, (sass, samples, executed, lsb, wait) in enumerate(rows):
            w.writerow([hex(0x1000 + 16 * i), "      " + sass, samples, 0, samples, f"{executed:,}", lsb, wait, 7])


def main():
    with tempfile.TemporaryDirectory() as d:
        return check(d)


def check(d):
    a, b, bad = os.path.join(d, "a.csv"), os.path.join(d, "b.csv"), os.path.join(d, "bad.csv")
    write(a, "kernel_a", [("LDG.E.U8 R1, [R2.64]", 300, 2000000, 250, 10), ("@P0 STG.E.U16 [R4.64], R5", 100, 1000000, 0, 90),
                          ("FADD R1, R2, R3", 700, 3000000, 0, 600)])
    write(b, "kernel_b", [("FADD R1, R2, R3", 400, 1000000, 0, 300), ("EXIT", 100, 500000, 0, 0)])
    with open(bad, "w") as fh:
        fh.write("not,a,report\n")
    out = subprocess.run([sys.executable, os.path.join(here, "sass_regions.py"), a, b, "--chunk", "2"],
                         capture_output=True, text=True, check=True).stdout
    want = [
        "3 instructions, 6.0 M warp instructions executed, 1,100 samples",
        "    0     3.0      400       250       100",      # the first run of 2: its sums
        "LDG.E.U8 STG.E.U16",                              # the memory instructions it holds (predicate dropped)
        "    2     3.0      700         0       600",
        "2 instructions, 1.5 M warp instructions executed, 500 samples",
        "stall_wait                    700      300     +400",
        "warp instructions (M)         6.0      1.5",
    ]
    for line in want:
        if line not in out:
            print(f"missing: {line!r}\n--- output:\n{out}")
            return 1
    if "stall_wait (Not Issued)" in out or "stall_long_sb " in out:  # not-issued columns left out; < 500 samples
        print(f"unexpected stall line\n--- output:\n{out}")
        return 1
    r = subprocess.run([sys.executable, os.path.join(here, "sass_regions.py"), bad], capture_output=True, text=True)
    if r.returncode == 0 or "bad.csv" not in r.stderr + r.stdout:
        print(f"a file of another kind was not refused by name: {r.returncode} {r.stderr}")
        return 1
    print("sass regions as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
