#!/usr/bin/env bash
# One meaning per flag: --semantics is the RDMA semantics and --nic the NIC
# timing model in every command; --profile (which meant either) is refused
# everywhere with exit 2 and a message naming both.
# usage: semantics_nic_flags_test.sh <path to latchwork>
lw=$1
. "$(dirname "$0")/expect.sh"
start_cli_test

for c in demo torn-read litmus conformance latch "perf read" "repro jasny-fig4" check hash btree txn lock flips \
         memnode node config; do
  for spelling in "--profile spec" "--profile=cx5-100g"; do
    expect_exit 2 "$c $spelling" -- "$lw" $c $spelling
    expect_err "--profile was split: use --semantics for the RDMA semantics"
    expect_err "or --nic for the NIC timing profile"
    [ -s "$tmp/out" ] && { echo "FAIL: $c $spelling wrote to stdout"; fail=1; }
  done
done

# The resolved config shows each flag landing in its own field.
expect_exit 0 "config --semantics --nic" -- "$lw" config --semantics sequential --nic cx6-200g
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
assert c["profile"] == "sequential", c["profile"]   # the config file's key is unchanged
assert c["nic"]["profile"] == "cx6-200g", c["nic"]
PY
expect_exit 2 "a NIC name is not a semantics" -- "$lw" config --semantics cx6-200g
expect_err "not one of"
expect_exit 2 "a semantics name is not a NIC" -- "$lw" config --nic sequential
expect_err "nic"

# A tiny run of every command that runs a cluster accepts both flags.
both="--semantics connectx --nic cx5-100g"
while IFS= read -r run; do
  [ -z "$run" ] && continue
  expect_exit 0 "$run" -- "$lw" $run $both
done <<'RUNS'
demo --ops 50
torn-read --ops 100 --size 64
conformance --case results
latch --ops 20
perf cas --measure-us 5
check --scheme versioning --seeds 2
hash --table race --keys 500 --threads 1 --coroutines 1 --ops-per-worker 20
btree --keys 500 --threads 1 --coroutines 1 --ops-per-worker 20
txn --nodes 2 --threads 1 --coroutines 1 --accounts-per-node 500 --warmup-us 5 --measure-us 20
lock --nodes 2 --threads 1 --locks 4 --ops 10
RUNS
grep -q "semantics=connectx" <("$lw" demo --ops 50 --semantics connectx 2>&1) ||
  { echo "FAIL: demo does not label semantics="; fail=1; }
# The commands with only one of the two.
expect_exit 0 "litmus --semantics" -- "$lw" litmus --semantics sequential --seeds 3 --test reads_unordered
grep -q "sequential" "$tmp/out" || { echo "FAIL: litmus did not run sequential"; cat "$tmp/out"; fail=1; }
expect_exit 2 "flips --nic unknown" -- "$lw" flips --nic cx9
expect_err "cx9"
[ $fail -eq 0 ] && echo "semantics/nic flags: all passed"
exit $fail
