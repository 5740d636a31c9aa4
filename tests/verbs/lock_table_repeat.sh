#!/usr/bin/env bash
# Repeats the two-process lock table of node_two_process.sh N times with
# seeds 1..N and reports the runs that failed (a rare stall shows up only
# over many runs: Soft-RoCE parked a fenced CAS in 3 of 75 runs with
# IBV_SEND_FENCE, docs/verbs-backend.md). Run inside scripts/softroce-vm.sh:
#   scripts/softroce-vm.sh run -- "bash tests/verbs/lock_table_repeat.sh build 50 spin"
# Usage: tests/verbs/lock_table_repeat.sh [BUILD_DIR [N [LOCK [NODE FLAGS...]]]]
set -u
BUILD=${1:-build}; N=${2:-20}; LOCK=${3:-spin}
shift 3 2>/dev/null || shift $#
EXTRA=("$@")
LW="$BUILD/latchwork"
TMP=$(mktemp -d)
CL="$TMP/nodes.json"
printf '{"memory_nodes": ["127.0.0.1:7491", "127.0.0.1:7492"], "device": "rxe0", "gid_index": 1}\n' >"$CL"
COMMON=(--cluster "$CL" --device rxe0 --gid-index 1 --size 64M --connect-timeout-ms 60000 --barrier-timeout-ms 300000)
bad=0
for i in $(seq 1 "$N"); do
  s=$(date +%s.%N)
  timeout 200 "$LW" node "${COMMON[@]}" --index 0 --lock $LOCK --locks 4 --locality 50 --threads 2 --coroutines 2 --ops 150 --seed $i "${EXTRA[@]}" >"$TMP/a.txt" 2>&1 & a=$!
  timeout 200 "$LW" node "${COMMON[@]}" --index 1 --lock $LOCK --locks 4 --locality 50 --threads 2 --coroutines 2 --ops 150 --seed $i "${EXTRA[@]}" >"$TMP/b.txt" 2>&1 & b=$!
  wait $a; r0=$?; wait $b; r1=$?
  secs=$(python3 -c "print(round($(date +%s.%N) - $s, 1))")
  ok=$(grep -c "counters: exact" "$TMP/a.txt" "$TMP/b.txt" | awk -F: '{s+=$2} END {print s}')
  waits=$(grep -ho "verbs.fence_waits=[0-9]*" "$TMP/a.txt" "$TMP/b.txt" | tr "\n" " ")
  echo "run $i seed $i: exit $r0 $r1 exact=$ok ${secs}s $waits"
  if [ $r0 -ne 0 ] || [ $r1 -ne 0 ] || [ "$ok" != 2 ]; then
    bad=$((bad+1)); grep -h 'latchwork:\|FAIL\|counters:' "$TMP/a.txt" "$TMP/b.txt" | head -8
  fi
done
echo "$LOCK lock table, $N runs: $bad failed"
[ $bad -eq 0 ]
