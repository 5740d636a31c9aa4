#!/usr/bin/env bash
# End-to-end checks of the latchwork command: help, exit codes, JSON output,
# config files, and clear errors for bad input.
# usage: cli_test.sh <path to latchwork> <source dir>
set -uo pipefail
lw=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_exit() {  # expect_exit CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, wanted $want"; cat "$tmp/out" "$tmp/err"; fail=1
  fi
}
expect_err() {  # the last command's stderr contains TEXT
  grep -q -- "$1" "$tmp/err" || { echo "FAIL: stderr lacks '$1':"; cat "$tmp/err"; fail=1; }
}

expect_exit 0 "top-level help" -- "$lw" --help
grep -q "torn-read" "$tmp/out" || { echo "FAIL: help lists no torn-read"; fail=1; }
for c in demo torn-read litmus conformance latch config; do
  expect_exit 0 "$c --help" -- "$lw" $c --help
  grep -q "usage: latchwork $c" "$tmp/out" || { echo "FAIL: $c --help has no usage line"; fail=1; }
done
expect_exit 2 "no command" -- "$lw"
expect_exit 2 "unknown command" -- "$lw" frobnicate
expect_err "unknown command"
expect_exit 2 "bad size" -- "$lw" torn-read --size 100
expect_err "multiple of 64"
expect_exit 2 "bad scheme" -- "$lw" torn-read --scheme md5
expect_err "not one of"
expect_exit 2 "bad profile" -- "$lw" torn-read --profile fast
expect_exit 2 "unknown flag" -- "$lw" litmus --sedes 3
expect_err "unknown flag --sedes"
expect_exit 2 "missing config" -- "$lw" torn-read --config "$tmp/none.json"
expect_err "cannot open"
echo '{"compute_nodes": 0}' >"$tmp/bad.json"
expect_exit 2 "invalid config" -- "$lw" config --config "$tmp/bad.json"
expect_err "compute_nodes must be in"
echo '{"seed": 5, "profile": "sequential"}' >"$tmp/good.json"
expect_exit 0 "config file" -- "$lw" config --config "$tmp/good.json" --seed 9
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
assert c["seed"] == 9, c["seed"]             # the flag overrides the file
assert c["profile"] == "sequential", c["profile"]
PY

