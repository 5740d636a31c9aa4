#!/usr/bin/env bash
# `latchwork check --structure txn` end to end: usage errors (exit 2), a
# clean correct design (exit 0), a seeded bug found with a replay line that
# finds it again.
# usage: txn_check_cli_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

expect_exit 2 "bad design" -- "$lw" check --structure txn --design spanner
expect_err "not one of"
expect_exit 2 "tuple scheme on txn" -- "$lw" check --structure txn --scheme bookend
expect_err "the txn structure takes the schemes"
expect_exit 2 "txn scheme on tuples" -- "$lw" check --scheme no-write-recheck
expect_err "is a txn scheme"
expect_exit 2 "design without txn" -- "$lw" check --design drtmh
expect_err "need --structure txn"
expect_exit 2 "mixed atomics on ford" -- "$lw" check --structure txn --design ford --scheme mixed-atomics
expect_err "symmetric design"

expect_exit 0 "drtmh smallbank clean" -- "$lw" check --structure txn --design drtmh --workload smallbank --seeds 5
grep -q "drtmh/smallbank/none .* ok" "$tmp/out" || { echo "FAIL: drtmh smallbank not clean"; cat "$tmp/out"; fail=1; }

# A negative control: found, exit 0 (only correct schemes fail the command).
expect_exit 0 "no-write-recheck found" -- "$lw" check --structure txn --design drtmh --workload tpcc \
  --scheme no-write-recheck --seed 2 --seeds 1 --explain 0 --show 1
grep -q "violations found, as expected" "$tmp/out" || { echo "FAIL: no-write-recheck not found"; cat "$tmp/out"; fail=1; }
replay=$(grep -m1 "replay: " "$tmp/out" | sed 's/.*replay: latchwork //')
[ -n "$replay" ] || { echo "FAIL: no replay line"; fail=1; }
if [ -n "$replay" ]; then
  # shellcheck disable=SC2086
  "$lw" $replay --explain 0 > "$tmp/replay" 2>&1
  grep -q "violations found, as expected" "$tmp/replay" || { echo "FAIL: the replay line does not find it again"; cat "$tmp/replay"; fail=1; }
fi
exit $fail
