#!/bin/bash
export GIT_DIR=/nonexistent TESSERA_GIT_HASH=$1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 TESSERA_REQUIRE_GPU=1
mkdir -p $OUT/r
t0=$(date +%s)
cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/r/configure.log 2>&1
cmake --build --preset cuda -j $(nproc) > $OUT/r/build.log 2>&1 || { grep -E "error|FAILED" $OUT/r/build.log | head -30; exit 1; }
echo "built $(( $(date +%s)-t0 )) s"
ctest --test-dir build/cuda -L gpu -R md -j 6 > $OUT/r/ctest.log 2>&1; grep -E "tests passed|Failed|\*\*\*" $OUT/r/ctest.log | tail -15
echo "tests $(( $(date +%s)-t0 )) s"
build/cuda/bin/bench_md --device gpu --precision mixed --configs hoomd_lj_64k,lj_liquid_2M,kremer_grest_1M --reps 3 --out $OUT/r/md.jsonl > $OUT/r/md.log 2>&1
grep -E "steps/s|atom-steps" $OUT/r/md.log | tail -12
echo "bench $(( $(date +%s)-t0 )) s"
timeout 150 ncu --clock-control none -k regex:pair_force_tuned --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis build/cuda/bin/bench_md --device gpu --precision mixed --configs lj_liquid_2M --steps 30 --reps 1 --no-graph > $OUT/r/ncu-pair.txt 2>&1
grep -E "Duration|Throughput|Registers|Achieved Occ|Theoretical Occ" $OUT/r/ncu-pair.txt | head -20
timeout 120 ncu --clock-control none -k regex:fill_fast --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats build/cuda/bin/bench_md --device gpu --precision mixed --configs lj_liquid_2M --steps 30 --reps 1 > $OUT/r/ncu-fill.txt 2>&1
grep -E "Duration|Throughput|Registers|Achieved Occ|ERR|rror" $OUT/r/ncu-fill.txt | head -20
echo "done $(( $(date +%s)-t0 )) s"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