for f in "$src"/configs/*.json; do
  expect_exit 0 "shipped config $f" -- "$lw" config --config "$f"
done

expect_exit 0 "torn-read json" -- "$lw" torn-read --scheme all --size 64,512 --ops 500 --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8, len(rows)
for r in rows:
    for k in ("scheme", "size", "reads", "torn_detected", "torn_undetected"):
        assert k in r, k
    assert r["reads"] == 500
PY
expect_exit 0 "litmus" -- "$lw" litmus --seeds 30
expect_exit 0 "latch" -- "$lw" latch --ops 20 --json
expect_exit 0 "threads backend" -- "$lw" torn-read --backend threads --scheme farm --ops 300

# The backend conformance suite.
expect_exit 0 "conformance results" -- "$lw" conformance --case results
grep -q "^PASS results/cas-success" "$tmp/out" || { echo "FAIL: conformance prints no PASS line"; cat "$tmp/out"; fail=1; }
grep -q "^conformance on sim: .* 0 failed" "$tmp/out" || { echo "FAIL: conformance summary"; cat "$tmp/out"; fail=1; }
expect_exit 0 "conformance threads json" -- "$lw" conformance --backend threads --case misuse --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["backend"] == "threads" and r["failed"] == 0, r
assert len(r["cases"]) == r["passed"] + r["skipped"] > 0, r
for c in r["cases"]:
    assert c["group"] == "misuse" and c["outcome"] in ("PASS", "SKIP"), c
PY
expect_exit 0 "conformance list" -- "$lw" conformance --list
grep -q "concurrency/faa-counter" "$tmp/out" || { echo "FAIL: conformance --list lacks faa-counter"; fail=1; }
expect_exit 2 "conformance bad flag" -- "$lw" conformance --cases results
expect_err "unknown flag --cases"
expect_exit 2 "conformance no match" -- "$lw" conformance --case no-such-case
expect_err "no conformance case matches"

# perf and repro on the NIC model.
expect_exit 0 "perf sweep json" -- "$lw" perf cas --threads 1,4 --compute-nodes 2 --measure-us 20 --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["threads"] for r in rows] == [1, 4], rows
for r in rows:
    assert r["result"]["mops"] > 0 and r["result"]["latency_ns"]["p50"] > 0, r
assert rows[1]["result"]["mops"] > rows[0]["result"]["mops"]  # more workers, more throughput
PY
expect_exit 2 "perf bad verb" -- "$lw" perf swap
expect_err "unknown verb"
expect_exit 2 "perf no verb" -- "$lw" perf --threads 2
expect_exit 2 "perf bad list" -- "$lw" perf read --threads 1,x
expect_err "is not a number"
expect_exit 2 "perf bad profile" -- "$lw" perf read --profile cx9-1600g
expect_err "unknown nic profile"
expect_exit 2 "perf misaligned atomics" -- "$lw" perf faa --stride 12
expect_exit 0 "perf help" -- "$lw" perf --help
expect_exit 0 "repro list" -- "$lw" repro --list
grep -q "jasny-fig4" "$tmp/out" || { echo "FAIL: repro --list lacks jasny-fig4"; fail=1; }
expect_exit 2 "repro unknown" -- "$lw" repro fig99
expect_exit 0 "repro fig4" -- "$lw" repro jasny-fig4 --no-plot --out "$tmp/repro"
for ext in csv json; do
  [ -s "$tmp/repro/jasny-fig4.$ext" ] || { echo "FAIL: repro wrote no $ext"; fail=1; }
done
grep -q "fitted" "$tmp/out" || { echo "FAIL: repro prints no paper comparison"; fail=1; }

# latchwork check: negative controls caught with their cause, correct schemes clean.
expect_exit 0 "check bookend" -- "$lw" check --scheme bookend --seeds 30 --show 1
grep -q "violations found, as expected" "$tmp/out" || { echo "FAIL: check finds nothing for bookend"; cat "$tmp/out"; fail=1; }
grep -q "caused by read_lines_unordered" "$tmp/out" || { echo "FAIL: check names no relaxation"; cat "$tmp/out"; fail=1; }
grep -q "replay: latchwork check --structure tuples --scheme bookend --seed" "$tmp/out" || { echo "FAIL: check prints no replay command"; fail=1; }
expect_exit 0 "check versioning json" -- "$lw" check --scheme versioning --seeds 5 --json
grep -q '"findings":0' "$tmp/out" || { echo "FAIL: check versioning json"; cat "$tmp/out"; fail=1; }
expect_exit 2 "check bad scheme" -- "$lw" check --scheme md5
expect_exit 2 "check on threads" -- "$lw" check --backend threads --scheme versioning
expect_err "runs on the simulator"
expect_exit 0 "check btree" -- "$lw" check --structure btree --seeds 5
grep -q "btree-pessimistic .* ok" "$tmp/out" || { echo "FAIL: check --structure btree"; cat "$tmp/out"; fail=1; }
expect_exit 2 "check btree with a tuple scheme" -- "$lw" check --structure btree --scheme bookend
expect_err "btree-optimistic and btree-pessimistic"
# Smart network hardware (docs/smart-hardware.md): duplicates executed twice
# are caught and named, and the replay command carries the config file.
printf '{"network": {"switch": {"enabled": true, "program": "optimistic-latching", "duplicate_percent": 20, "suppress_duplicates": false}}}' >"$tmp/dup.json"
expect_exit 1 "check switch duplicates" -- "$lw" check --scheme switch-optimistic --seeds 3 --show 1 --config "$tmp/dup.json"
grep -q "caused by switch_duplicate" "$tmp/out" || { echo "FAIL: check names no switch duplicate"; cat "$tmp/out"; fail=1; }
grep -q -- "--config $tmp/dup.json" "$tmp/out" || { echo "FAIL: replay lacks the config file"; cat "$tmp/out"; fail=1; }
expect_exit 0 "perf on the switch" -- "$lw" perf cas --target switch --profile cx5-100g --threads 4
expect_exit 2 "perf 64 B on the switch" -- "$lw" perf read --size 64 --target switch
expect_err "8 bytes"
expect_exit 0 "flips help" -- "$lw" flips --help
expect_exit 2 "flips bad profile" -- "$lw" flips --profile cx9

if [ $fail -eq 0 ]; then echo "cli: all checks passed"; fi

# The verbs backend and memory nodes: bad input is caught before anything runs.
expect_exit 0 "memnode --help" -- "$lw" memnode --help
grep -q "usage: latchwork memnode" "$tmp/out" || { echo "FAIL: memnode --help"; fail=1; }
expect_exit 2 "memnode bad size" -- "$lw" memnode --size 12Q
expect_err "unknown suffix"
expect_exit 2 "memnode bad listen" -- "$lw" memnode --listen localhost
expect_err "not HOST:PORT"
expect_exit 2 "verbs without cluster file" -- "$lw" torn-read --backend verbs
expect_err "needs a cluster file"
expect_exit 2 "cluster without verbs" -- "$lw" torn-read --cluster "$tmp/c.json"
expect_err "add --backend verbs"
echo '{"memory_nodes": ["127.0.0.1:7471"], "gid_idx": 1}' >"$tmp/typo.json"
expect_exit 2 "cluster file typo" -- "$lw" latch --backend verbs --cluster "$tmp/typo.json"
expect_err 'unknown key "gid_idx"'
echo '{"memory_nodes": ["127.0.0.1:1"]}' >"$tmp/nobody.json"
expect_exit 1 "unreachable memory node" -- "$lw" torn-read --backend verbs --cluster "$tmp/nobody.json" --connect-timeout-ms 300
expect_err "latchwork: "
expect_exit 2 "processes without shared" -- "$lw" latch --processes 2
expect_err "needs --shared"
expect_exit 2 "processes on sim" -- "$lw" latch --processes 2 --shared x
expect_err "needs --backend verbs"

exit $fail
