#!/usr/bin/env bash
# --timeline and --timeline-png end to end: a failing check seed and a latch
# run written as trace-event JSON that parses and names its tracks, the PNG
# drawn (or, without matplotlib for the command's Python, exit 1 with the
# reason), bad paths and other backends refused with exit 2 before anything
# runs, and a recorded run's trace hash equal to the unrecorded one.
# usage: timeline_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

# The JSON parses, every non-metadata event has the format's keys, and some
# events have the given category.
valid_trace() {  # valid_trace FILE CATEGORY...
  python3 - "$@" <<'PY' || { echo "FAIL: $1 is no valid timeline"; fail=1; }
import json, sys
doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
named = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
cats = set()
for e in events:
    assert all(k in e for k in ("name", "ph", "ts", "pid", "tid")), e
    if e["ph"] == "M":
        continue
    assert (e["pid"], e["tid"]) in named, e
    if e["ph"] == "X":
        assert e["dur"] >= 0, e
    cats.add(e.get("cat"))
for c in sys.argv[2:]:
    assert c in cats, (c, cats)
assert doc["displayTimeUnit"] == "ns"
assert "dropped_events" in doc["otherData"]
PY
}

# The command draws with /usr/bin/python3 when it exists (plot_json.cpp).
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
has_matplotlib=0
"$py" -c "import matplotlib" 2>/dev/null && has_matplotlib=1

# A failing seed of the bookend negative control (it needs read_lines_unordered).
check=(check --scheme bookend --seeds 30 --stop-at-first --explain 0 --show 1)
if [ $has_matplotlib = 1 ]; then
  expect_exit 0 "check --timeline --timeline-png" -- "$lw" "${check[@]}" --timeline "$tmp/check.json" --timeline-png "$tmp/check.png"
  [ -s "$tmp/check.png" ] || { echo "FAIL: no PNG"; fail=1; }
else
  expect_exit 1 "check --timeline-png without matplotlib" -- "$lw" "${check[@]}" --timeline "$tmp/check.json" --timeline-png "$tmp/check.png"
  expect_err "cannot draw the timeline"
fi
expect_err "timeline: seed"
valid_trace "$tmp/check.json" verb memory relaxation
# The recorded run is the failing seed's own: same trace hash as its replay.
recorded=$(sed -n 's/^timeline: seed \([0-9]*\) .*trace hash \(0x[0-9a-f]*\)$/\1 \2/p' "$tmp/err")
seed=${recorded% *}
expect_exit 0 "replay of the recorded seed" -- "$lw" check --scheme bookend --seed "$seed" --seeds 1 --explain 0 --json
python3 -c "import json,sys; r=json.load(open('$tmp/out')); assert r['trace_hash'] == '${recorded#* }', (r['trace_hash'], '$recorded')" \
  || { echo "FAIL: the timeline's run differs from the seed's replay"; cat "$tmp/out"; fail=1; }

# latch: the first latch's run, with the NIC model's waits on a calibrated profile.
expect_exit 0 "latch --timeline" -- "$lw" latch --latch exclusive --ops 5 --nic cx5-100g --timeline "$tmp/latch.json"
valid_trace "$tmp/latch.json" verb memory nic_wait
expect_exit 0 "latch without a timeline" -- "$lw" latch --latch exclusive --ops 5 --json
python3 -c "import json; json.load(open('$tmp/out'))" || { echo "FAIL: latch --json"; fail=1; }
expect_exit 0 "lock --timeline" -- "$lw" lock --lock alock --ops 20 --timeline "$tmp/lock.json" --timeline-limit 500
valid_trace "$tmp/lock.json" verb
python3 -c "import json; d=json.load(open('$tmp/lock.json')); assert d['otherData']['events'] <= 500, d['otherData']" \
  || { echo "FAIL: --timeline-limit not kept"; fail=1; }

# Usage errors: nothing runs, nothing is written.
expect_exit 2 "timeline in a missing directory" -- "$lw" latch --timeline /nonexistent/x.json
expect_err "does not exist"
expect_exit 2 "timeline PNG in a missing directory" -- "$lw" check --scheme bookend --timeline-png /nonexistent/x.png
expect_exit 2 "timeline is a directory" -- "$lw" perf read --timeline "$tmp"
expect_err "is a directory"
expect_exit 2 "timeline on threads" -- "$lw" latch --backend threads --timeline "$tmp/threads.json"
expect_err "sim backend"
[ ! -e "$tmp/threads.json" ] || { echo "FAIL: a refused run wrote its timeline"; fail=1; }
expect_exit 2 "timeline limit 0" -- "$lw" latch --timeline "$tmp/x.json" --timeline-limit 0

exit $fail
