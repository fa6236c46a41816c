#!/usr/bin/env bash
# Host baseline of issue 6: the 32,000-atom LJ liquid of LAMMPS' bench/in.lj on ONE core, Tessera next to
# LAMMPS (Debian package `lammps`, binary lmp) on the same machine in the same script.
# Usage: bench/md/host_vs_lammps.sh BUILD_DIR [OUT.jsonl]
set -euo pipefail
build=${1:?usage: host_vs_lammps.sh BUILD_DIR [OUT.jsonl]}
out=${2:-}
export OMP_NUM_THREADS=1
steps=100
args=(--device cpu --host-lj --precision double --steps "$steps" --reps 3)
[ -n "$out" ] && args+=(--out "$out")
"$build/bin/bench_md" "${args[@]}"
lmp_bin=$(command -v lmp || command -v lmp_serial || true)
if [ -z "$lmp_bin" ]; then
  echo '{"benchmark":"md","config":"lammps_in_lj","code":"lammps","error":"lmp not found: apt-get install lammps"}'
  exit 0
fi
tmp=$(mktemp -d)
# bench/in.lj from the LAMMPS distribution (3d LJ melt, 32,000 atoms, 100 steps), written out here.
cat > "$tmp/in.lj" <<LMP
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 20 0 20 0 20
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
run $steps
LMP
(cd "$tmp" && "$lmp_bin" -in in.lj -log log.lammps > /dev/null)
loop=$(grep -m1 '^Loop time' "$tmp/log.lammps")
secs=$(echo "$loop" | awk '{print $4}')
rate=$(awk -v s="$secs" -v n=32000 -v k="$steps" 'BEGIN{printf "%.6g", n*k/s}')
line="{\"benchmark\":\"md\",\"config\":\"lammps_in_lj\",\"code\":\"lammps\",\"atoms\":32000,\"steps\":$steps,\"seconds\":$secs,\"atom_steps_per_s\":$rate,\"threads\":1}"
echo "$line"
[ -n "$out" ] && echo "$line" >> "$out"
rm -rf "$tmp"
