#!/usr/bin/env bash
# `latchwork repro diff` on two small output folders: identical folders report
# no change (exit 0); a stated value pushed out of its tolerance, a plotted
# point moved and a figure missing are each reported (exit 1); a missing or
# empty folder is bad usage (exit 2). Also the totals line at the end of repro.
# usage: repro_diff_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/expect.sh"

expect_exit 0 "repro diff --help" -- "$lw" repro diff --help
grep -q -- "--threshold" "$tmp/out" || { echo "FAIL: repro diff --help lacks --threshold"; fail=1; }
expect_exit 0 "repro two figures" -- "$lw" repro jasny-fig4,smart-fig3 --no-plot --jobs 2 --quiet --out "$tmp/a"
grep -q "^fidelity: .* predicted values within tolerance.*by paper jasny [0-9]*/[0-9]* smart [0-9]*/[0-9]*" "$tmp/out" ||
  { echo "FAIL: repro printed no totals line by paper:"; tail -3 "$tmp/out"; fail=1; }
# The same figures again (one process): byte-identical, and diff says so.
expect_exit 0 "repro again" -- "$lw" repro jasny-fig4,smart-fig3 --no-plot --jobs 1 --quiet --out "$tmp/b"
for f in jasny-fig4 smart-fig3; do
  cmp -s "$tmp/a/$f.csv" "$tmp/b/$f.csv" || { echo "FAIL: $f.csv differs between two runs"; fail=1; }
done
expect_exit 0 "diff of equal folders" -- "$lw" repro diff "$tmp/a" "$tmp/b"
grep -q "^no change" "$tmp/out" || { echo "FAIL: equal folders did not report no change"; cat "$tmp/out"; fail=1; }
grep -q "^before: fidelity:" "$tmp/out" && grep -q "^after:  fidelity:" "$tmp/out" ||
  { echo "FAIL: diff printed no totals before and after"; fail=1; }

# Edit b: the first stated value of jasny-fig4 changes its verdict, one
# plotted point of smart-fig3 moves by 10%.
/usr/bin/python3 - "$tmp/b" <<'PY' || fail=1
import json, sys
d = sys.argv[1]
p = f"{d}/jasny-fig4.json"
r = json.load(open(p))
v = r["paper"][0]
v["within_tolerance"] = not v["within_tolerance"]
v["model_value"] = v["paper_value"] * (2.0 if v["within_tolerance"] is False else 1.0)
json.dump(r, open(p, "w"))
p = f"{d}/smart-fig3.json"
r = json.load(open(p))
pt = next(iter(r["series"].values()))[0]
pt["y"] *= 1.10
json.dump(r, open(p, "w"))
PY
expect_exit 1 "diff after a change" -- "$lw" repro diff "$tmp/a" "$tmp/b"
grep -Eq "^(left|entered) tolerance \(1\):" "$tmp/out" || { echo "FAIL: the verdict change is not listed"; cat "$tmp/out"; fail=1; }
grep -q "^  jasny-fig4 " "$tmp/out" || { echo "FAIL: the changed figure is not named"; fail=1; }
grep -q "^plotted points moved more than 5% (1):" "$tmp/out" || { echo "FAIL: the moved point is not listed"; cat "$tmp/out"; fail=1; }
grep -q "^changed" "$tmp/out" || { echo "FAIL: no 'changed' line"; fail=1; }
# A 20% threshold hides the 10% move but not the verdict.
expect_exit 1 "diff --threshold 0.2" -- "$lw" repro diff "$tmp/a" "$tmp/b" --threshold 0.2
grep -q "plotted points moved" "$tmp/out" && { echo "FAIL: --threshold 0.2 still lists a 10% move"; fail=1; }
expect_exit 1 "diff --json" -- "$lw" repro diff "$tmp/a" "$tmp/b" --json
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["changed"] is True
assert len(j["entered_tolerance"]) + len(j["left_tolerance"]) == 1, j
assert len(j["points_moved"]) == 1, j["points_moved"]
assert j["totals"]["old"]["all"]["stated"] == j["totals"]["new"]["all"]["stated"] > 0
' "$tmp/out" || { echo "FAIL: diff --json is not as expected"; fail=1; }

# A figure in one folder only.
rm "$tmp/b/smart-fig3.json"
expect_exit 1 "diff with a figure missing" -- "$lw" repro diff "$tmp/a" "$tmp/b"
grep -q "figure only in $tmp/a: smart-fig3" "$tmp/out" || { echo "FAIL: the missing figure is not named"; fail=1; }

# Bad usage.
expect_exit 2 "diff of a missing folder" -- "$lw" repro diff "$tmp/a" "$tmp/nope"
expect_err "no such folder"
mkdir "$tmp/empty"
expect_exit 2 "diff of an empty folder" -- "$lw" repro diff "$tmp/empty" "$tmp/a"
expect_err "no repro results"
expect_exit 2 "diff of one folder" -- "$lw" repro diff "$tmp/a"
echo '{"not": "a result"}' > "$tmp/empty/x.json"
expect_exit 2 "diff of a folder of other JSON" -- "$lw" repro diff "$tmp/empty" "$tmp/a"
expect_err "not a latchwork repro result"
exit $fail
