#!/usr/bin/env bash
# The run budget end to end (issue 11 item 3): a run that reaches its budget
# ends with exit 1 and a message naming the flag or config field to raise;
# the budget comes from flags or the config file and is validated.
# usage: budget_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

# The contended configuration of the issue (minutes without a budget) ends at
# a small event budget.
expect_exit 1 "contended latch, event budget" -- "$lw" latch --compute-nodes 16 --threads 64 \
  --coroutines 16 --ops 1 --max-events 100000
expect_err "latchwork latch: the run reached its event budget of 100000 events"
expect_err "raise --max-events"
expect_err '"max_events"'
if grep -q "invariant\|Aborted" "$tmp/err"; then echo "FAIL: budget ended in an abort"; fail=1; fi
expect_exit 1 "virtual-time budget" -- "$lw" latch --latch exclusive --max-virtual-ms 1
expect_err "virtual-time budget of 1000000 ns"
expect_err "raise --max-virtual-ms"
# The same budget from the config file.
echo '{"budget": {"max_events": 5000}}' >"$tmp/budget.json"
expect_exit 1 "budget from the config" -- "$lw" torn-read --config "$tmp/budget.json"
expect_err "event budget of 5000 events"
expect_exit 1 "perf budget" -- "$lw" perf read --max-events 10
expect_err "latchwork perf: the run reached its event budget"
expect_exit 1 "conformance budget" -- "$lw" conformance --max-events 10
expect_err "latchwork conformance: the run reached its event budget of 10 events"
# Bad budgets are usage errors.
expect_exit 2 "zero event budget" -- "$lw" latch --max-events 0
expect_err "out of range"
echo '{"budget": {"max_events": 0}}' >"$tmp/zero.json"
expect_exit 2 "zero event budget in the config" -- "$lw" latch --config "$tmp/zero.json"
expect_err "budget.max_events"
# Within budget: unaffected.
expect_exit 0 "latch within budget" -- "$lw" latch --latch exclusive --max-events 1000000
"$lw" latch --latch exclusive --json >"$tmp/a" 2>/dev/null
"$lw" latch --latch exclusive --json --max-events 1000000 --max-virtual-ms 1000 >"$tmp/b" 2>/dev/null
# Identical results but for the wall time and the replay line (which repeats the flags given).
sed -e 's/"wall_seconds":[^,}]*//' -e 's/"replay":"[^"]*"//' "$tmp/a" >"$tmp/a2"
sed -e 's/"wall_seconds":[^,}]*//' -e 's/"replay":"[^"]*"//' "$tmp/b" >"$tmp/b2"
cmp -s "$tmp/a2" "$tmp/b2" || { echo "FAIL: a budget changed a run within it"; diff "$tmp/a2" "$tmp/b2"; fail=1; }
"$lw" config | grep -q '"max_events": 268435456' || { echo "FAIL: config lacks the default budget"; fail=1; }

exit $fail
