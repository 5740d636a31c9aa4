#!/usr/bin/env bash
# Distributed transactions on symmetric nodes over Soft-RoCE: two `latchwork
# node` processes, each serving its registered memory and the transaction
# engine's RPC handlers (late-bound: served from the start, bound once the
# process has built its store) and running its node's coordinators. Run
# inside the VM of scripts/softroce-vm.sh (device rxe0 on lo, GID index 1),
# like tests/verbs/verbs_suite.sh (its section 9).
#
#   1. bad input: exit 2 with a message (a disaggregated design, an unknown
#      design, --txns 0);
#   2. SmallBank with drtmh (hybrid execution, one-sided lock/validate/log/
#      commit, RPC for location-cache misses), fasst (every phase two-sided:
#      each node's CPU serves the other's locks, validations, logs and
#      commits) and farm (two-sided locking and commit): both processes exit
#      0, each verifies the final state (total balance == initial total +
#      the committed deltas of BOTH processes, every backup equal to its
#      primary, every lock free), both report the same summed delta, and the
#      two-sided designs really made RPCs.
#
# Usage: tests/verbs/txn_two_process.sh [BUILD_DIR]   (exit 0 only if every check passed)
set -uo pipefail
BUILD=${1:-build}
LW="$BUILD/latchwork"
OUT=${SOFTROCE_OUT:-$(mktemp -d)}
TMP=$(mktemp -d)
# shellcheck source=tests/verbs/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "$LW" ] || { echo "FAIL $LW is not built"; exit 1; }
# (Through a file: grep -q closing the pipe early would fail the pipeline under pipefail.)
"$LW" node --help >"$TMP/help.txt" 2>&1
if ! grep -q smallbank "$TMP/help.txt"; then
  echo "FAIL $LW node has no transaction workloads"; exit 1
fi
# Whole seconds in bash arithmetic: every extra process (python3 above all)
# costs seconds in the TCG guest.
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }

# Ports of their own (node_two_process.sh uses 7491-7492, hash 7481-7482).
CL="$TMP/nodes.json"
printf '{"memory_nodes": ["127.0.0.1:7501", "127.0.0.1:7502"], "device": "rxe0", "gid_index": 1}\n' >"$CL"
COMMON=(--cluster "$CL" --device rxe0 --gid-index 1 --size 64M --connect-timeout-ms 60000
        --barrier-timeout-ms 240000)

# two NAME TIMEOUT ARGS...: runs node 0 and node 1 with ARGS; sets r0, r1, secs.
two() {
  local name=$1 limit=$2
  shift 2
  local start
  start=$(date +%s)
  timeout "$limit" "$LW" node "${COMMON[@]}" --index 0 "$@" >"$OUT/txn-$name-0.txt" 2>"$OUT/txn-$name-0.err" & local a=$!
  timeout "$limit" "$LW" node "${COMMON[@]}" --index 1 "$@" >"$OUT/txn-$name-1.txt" 2>"$OUT/txn-$name-1.err" & local b=$!
  wait $a; r0=$?
  wait $b; r1=$?
  secs=$(($(date +%s) - start))
  for i in 0 1; do
    cat "$OUT/txn-$name-$i.txt"
    grep -v "memnode: \(serving\|stopped\)" "$OUT/txn-$name-$i.err" >&2
  done
}

note "bad input: exit 2 with a message"
expect_usage "node --design ford (disaggregated)" "is disaggregated" -- \
  node --cluster "$CL" --index 0 --workload smallbank --design ford
expect_usage "node --design unknown" "is not one of" -- node --cluster "$CL" --index 0 --workload smallbank --design nope
expect_usage "node --txns 0" "txns" -- node --cluster "$CL" --index 0 --workload smallbank --txns 0

note "SmallBank across two node processes: 2 threads x 2 coroutines each, final state checked over both ($(elapsed)s in)"
for design in drtmh fasst farm; do
  two "smallbank-$design" 300 --workload smallbank --design "$design" --threads 2 --coroutines 2 --txns 60 \
    --records 400 --seed 11
  f0="$OUT/txn-smallbank-$design-0.txt" f1="$OUT/txn-smallbank-$design-1.txt"
  d0=$(awk '/^balance delta/ {print $3}' "$f0")
  d1=$(awk '/^balance delta/ {print $3}' "$f1")
  c0=$(awk '/^transactions/ {print $2}' "$f0")
  c1=$(awk '/^transactions/ {print $2}' "$f1")
  rpcs=$(awk '/^latency/ {for (i = 1; i < NF; ++i) if ($(i + 1) == "RPCs") print $i}' "$f0")
  rpcs_ok=1
  # drtmh (hybrid) makes RPCs only on location-cache misses; the others in every transaction.
  [ "$design" != drtmh ] && case "${rpcs:-none}" in none | 0.00) rpcs_ok=0 ;; esac
  if [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && grep -q "^final state: verified" "$f0" && grep -q "^final state: verified" "$f1" &&
     [ -n "$d0" ] && [ "$d0" = "$d1" ] && [ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] && [ $rpcs_ok -eq 1 ]; then
    pass "smallbank/$design across 2 node processes: $c0 + $c1 committed, total balance == initial + summed deltas ($d0) on both, replicas and locks checked (${rpcs:-?} RPCs per txn, ${secs}s)"
  else
    fail "smallbank/$design across 2 node processes (exit codes $r0, $r1; deltas '$d0' '$d1'; committed '$c0' '$c1'; RPCs/txn '$rpcs'; ${secs}s)"
  fi
done

echo "txn two-process: $((checks - failures)) of $checks checks passed in $(elapsed)s"
[ $failures -eq 0 ]
