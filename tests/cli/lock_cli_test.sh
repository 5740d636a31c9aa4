#!/usr/bin/env bash
# `latchwork lock` end to end: help, usage errors (exit 2), small verified
# runs of every lock, the broken spinlock caught (exit 1), JSON and the CDF PNG.
# usage: lock_cli_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

expect_exit 0 "lock --help" -- "$lw" lock --help
grep -q "usage: latchwork lock" "$tmp/out" || { echo "FAIL: lock --help has no usage line"; fail=1; }
grep -q -- "--local-budget" "$tmp/out" || { echo "FAIL: lock --help lacks --local-budget"; fail=1; }
expect_exit 2 "bad lock" -- "$lw" lock --lock ticket
expect_err "not one of"
expect_exit 2 "locality above 100" -- "$lw" lock --locality 101
expect_exit 2 "no locks" -- "$lw" lock --locks 0
expect_exit 2 "fewer locks than nodes" -- "$lw" lock --locks 3 --nodes 5
expect_err "locks (3) below nodes (5)"
expect_exit 2 "remote locks on one node" -- "$lw" lock --nodes 1 --locality 90
expect_err "at least 2 nodes"
expect_exit 2 "zero threads" -- "$lw" lock --threads 0
expect_exit 2 "zero budget" -- "$lw" lock --remote-budget 0
expect_exit 2 "zero ops" -- "$lw" lock --ops 0
expect_exit 2 "nodes vs memory-nodes" -- "$lw" lock --nodes 3 --memory-nodes 4
expect_err "disagree"
expect_exit 2 "process index off verbs" -- "$lw" lock --process-index 1
expect_err "verbs"
expect_exit 2 "unknown flag" -- "$lw" lock --lokc spin
expect_err "unknown flag --lokc"
expect_exit 2 "stray argument" -- "$lw" lock alock
expect_exit 2 "empty png" -- "$lw" lock --png=

for kind in alock mcs spin; do
  expect_exit 0 "$kind verified run" -- "$lw" lock --lock "$kind" --nodes 3 --threads 3 --locks 30 \
    --locality 90 --ops 40 --json
  python3 - "$tmp/out" "$kind" <<'PY' || fail=1
import json, sys
r = json.loads(open(sys.argv[1]).read())
kind = sys.argv[2]
assert r["lock"] == kind, r["lock"]
assert r["ops"] == 3 * 3 * 40, r["ops"]
assert r["acquisitions"] == r["ops"], r
assert r["exact"] is True and r["failures"] == 0, r
assert r["mops"] > 0 and r["latency"]["p50_us"] > 0, r
assert r["local_latency"]["count"] + r["remote_latency"]["count"] == r["ops"], r
if kind == "alock":
    assert r["loopback_verbs"] == 0, "ALock's local cohort uses no loopback"
else:
    assert r["loopback_verbs"] > 0, "local workers of spin/mcs go through loopback"
assert r["counters"]["nic.loopback_verbs"] == r["loopback_verbs"], r["counters"]
PY
done

# The same seed replays the same run (sim).
expect_exit 0 "replay 1" -- "$lw" lock --lock mcs --nodes 2 --threads 2 --locks 10 --ops 30 --seed 7 --json
cp "$tmp/out" "$tmp/first"
expect_exit 0 "replay 2" -- "$lw" lock --lock mcs --nodes 2 --threads 2 --locks 10 --ops 30 --seed 7 --json
grep -v wall_seconds "$tmp/first" > "$tmp/a"; grep -v wall_seconds "$tmp/out" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL: the same seed gave two different runs"; fail=1; }

# CPU CAS against NIC CAS is not atomic (ALock Table 1): the counters say so.
expect_exit 1 "broken spinlock caught" -- "$lw" lock --lock spin-local-cpu --nodes 2 --threads 4 --locks 2 \
  --locality 50 --ops 200
expect_err "counters disagree"
grep -q "MISMATCH" "$tmp/out" || { echo "FAIL: the report does not show the mismatch"; fail=1; }

expect_exit 0 "text report" -- "$lw" lock --lock alock --nodes 2 --threads 2 --locks 4 --ops 30
for line in "throughput (Mops)" "latency (us) local" "latency (us) remote" "counters: exact"; do
  grep -q "$line" "$tmp/out" || { echo "FAIL: report lacks '$line'"; cat "$tmp/out"; fail=1; }
done

expect_exit 0 "threads backend" -- "$lw" lock --backend threads --lock spin --nodes 2 --threads 2 --locks 8 --ops 50
grep -q "counters: exact" "$tmp/out" || { echo "FAIL: threads run not exact"; cat "$tmp/out"; fail=1; }

if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  expect_exit 0 "cdf png" -- "$lw" lock --lock spin --nodes 2 --threads 2 --locks 8 --ops 30 --png "$tmp/cdf.png"
  [ -s "$tmp/cdf.png" ] || { echo "FAIL: no PNG written"; fail=1; }
  [ -s "$tmp/cdf.png.json" ] || { echo "FAIL: no CDF JSON written"; fail=1; }
fi
[ $fail -eq 0 ] && echo "lock CLI: all passed"
exit $fail
