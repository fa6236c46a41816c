"""CTest bench_targets_verdict: bench/targets.py on made-up records. Checks that the best default record of a
case is the one judged, that a record with a knob set, of the burst protocol or from another card never
counts as met, and that a case without records says so. Exit 1 with the line that differs."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


def lbm(n, mlups, card="NVIDIA H200", **kw):
    r = {"benchmark": "lbm_stream_collide", "lattice": "D3Q19", "precision": "fp32", "box": "periodic", "n": n,
         "mlups": mlups, "fraction_of_copy": mlups / 28100.0, "card": card, "commit": "abc1234", "kernel_form": "pair",
         "TESSERA_LBM_FUSED_LAG": "", "warmup_s": 3.01}
    r.update(kw)
    return r


records = [
    lbm(256, 24000.0), lbm(256, 23000.0, kernel_form="fused-pair"),  # the best default: 24,000
    lbm(256, 26000.0, TESSERA_LBM_FUSED_LAG="4"),                     # a knob set: left out
    lbm(256, 27000.0, warmup_s=0.0),                                  # burst protocol: left out
    lbm(512, 30000.0, card="NVIDIA H100 80GB HBM3"),                  # met, but not on the target's card
    {"benchmark": "weather", "kernel": "cosmo_vadv", "nx": 256, "nz": 80, "fraction_of_copy": 0.86,
     "card": "NVIDIA H200", "commit": "abc1234", "power_w_mean": 690.0, "warmup_s": 3.0},
]
want = [
    "LBM D3Q19 fp32 periodic 256^3 >= 25,000 MLUPs/s: 24,000 (pair, 0.854 of copy, NVIDIA H200, abc1234): short 4.0 %",
    "LBM D3Q19 fp32 periodic 512^3 >= 25,000 MLUPs/s: 30,000 (pair, 1.068 of copy, NVIDIA H100 80GB HBM3, abc1234): "
    "not the target's card",
    "LBM D3Q19 fp32 walls    256^3 >= 25,000 MLUPs/s: no record",
    "vadv 256^2 x 80 >= 0.85 of copy: 0.860 (690 W, NVIDIA H200, abc1234): met",
]
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "r.jsonl")
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    got = subprocess.run([sys.executable, os.path.join(here, "targets.py"), path], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    for w in want:
        if w not in got:
            print("bench_targets_verdict: missing line:\n  " + w + "\ngot:\n  " + "\n  ".join(got))
            sys.exit(1)
    # and with --any-knobs the knob's record is the best of its case
    got = subprocess.run([sys.executable, os.path.join(here, "targets.py"), "--any-knobs", path], capture_output=True,
                         text=True, check=True).stdout
    if "periodic 256^3 >= 25,000 MLUPs/s: 26,000" not in got or ": met" not in got.split("periodic 256^3")[1].splitlines()[0]:
        print("bench_targets_verdict: --any-knobs did not judge the 26,000 record:\n" + got)
        sys.exit(1)
print(f"bench_targets_verdict: {len(want) + 1} verdicts as expected")
