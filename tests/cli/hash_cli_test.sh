#!/usr/bin/env bash
# `latchwork hash` end to end: help, usage errors (exit 2), a small run.
# usage: hash_cli_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

expect_exit 0 "hash --help" -- "$lw" hash --help
grep -q "usage: latchwork hash" "$tmp/out" || { echo "FAIL: hash --help has no usage line"; fail=1; }
expect_exit 2 "bad table" -- "$lw" hash --table btree
expect_err "not one of"
expect_exit 2 "bad workload" -- "$lw" hash --workload scan-heavy
expect_err "not one of"
expect_exit 2 "negative zipf" -- "$lw" hash --zipf -1
expect_exit 2 "no keys" -- "$lw" hash --keys 0
expect_exit 2 "too many keys" -- "$lw" hash --keys 999999999999
expect_exit 2 "zero window" -- "$lw" hash --measure-us 0
expect_exit 2 "unknown flag" -- "$lw" hash --tabel race
expect_err "unknown flag --tabel"
expect_exit 2 "stray argument" -- "$lw" hash race
expect_exit 2 "bad qp policy" -- "$lw" hash --qp-policy none
expect_exit 2 "open and closed loop" -- "$lw" hash --think-us 10 --offered-mops 1
expect_err "not both"
expect_exit 0 "small verified run" -- "$lw" hash --table race --workload write-heavy --zipf 0 --keys 500 \
  --threads 2 --coroutines 2 --ops-per-worker 50 --verify --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["ops"] == 200, r["ops"]
assert r["verified"] is True, r
assert r["table"] == "race" and r["workload"] == "write-heavy", r
assert r["trace_hash"].startswith("0x"), r
PY
expect_exit 0 "smart-ht text report" -- "$lw" hash --table smart-ht --workload update-only --keys 500 \
  --threads 4 --coroutines 4 --warmup-us 200 --measure-us 300
grep -q "retries per update" "$tmp/out" || { echo "FAIL: report lacks retries per update"; fail=1; }
[ $fail -eq 0 ] && echo "hash CLI: all passed"
exit $fail
