#!/bin/bash
export GIT_DIR=/nonexistent TESSERA_GIT_HASH=$1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 TESSERA_REQUIRE_GPU=1
mkdir -p $OUT/r
t0=$(date +%s)
cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/r/configure.log 2>&1
cmake --build --preset cuda -j $(nproc) > $OUT/r/build.log 2>&1 || { grep -E "error|FAILED" $OUT/r/build.log | head -30; exit 1; }
echo "built $(( $(date +%s)-t0 )) s"
ctest --test-dir build/cuda -L gpu -R md -j 6 --output-on-failure > $OUT/r/ctest.log 2>&1; grep -E "tests passed|Failed|\*\*\*" $OUT/r/ctest.log | tail -15
grep -B2 -A12 "FAILED:" $OUT/r/ctest.log | head -60
echo "tests $(( $(date +%s)-t0 )) s"
build/cuda/bin/bench_md --device gpu --precision mixed --configs hoomd_lj_64k,lj_liquid_2M,kremer_grest_1M --reps 3 --out $OUT/r/md.jsonl > $OUT/r/md.log 2>&1
python3 -c "
import json
for l in open('$OUT/r/md.jsonl'):
    r=json.loads(l); print(r['config'], round(r['steps_per_s']), '%.3e'%r['atom_steps_per_s'], 'rebuild', r['rebuild_ms_each'], 'force', r['force_ms_each'], 'builds', r['neighbor_builds_per_rep'])
"
echo "bench $(( $(date +%s)-t0 )) s"
timeout 200 ncu --clock-control none -k "regex:WrapBin|Onesweep|DeviceRadix|Permute|permute|MarkCells|PackF4|fill_fast|max_count|Snapshot|Iota|Fill" --launch-count 40 --section SpeedOfLight build/cuda/bin/bench_md --device gpu --precision mixed --configs lj_liquid_2M --steps 30 --reps 1 > $OUT/r/ncu-rebuild.txt 2>&1
python3 - $OUT/r/ncu-rebuild.txt <<'PY'
import re,sys
name=None
for l in open(sys.argv[1]):
    m=re.match(r'\s\s(\S.*?) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)',l)
    if m: name=m.group(1)[:90]
    m=re.search(r'Duration\s+(\S+)\s+([\d.]+)',l)
    if m and name: print(f'{m.group(2):>10} {m.group(1)}  {name}'); name=None
PY
echo "done $(( $(date +%s)-t0 )) s"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
