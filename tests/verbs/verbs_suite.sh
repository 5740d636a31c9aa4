#!/usr/bin/env bash
# The verbs backend against Soft-RoCE: run by `make test-verbs` inside the VM
# of scripts/softroce-vm.sh (device rxe0 on lo, GID index 1).
#
#   1. the backend conformance suite (the one sim and threads pass in make test);
#   2. a multi-process run: one memory node, two compute processes sharing
#      latch-protected counters (must be exact) while a third runs torn-read;
#   3. latencies (us) and operation rates of READ/WRITE/CAS/FAA;
#   4. failures that must be clear and bounded: bad cluster files, an
#      unreachable memory node, a memory node killed mid-run;
#   5. two-sided RPC (echo, counters by call and one-way, error statuses) and
#      chunk allocation by RPC from coroutines, two processes against one
#      memory node (exact), and each qp_policy carrying RPC and READ/CAS/FAA
#      (tests/verbs/rpc_check.cpp);
#   6. the hash table across two compute processes (tests/verbs/hash_two_process.sh);
#   7. symmetric nodes: two `latchwork node` processes, each serving its
#      memory and running workers with CPU access to it: CPU vs NIC on the
#      same words, and the ALock lock table (alock, spin, mcs) with exact
#      counters over both processes (tests/verbs/node_two_process.sh);
#   8. Sherman's B+Tree (sherman, sherman+, smart-bt, fg+) across two compute
#      processes, every operation, exact final state (tests/verbs/btree_two_process.sh);
#   9. distributed transactions: SmallBank with drtmh, fasst and farm on two
#      `latchwork node` processes serving the engine's RPC handlers, final
#      state checked over both (tests/verbs/txn_two_process.sh).
#
# Usage: tests/verbs/verbs_suite.sh [BUILD_DIR]   (exit 0 only if every check passed)
set -uo pipefail
BUILD=${1:-build}
LW="$BUILD/latchwork"
OUT=${SOFTROCE_OUT:-$(mktemp -d)}
TMP=$(mktemp -d)
# shellcheck source=tests/verbs/lib.sh
. "$(dirname "$0")/lib.sh"
trap cleanup EXIT
need_verbs_build

cluster() {  # cluster PORT FILE
  printf '{"memory_nodes": ["127.0.0.1:%s"], "device": "rxe0", "gid_index": 1}\n' "$1" >"$2"
}

MN=$(start_memnode 7471 128M "$OUT/memnode.log") || { echo "FAIL the memory node did not start"; exit 1; }
MN1=$(start_memnode 7473 128M "$OUT/memnode1.log") || { echo "FAIL the second memory node did not start"; exit 1; }
cat "$OUT/memnode.log" "$OUT/memnode1.log"
CL="$TMP/cluster.json"
cluster 7471 "$CL"
V=(--backend verbs --cluster "$CL")
printf '{"memory_nodes": ["127.0.0.1:7471", "127.0.0.1:7473"], "device": "rxe0", "gid_index": 1}\n' >"$TMP/two.json"

note "1. conformance on rxe (two memory nodes)"
if timeout 900 "$LW" conformance --backend verbs --cluster "$TMP/two.json" | tee "$OUT/conformance.txt"; then
  pass "conformance suite on verbs/rxe"
else
  fail "conformance suite on verbs/rxe (see above)"
fi
# The suite above fences in the engine (verbs.fence auto on rxe); the fence
# cases again with IBV_SEND_FENCE keep the NIC path covered.
if timeout 300 "$LW" conformance --backend verbs --cluster "$TMP/two.json" --verbs-fence nic --case fence \
     >"$OUT/conformance-nic-fence.txt" 2>&1 && grep -q PASS "$OUT/conformance-nic-fence.txt"; then
  pass "conformance fence cases with --verbs-fence nic (IBV_SEND_FENCE)"
else
  fail "conformance fence cases with --verbs-fence nic:"
  cat "$OUT/conformance-nic-fence.txt"
fi

note "2. two compute processes share latch-protected counters; a third runs torn-read"
LATCH=(latch "${V[@]}" --processes 2 --shared ci-counters --compute-nodes 1 --threads 2
       --coroutines 4 --counters 4 --ops 150 --read-percent 20)
timeout 600 "$LW" "${LATCH[@]}" >"$OUT/latch-a.txt" 2>&1 & A=$!
timeout 600 "$LW" "${LATCH[@]}" >"$OUT/latch-b.txt" 2>&1 & B=$!
timeout 600 "$LW" torn-read "${V[@]}" --scheme all --size 64,256,1024 --ops 600 >"$OUT/torn-read.txt" 2>&1 & T=$!
wait $A; ra=$?
wait $B; rb=$?
wait $T; rt=$?
cat "$OUT/latch-a.txt" "$OUT/latch-b.txt" "$OUT/torn-read.txt"
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$(grep -c '2 processes: .* (exact)' "$OUT/latch-a.txt")" -eq 3 ] &&
   [ "$(grep -c '2 processes: .* (exact)' "$OUT/latch-b.txt")" -eq 3 ]; then
  pass "multi-process latch counters exact for exclusive, rw and optimistic latches"
