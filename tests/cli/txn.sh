#!/usr/bin/env bash
# `latchwork txn` end to end: help, usage errors (exit 2), a small run, --json.
# usage: txn.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

expect_exit 0 "txn --help" -- "$lw" txn --help
grep -q "usage: latchwork txn" "$tmp/out" || { echo "FAIL: txn --help has no usage line"; fail=1; }
expect_exit 2 "bad design" -- "$lw" txn --design spanner
expect_err "not one of"
expect_exit 2 "bad workload" -- "$lw" txn --workload ycsb
expect_err "not one of"
expect_exit 2 "bad phase" -- "$lw" txn --phase E=three
expect_exit 2 "bad phase name" -- "$lw" txn --phase X=one
expect_exit 2 "bad broken" -- "$lw" txn --broken everything
expect_exit 2 "zero nodes" -- "$lw" txn --nodes 0
expect_exit 2 "zero window" -- "$lw" txn --measure-us 0
expect_exit 2 "unknown flag" -- "$lw" txn --desgin drtmh
expect_err "unknown flag --desgin"
expect_exit 2 "stray argument" -- "$lw" txn drtmh
expect_exit 2 "compute nodes" -- "$lw" txn --compute-nodes 2
expect_exit 2 "rpc cores with worker servers" -- "$lw" txn --rpc-servers workers --rpc-cores 3
expect_err "only with --rpc-servers cores"
expect_exit 2 "worker servers without memory-node threads" -- "$lw" txn --design ford --rpc-servers workers
expect_err "memory_node_threads"
expect_exit 0 "worker-served RPCs" -- "$lw" txn --design fasst --workload smallbank --nodes 3 --threads 2 \
  --coroutines 2 --accounts-per-node 2000 --warmup-us 20 --measure-us 100 --rpc-servers workers --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["committed"] > 0, r' "$tmp/out" || {
  echo "FAIL: worker-served run"; cat "$tmp/out"; fail=1; }
expect_exit 0 "small run" -- "$lw" txn --design drtmh --workload smallbank --nodes 3 --threads 2 --coroutines 2 \
  --accounts-per-node 2000 --warmup-us 20 --measure-us 100
grep -q "M txns/s" "$tmp/out" || { echo "FAIL: report lacks throughput"; fail=1; }
grep -q "commits by type" "$tmp/out" || { echo "FAIL: report lacks commits by type"; fail=1; }
expect_exit 0 "json run" -- "$lw" txn --design fasst --workload smallbank --nodes 3 --threads 1 --coroutines 2 \
  --phase VV=one --phase L=one --accounts-per-node 2000 --warmup-us 20 --measure-us 100 --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["committed"] > 0, r' "$tmp/out" || {
  echo "FAIL: --json output"; cat "$tmp/out"; fail=1; }
expect_exit 2 "think time beyond a second" -- "$lw" txn --think-us 2000000
# Closed loop: 50 us of think time after each transaction in a 200 us window
# leaves each of the 6 coordinators at most 4 commits.
expect_exit 0 "think time" -- "$lw" txn --design drtmh --workload smallbank --nodes 3 --threads 1 --coroutines 2 \
  --accounts-per-node 2000 --warmup-us 20 --measure-us 200 --think-us 50 --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert 0 < r["committed"] <= 24, r' "$tmp/out" || {
  echo "FAIL: --think-us run"; cat "$tmp/out"; fail=1; }
[ $fail -eq 0 ] && echo "txn CLI: all passed"
exit $fail
