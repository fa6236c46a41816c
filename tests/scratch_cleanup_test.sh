#!/usr/bin/env bash
# The test programs' scratch directory (tests/test_main.cpp): a passing program leaves nothing under
# $TMPDIR; with TESSERA_TEST_KEEP=1 it keeps its tessera_test_<pid> directory, with the files its tests wrote,
# and names it; under mpiexec every rank writes into rank 0's directory, which is gone after a pass too.
# usage: scratch_cleanup_test.sh SINGLE_TEST MPI_TEST MPIEXEC [MPIEXEC_FLAGS...]
set -uo pipefail
single=${1:?usage: scratch_cleanup_test.sh SINGLE_TEST MPI_TEST MPIEXEC [FLAGS...]}
mpi=${2:?}
shift 2
base=$(mktemp -d) || exit 1
trap 'rm -rf "$base"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
left() { find "$1" -mindepth 1 -maxdepth 1 -name 'tessera_test_*'; }

mkdir "$base/pass" "$base/keep" "$base/mpi"
TMPDIR="$base/pass" "$single" > "$base/pass.log" 2>&1 || { cat "$base/pass.log"; fail "$single failed"; }
[ -z "$(left "$base/pass")" ] || fail "a passing $single left $(left "$base/pass")"

TMPDIR="$base/keep" TESSERA_TEST_KEEP=1 "$single" > "$base/keep.log" 2>&1 || { cat "$base/keep.log"; fail "$single failed"; }
kept=$(left "$base/keep")
[ "$(echo "$kept" | grep -c .)" = 1 ] || fail "TESSERA_TEST_KEEP=1: expected one kept directory, found '$kept'"
[ -n "$(find "$kept" -type f | head -1)" ] || fail "the kept directory $kept holds no files"
grep -qF "test scratch directory kept: $kept" "$base/keep.log" || fail "the kept directory is not named in the output"

TMPDIR="$base/mpi" "$@" -n 2 "$mpi" > "$base/mpi.log" 2>&1 || { cat "$base/mpi.log"; fail "$mpi on 2 ranks failed"; }
[ -z "$(left "$base/mpi")" ] || fail "a passing $mpi on 2 ranks left $(left "$base/mpi")"
echo "scratch directories: removed after a pass, kept with TESSERA_TEST_KEEP=1 ($(basename "$kept"))"
