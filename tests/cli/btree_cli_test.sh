#!/usr/bin/env bash
# `latchwork btree` end to end: help, usage errors (exit 2), small verified runs.
# usage: btree_cli_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

expect_exit 0 "btree --help" -- "$lw" btree --help
grep -q "usage: latchwork btree" "$tmp/out" || { echo "FAIL: btree --help has no usage line"; fail=1; }
grep -q -- "--no-hierarchical" "$tmp/out" || { echo "FAIL: btree --help lacks --no-hierarchical"; fail=1; }
expect_exit 2 "bad index" -- "$lw" btree --index btree
expect_err "not one of"
expect_exit 2 "bad workload" -- "$lw" btree --workload scan-heavy
expect_err "not one of"
expect_exit 2 "negative zipf" -- "$lw" btree --zipf -1
expect_exit 2 "no keys" -- "$lw" btree --keys 0
expect_exit 2 "too many keys" -- "$lw" btree --keys 999999999999
expect_exit 2 "node size not a multiple of 64" -- "$lw" btree --node-bytes 1000
expect_exit 2 "key size not a multiple of 8" -- "$lw" btree --key-bytes 12
expect_exit 2 "range larger than the keys" -- "$lw" btree --keys 100 --range-size 1000
expect_exit 2 "zero window" -- "$lw" btree --measure-us 0
expect_exit 2 "unknown flag" -- "$lw" btree --indx sherman
expect_err "unknown flag --indx"
expect_exit 2 "stray argument" -- "$lw" btree sherman
expect_exit 2 "png without a name" -- "$lw" btree --png=
expect_exit 2 "bad wrap rule" -- "$lw" btree --wrap-rule timed
expect_err "not one of"
expect_exit 2 "wrap bound without the bounded rule" -- "$lw" btree --version-wrap-ns 9000
expect_err "only with --wrap-rule bounded"
expect_exit 0 "wrap bound with the bounded rule" -- "$lw" btree --wrap-rule bounded --version-wrap-ns 9000 \
  --keys 2000 --compute-nodes 1 --threads 2 --memory-nodes 2 --warmup-us 20 --measure-us 50 --json
python3 -c "import json,sys; r=json.load(open('$tmp/out')); assert r['ops'] > 0, r" || fail=1
expect_exit 2 "verify with fewer keys than coroutines" -- "$lw" btree --keys 4 --range-size 1 --verify

expect_exit 0 "sherman verified write-intensive" -- "$lw" btree --index sherman --workload write-intensive \
  --keys 2000 --compute-nodes 2 --threads 2 --coroutines 2 --memory-nodes 2 --ops-per-worker 100 --verify --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["index"] == "sherman" and r["workload"] == "write-intensive", r
assert r["ops"] == 800, r["ops"]
assert r["verified"] is True and r["not_found"] == 0 and r["failed"] == 0, r
assert r["keys_checked_exact"] >= 2000, r["keys_checked_exact"]
assert abs(sum(r["write_round_trip_share"]) - 1) < 1e-9, r["write_round_trip_share"]
assert r["trace_hash"].startswith("0x"), r
PY
for index in fg+ sherman+ smart-bt; do
  expect_exit 0 "$index verified write-only" -- "$lw" btree --index $index --workload write-only --zipf 0 \
    --keys 3000 --node-bytes 512 --compute-nodes 2 --threads 2 --coroutines 2 --memory-nodes 2 \
    --ops-per-worker 150 --verify --json
  python3 -c "import json,sys; r=json.load(open('$tmp/out')); assert r['verified'] and r['index']=='$index', r" || fail=1
done
expect_exit 0 "range-write text report" -- "$lw" btree --index sherman --workload range-write --keys 5000 \
  --range-size 50 --compute-nodes 2 --threads 2 --memory-nodes 2 --warmup-us 50 --measure-us 200 --verify
grep -q "round trips per insert" "$tmp/out" || { echo "FAIL: report lacks round trips per insert"; fail=1; }
grep -q "pairs per range query" "$tmp/out" || { echo "FAIL: report lacks range pairs"; fail=1; }
grep -q "final state: exact check passed" "$tmp/out" || { echo "FAIL: range-write not verified"; fail=1; }
expect_exit 0 "no-hierarchical skewed run" -- "$lw" btree --no-hierarchical --no-handover --workload write-only \
  --keys 2000 --compute-nodes 2 --threads 2 --memory-nodes 2 --warmup-us 50 --measure-us 200
grep -q "HOCL" "$tmp/out" || { echo "FAIL: report lacks the HOCL line"; fail=1; }
[ $fail -eq 0 ] && echo "btree CLI: all passed"
exit $fail
