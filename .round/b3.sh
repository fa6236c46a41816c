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
timeout 150 ncu --clock-control none -k regex:fill_fast --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats build/cuda/bin/bench_md --device gpu --precision mixed --configs lj_liquid_2M --steps 30 --reps 1 > $OUT/r/ncu-fill.txt 2>&1; timeout 100 ncu --clock-control none -k regex:pair_force_tuned --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis build/cuda/bin/bench_md --device gpu --precision mixed --configs lj_liquid_2M --steps 30 --reps 1 --no-graph > $OUT/r/ncu-pair.txt 2>&1; grep -E "Duration|Throughput|Registers Per|Achieved Occ|Stall|Warp Cycles|Issued Ipc|L1.TEX Hit|Mem Pipes|Executed Ipc" $OUT/r/ncu-fill.txt $OUT/r/ncu-pair.txt | cut -c1-150
echo "done $(( $(date +%s)-t0 )) s"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
