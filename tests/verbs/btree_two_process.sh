#!/usr/bin/env bash
# Sherman's B+Tree across two compute processes on Soft-RoCE, with an exact
# final-state check against a model map: run inside the VM of
# scripts/softroce-vm.sh (device rxe0 on lo, GID index 1), like
# tests/verbs/verbs_suite.sh (its section 8).
#
# Two memory nodes; for each index (sherman, sherman+, smart-bt, fg+), two
# `latchwork btree` processes (--processes 2, --process-index 0 and 1) share
# one tree by name (process 0 bulk-loads it) and run the all-ops mix
# (lookups, inserts of new keys, updates, removes, range scans) with --verify:
# every key has one writer over both processes, so each process checks that
# every key of its writers holds exactly what the model map says (its last
# write, or absent after a remove), every other loaded key is present, and
# the tree's structure holds. Leaves split during the run (small nodes), so
# splits, sibling chases, internal-node updates and chunk allocation by RPC
# all run over rxe. A shared tree's lock tables are 64-bit locks in host
# memory (Soft-RoCE has no device memory or masked atomics either), and the
# run must say so. Chunks are 256 KiB (the memory nodes live as long as the
# script and never reclaim), and the two-level wrap-around bound is 20 ms: a
# READ on rxe in a VM takes tens of microseconds to milliseconds, so
# Sherman's 8 us bound (2^4 x 0.5 us) would retry every READ.
#
# Usage: tests/verbs/btree_two_process.sh [BUILD_DIR]   (exit 0 only if every check passed)
set -uo pipefail
BUILD=${1:-build}
LW="$BUILD/latchwork"
OUT=${SOFTROCE_OUT:-$(mktemp -d)}
TMP=$(mktemp -d)
# shellcheck source=tests/verbs/lib.sh
. "$(dirname "$0")/lib.sh"
trap cleanup EXIT
need_verbs_build

# Ports of their own (verbs_suite.sh 7471-7473, hash 7481-7482, node 7491-7492).
MN0=$(start_memnode 7501 128M "$OUT/btree-memnode0.log") || { echo "FAIL the memory node did not start"; exit 1; }
MN1=$(start_memnode 7502 128M "$OUT/btree-memnode1.log") || { echo "FAIL the second memory node did not start"; exit 1; }
CL="$TMP/two.json"
printf '{"memory_nodes": ["127.0.0.1:7501", "127.0.0.1:7502"], "device": "rxe0", "gid_index": 1}\n' >"$CL"


# 2 processes x 2 threads x 2 coroutines, 400 operations each, over 512
# loaded keys in 256-byte nodes (ten entries a leaf, loaded 80% full, so
# fresh inserts split leaves all along).
OPS=400
COMMON=(btree --backend verbs --cluster "$CL" --compute-nodes 1 --threads 2 --coroutines 2
        --workload all-ops --zipf 0.9 --keys 512 --range-size 20 --node-bytes 256 --ops-per-worker $OPS
        --processes 2 --verify --barrier-timeout-ms 120000 --chunk-kb 256)

for index in sherman sherman+ smart-bt fg+; do
  note "$index: two compute processes, one shared tree, all operations, exact check"
  name="btree2/$index/$$"
  start=$(date +%s.%N)
  timeout 900 "$LW" "${COMMON[@]}" --index $index --shared-name "$name" --process-index 0 \
    >"$OUT/btree-$index-0.txt" 2>&1 & A=$!
  timeout 900 "$LW" "${COMMON[@]}" --index $index --shared-name "$name" --process-index 1 \
    >"$OUT/btree-$index-1.txt" 2>&1 & B=$!
  wait $A; ra=$?
  wait $B; rb=$?
  secs=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")
  cat "$OUT/btree-$index-0.txt" "$OUT/btree-$index-1.txt"
  if [ $ra -eq 0 ] && [ $rb -eq 0 ] &&
     grep -q "final state: exact check passed (process 0 of 2" "$OUT/btree-$index-0.txt" &&
     grep -q "final state: exact check passed (process 1 of 2" "$OUT/btree-$index-1.txt"; then
    pass "$index across 2 processes: final state exact in both ($((2 * 4 * OPS)) operations, ${secs}s)"
  else
    fail "$index across 2 processes (exit codes $ra, $rb, ${secs}s)"
  fi
done
if grep -q "HOCL fell back" "$OUT/btree-sherman-0.txt"; then
  pass "HOCL said where its locks went: $(grep -m1 "HOCL fell back" "$OUT/btree-sherman-0.txt" | sed 's/^ *//')"
else
  fail "HOCL did not report its fallback to host-memory locks"
fi

note "bad multi-process flags: exit 2 with a message"
expect_usage "--processes 2 without --shared-name" "shared-name" -- \
  btree --backend verbs --cluster "$CL" --processes 2 --ops-per-worker 1
expect_usage "--process-index out of range" "below --processes" -- \
  btree --backend verbs --cluster "$CL" --processes 2 --process-index 2 --shared-name x --ops-per-worker 1

kill -0 "$MN0" 2>/dev/null && kill -0 "$MN1" 2>/dev/null && pass "memory nodes still alive" || fail "a memory node died"
kill "$MN0" "$MN1" 2>/dev/null
echo "btree two-process: $((checks - failures)) of $checks checks passed"
[ $failures -eq 0 ]
