#!/usr/bin/env bash
# The hash table across two compute processes on Soft-RoCE, with an exact
# final-state check: run inside the VM of scripts/softroce-vm.sh (device rxe0
# on lo, GID index 1), like tests/verbs/verbs_suite.sh.
#
# Two memory nodes; for --table smart-ht and --table race, two `latchwork
# hash` processes (--processes 2, --process-index 0 and 1) share one table by
# name (process 0 loads it) and run a write-heavy YCSB mix concurrently with
# --partitioned-writes: every key has one writer over both processes, so each
# process checks exactly that every key of its writers holds the last value
# written, every other key a value of its own writer, and the table holds the
# loaded key set once. Key-value blocks come from chunks the coroutines take
# by RPC (alloc_chunk) during the run, so this exercises verbs RPC and the
# qp policies' thread-aware resources too. Both processes must exit 0 and
# print the verified line. Then bad multi-process flags must exit 2.
#
# Usage: tests/verbs/hash_two_process.sh [BUILD_DIR]   (exit 0 only if every check passed)
set -uo pipefail
BUILD=${1:-build}
LW="$BUILD/latchwork"
OUT=${SOFTROCE_OUT:-$(mktemp -d)}
TMP=$(mktemp -d)
# shellcheck source=tests/verbs/lib.sh
. "$(dirname "$0")/lib.sh"
trap cleanup EXIT
need_verbs_build

# Ports of their own, so that this script can run while verbs_suite.sh's
# memory nodes (7471-7473) are up.
MN0=$(start_memnode 7481 128M "$OUT/hash-memnode0.log") || { echo "FAIL the memory node did not start"; exit 1; }
MN1=$(start_memnode 7482 128M "$OUT/hash-memnode1.log") || { echo "FAIL the second memory node did not start"; exit 1; }
CL="$TMP/two.json"
printf '{"memory_nodes": ["127.0.0.1:7481", "127.0.0.1:7482"], "device": "rxe0", "gid_index": 1}\n' >"$CL"

# The run's shape: 2 processes x 2 threads x 4 coroutines = 16 writers, each
# 1500 operations (half updates, Zipf 0.99, so hot keys take many updates
# from their one writer) over 8192 keys. Barriers wait at most 2 minutes, so
# a process that dies leaves its peer failing with a clear message, not hung.
OPS=1500
COMMON=(hash --backend verbs --cluster "$CL" --compute-nodes 1 --threads 2 --coroutines 4
        --workload write-heavy --zipf 0.99 --keys 8192 --ops-per-worker $OPS
        --processes 2 --partitioned-writes --barrier-timeout-ms 120000)

for table in smart-ht race; do
  note "$table: two compute processes, one shared table, partitioned writes, exact check"
  name="hash2/$table/$$"
  start=$(date +%s.%N)
  timeout 900 "$LW" "${COMMON[@]}" --table $table --shared-name "$name" --process-index 0 \
    >"$OUT/hash-$table-0.txt" 2>&1 & A=$!
  timeout 900 "$LW" "${COMMON[@]}" --table $table --shared-name "$name" --process-index 1 \
    >"$OUT/hash-$table-1.txt" 2>&1 & B=$!
  wait $A; ra=$?
  wait $B; rb=$?
  secs=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")
  cat "$OUT/hash-$table-0.txt" "$OUT/hash-$table-1.txt"
  if [ $ra -eq 0 ] && [ $rb -eq 0 ] &&
     grep -q "final state: exact check passed (process 0 of 2" "$OUT/hash-$table-0.txt" &&
     grep -q "final state: exact check passed (process 1 of 2" "$OUT/hash-$table-1.txt"; then
    pass "$table across 2 processes: final state exact in both ($((2 * 8 * OPS)) operations, ${secs}s)"
  else
    fail "$table across 2 processes (exit codes $ra, $rb, ${secs}s)"
  fi
done

note "bad multi-process flags: exit 2 with a message"
expect_usage "--processes 2 without --shared-name" "needs --shared-name" -- \
  hash --backend verbs --cluster "$CL" --processes 2 --ops-per-worker 1
expect_usage "--process-index out of range" "must be below --processes" -- \
  hash --backend verbs --cluster "$CL" --processes 2 --process-index 2 --shared-name x --ops-per-worker 1

kill -0 "$MN0" 2>/dev/null && kill -0 "$MN1" 2>/dev/null && pass "memory nodes still alive" || fail "a memory node died"
kill "$MN0" "$MN1" 2>/dev/null
echo "hash two-process: $((checks - failures)) of $checks checks passed"
[ $failures -eq 0 ]