else
  fail "multi-process latch counters (exit codes $ra, $rb)"
fi
# Versioning and CRC64 never accept a torn read. FaRM's per-line versions
# rely on 64-byte line atomicity, which a PCIe NIC gives and Soft-RoCE (a CPU
# copy) does not; bookend is the negative control. Their counts are reported.
if [ $rt -eq 0 ] && awk '$1 ~ /^(versioning|crc64)$/ && $7 != 0 {bad=1} END {exit bad}' "$OUT/torn-read.txt"; then
  pass "torn-read on verbs: versioning and crc64 accepted no torn read"
else
  fail "torn-read on verbs (exit $rt)"
fi
echo "     undetected torn reads on rxe (no line atomicity here): farm $(awk '$1 == "farm" {s += $7} END {print s + 0}' "$OUT/torn-read.txt"), bookend $(awk '$1 == "bookend" {s += $7} END {print s + 0}' "$OUT/torn-read.txt")"

note "3. latency (us) and operation rate on rxe (software RDMA: says nothing about a NIC)"
PERF="$OUT/perf.jsonl"
: >"$PERF"
for op in read write cas faa; do
  sizes=8
  [ $op = read ] || [ $op = write ] && sizes=8,64,4096
  timeout 300 "$LW" perf $op "${V[@]}" --size $sizes --threads 1 --depth 1 --warmup-us 20000 \
      --measure-us 300000 --json >>"$PERF" || fail "perf $op on verbs"
done
python3 - "$PERF" <<'PY' || fail "perf output"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'op':6} {'bytes':>6} {'Kops/s':>9} {'p50 us':>8} {'p99 us':>8} {'mean us':>8}")
for row in rows:
    r, size = row['result'], row['size']
    print(f"{r['op']:6} {size:>6} {r['mops']*1e3:9.1f} {r['latency_ns']['p50']/1e3:8.1f} "
          f"{r['latency_ns']['p99']/1e3:8.1f} {r['latency_ns']['mean']/1e3:8.1f}")
    assert r['ops'] > 0, r
PY
[ -s "$PERF" ] && pass "latencies and rates measured on rxe ($PERF)"

note "4. failures: clear messages within bounded time"
expect_error() {  # expect_error NAME CODE PATTERN MAX_SECONDS -- CMD...
  local name=$1 code=$2 pattern=$3 max=$4
  shift 5
  local start end rc
  start=$(date +%s.%N)
  timeout 120 "$@" >"$TMP/err.out" 2>&1
  rc=$?
  end=$(date +%s.%N)
  local secs
  secs=$(python3 -c "print(round($end - $start, 1))")
  if [ $rc -eq "$code" ] && grep -q -- "$pattern" "$TMP/err.out" && python3 -c "import sys; sys.exit(0 if $secs <= $max else 1)"; then
    pass "$name: exit $rc in ${secs}s: $(grep -m1 -- "$pattern" "$TMP/err.out")"
  else
    fail "$name: exit $rc in ${secs}s (want $code within ${max}s matching '$pattern'):"
    cat "$TMP/err.out"
  fi
}
echo '{"memory_nodes": ["127.0.0.1"]}' >"$TMP/bad1.json"
echo '{"memory_nodes": ["127.0.0.1:7471"], "gid_idx": 1}' >"$TMP/bad2.json"
echo 'not json' >"$TMP/bad3.json"
expect_error "cluster file without a port" 2 "not HOST:PORT" 10 -- "$LW" torn-read --backend verbs --cluster "$TMP/bad1.json"
expect_error "cluster file with a typo" 2 'unknown key "gid_idx"' 10 -- "$LW" torn-read --backend verbs --cluster "$TMP/bad2.json"
expect_error "cluster file that is not JSON" 2 "not valid JSON" 10 -- "$LW" torn-read --backend verbs --cluster "$TMP/bad3.json"
expect_error "missing cluster file" 2 "cannot open it" 10 -- "$LW" torn-read --backend verbs --cluster "$TMP/none.json"
cluster 7999 "$TMP/unreachable.json"
expect_error "unreachable memory node" 1 "cannot reach memory node 127.0.0.1:7999" 15 -- \
  "$LW" torn-read --backend verbs --cluster "$TMP/unreachable.json" --connect-timeout-ms 2000
# Out-of-bounds and misaligned remote addresses are conformance cases (misuse group) above.

# A memory node killed mid-run: the compute process must stop with a clear error.
MN2=$(start_memnode 7472 64M "$OUT/memnode-killed.log") || fail "second memory node did not start"
cluster 7472 "$TMP/doomed.json"
"$LW" latch --backend verbs --cluster "$TMP/doomed.json" --latch exclusive --compute-nodes 1 --threads 2 \
  --coroutines 2 --ops 16000000 --op-timeout-ms 3000 >"$TMP/doomed.out" 2>&1 &
D=$!
sleep 3
kill -9 "$MN2"
killed_at=$(date +%s.%N)
wait $D
rd=$?
secs=$(python3 -c "print(round($(date +%s.%N) - $killed_at, 1))")
if [ $rd -eq 1 ] && grep -q "memory node 0 (127.0.0.1:7472)" "$TMP/doomed.out" &&
   python3 -c "import sys; sys.exit(0 if $secs <= 15 else 1)"; then
  pass "memory node killed mid-run: exit 1 after ${secs}s: $(grep -m1 'memory node 0' "$TMP/doomed.out")"
else
  fail "memory node killed mid-run: exit $rd after ${secs}s:"
  cat "$TMP/doomed.out"
fi

note "5. two-sided RPC, allocation by RPC, and the qp policies"
CHECK="$BUILD/tests/verbs_rpc_check"
if [ ! -x "$CHECK" ]; then
  fail "$CHECK is not built"
else
  RPC=("$CHECK" --cluster "$CL" --threads 2 --coroutines 3 --ops 40)
  timeout 300 "${RPC[@]}" --processes 2 --shared rpc-two >"$OUT/rpc-a.txt" 2>&1 & A=$!
  timeout 300 "${RPC[@]}" --processes 2 --shared rpc-two >"$OUT/rpc-b.txt" 2>&1 & B=$!
  wait $A; ra=$?
  wait $B; rb=$?
  cat "$OUT/rpc-a.txt" "$OUT/rpc-b.txt"
  if [ $ra -eq 0 ] && [ $rb -eq 0 ] && grep -q "verbs_rpc_check: ok" "$OUT/rpc-a.txt" &&
     grep -q "verbs_rpc_check: ok" "$OUT/rpc-b.txt"; then
    pass "RPC across threads and 2 processes: echo, counters exact, disjoint chunks by RPC, error statuses"
  else
    fail "RPC across threads and 2 processes (exit codes $ra, $rb)"
  fi
  for policy in per-thread-doorbell per-thread-qp per-thread-context; do
    if timeout 300 "$CHECK" --cluster "$TMP/two.json" --qp-policy "$policy" --shared "rpc-$policy" \
         --threads 3 --coroutines 2 --ops 20 >"$OUT/rpc-$policy.txt" 2>&1; then
      pass "qp policy $policy: $(grep -m1 'thread resources' "$OUT/rpc-$policy.txt" | sed 's/.*thread resources: //')"
    else
      fail "qp policy $policy:"
      cat "$OUT/rpc-$policy.txt"
    fi
  done
  # shared-qp is not built on verbs: refused at construction, with a reason.
  expect_error "qp policy shared-qp refused" 2 "shared-qp is unsupported on the verbs backend" 20 -- \
    "$CHECK" --cluster "$CL" --qp-policy shared-qp --ops 1
fi

note "the memory node served every run above"
kill -0 "$MN" 2>/dev/null && kill -0 "$MN1" 2>/dev/null && pass "memory nodes still alive" || fail "a memory node died"
kill "$MN" "$MN1" 2>/dev/null

note "6. the RACE / SMART-HT hash table across 2 compute processes (exact final state)"
if bash "$(dirname "$0")/hash_two_process.sh" "$BUILD"; then
  pass "hash table: YCSB across 2 processes, RPC chunk allocation, exact final state"
else
  fail "hash table across 2 processes (tests/verbs/hash_two_process.sh)"
fi

note "7. symmetric nodes: two latchwork node processes (CPU vs NIC, the ALock lock table, exact)"
if bash "$(dirname "$0")/node_two_process.sh" "$BUILD"; then
  pass "symmetric nodes: CPU and NIC share memory; alock, spin and mcs lock tables exact across 2 node processes"
else
  fail "symmetric nodes across 2 processes (tests/verbs/node_two_process.sh)"
fi

note "8. Sherman's B+Tree across 2 compute processes (every operation, exact final state)"
if bash "$(dirname "$0")/btree_two_process.sh" "$BUILD"; then
  pass "B+Tree: sherman, sherman+, smart-bt, fg+ across 2 processes, exact final state"
else
  fail "B+Tree across 2 processes (tests/verbs/btree_two_process.sh)"
fi

note "9. distributed transactions on 2 node processes (SmallBank: drtmh, fasst, farm; final state checked)"
if bash "$(dirname "$0")/txn_two_process.sh" "$BUILD"; then
  pass "transactions: SmallBank with drtmh, fasst and farm across 2 node processes, balances, replicas and locks checked"
else
  fail "transactions across 2 node processes (tests/verbs/txn_two_process.sh)"
fi
echo "verbs suite: $((checks - failures)) of $checks checks passed"
[ $failures -eq 0 ]
