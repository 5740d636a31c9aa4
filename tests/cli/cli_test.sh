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

. "$(dirname "$0")/expect.sh"

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
expect_exit 2 "bad semantics" -- "$lw" torn-read --semantics fast
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
expect_exit 0 "litmus exhaustive" -- "$lw" litmus --exhaustive --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) >= 30, len(rows)
for r in rows:
    assert r["exhaustive"] and r["complete"], r
    assert r["outcomes"] == sorted(r["allowed"]), r     # exactly the allowed outcomes
    assert not r["violations"] and not r["missing"], r
PY
expect_exit 2 "litmus exhaustive with seeds" -- "$lw" litmus --exhaustive --seeds 3
expect_err "do not apply to --exhaustive"
expect_exit 2 "litmus exhaustive without a form" -- "$lw" litmus --exhaustive --test completion_order
expect_err "no exhaustive form"
# check --exhaustive on a workload: a negative control violated, a correct
# scheme proved (each well under a second), both as expected (exit 0).
expect_exit 0 "check exhaustive tuples" -- "$lw" check --structure tuples --scheme in-place-marking --exhaustive --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["verdict"] == "violated" and r["as_expected"] and r["trace"], r
assert "torn-read" in r["violation"] and r["ops"] == 2 and r["states"] > 0, r
PY
expect_exit 0 "check exhaustive proved" -- "$lw" check --structure tuples --scheme out-of-place --exhaustive
grep -q "proved within scope" "$tmp/out" || { echo "FAIL: out-of-place not proved"; cat "$tmp/out"; fail=1; }
expect_exit 1 "check exhaustive bound" -- "$lw" check --structure tuples --scheme out-of-place --exhaustive --max-states 10
grep -q "not proved: bound reached" "$tmp/out" || { echo "FAIL: no bound verdict"; cat "$tmp/out"; fail=1; }
# The hash table and Sherman allocate blocks by RPC, which the explorer
# serves: every hash scheme as expected at 2 x 2 (about a second in all),
# Sherman's per-line proved at its default scope (2 compute nodes x 1 op).
expect_exit 0 "check exhaustive hash" -- "$lw" check --structure hash --exhaustive --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
rows = {r["scheme"]: r for r in map(json.loads, open(sys.argv[1]))}
assert set(rows) == {"race", "smart-ht", "unordered-publish"}, rows.keys()
assert all(r["as_expected"] and r["ops"] == 2 for r in rows.values()), rows
assert rows["race"]["verdict"] == rows["smart-ht"]["verdict"] == "proved", rows
assert rows["unordered-publish"]["verdict"] == "violated" and rows["unordered-publish"]["trace"], rows
PY
expect_exit 0 "check exhaustive sherman" -- "$lw" check --structure sherman --scheme per-line --exhaustive
grep -q "proved within scope" "$tmp/out" || { echo "FAIL: sherman per-line not proved"; cat "$tmp/out"; fail=1; }
grep -q "^scope: 2 compute node(s) x 1 thread(s)" "$tmp/out" || { echo "FAIL: no sherman scope line"; cat "$tmp/out"; fail=1; }
expect_exit 2 "check exhaustive txn" -- "$lw" check --structure txn --exhaustive
expect_err "sampled seeds"
# A store larger than the memory nodes: refused before it is laid out, a
# usage error naming the flag, and no report of a run that did not happen.
expect_exit 2 "txn store larger than its nodes" -- "$lw" txn --workload smallbank --memory-node-mb 1 --json
expect_err "the store does not fit memory node 0: it needs at least"
expect_err "(--memory-node-mb)"
[ -s "$tmp/out" ] && { echo "FAIL: txn printed a report for a run that did not start"; cat "$tmp/out"; fail=1; }
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
expect_exit 2 "perf bad nic" -- "$lw" perf read --nic cx9-1600g
expect_err "unknown nic profile"
expect_exit 2 "perf misaligned atomics" -- "$lw" perf faa --stride 12
expect_exit 0 "perf help" -- "$lw" perf --help
# All-to-all among symmetric nodes: the rate per node follows the row.
expect_exit 0 "perf symmetric" -- "$lw" perf read --symmetric --memory-nodes 3 --threads 2 --batch 4 --measure-us 20
grep -q "all-to-all among 3 nodes" "$tmp/out" || { echo "FAIL: perf --symmetric prints no per-node rate"; cat "$tmp/out"; fail=1; }
expect_exit 2 "perf symmetric on one node" -- "$lw" perf read --symmetric --memory-nodes 1
expect_err "at least 2 memory nodes"
expect_exit 2 "perf symmetric with depth" -- "$lw" perf read --symmetric --memory-nodes 2 --depth 4
expect_err "use --batch"
expect_exit 0 "repro list" -- "$lw" repro --list
grep -q "jasny-fig4" "$tmp/out" || { echo "FAIL: repro --list lacks jasny-fig4"; fail=1; }
expect_exit 2 "repro unknown" -- "$lw" repro fig99
expect_exit 0 "repro fig4" -- "$lw" repro jasny-fig4 --no-plot --out "$tmp/repro"
for ext in csv json; do
  [ -s "$tmp/repro/jasny-fig4.$ext" ] || { echo "FAIL: repro wrote no $ext"; fail=1; }
done
grep -q "fitted" "$tmp/out" || { echo "FAIL: repro prints no paper comparison"; fail=1; }
expect_exit 2 "repro --jobs out of range" -- "$lw" repro jasny-fig4 --no-plot --jobs 1000 --out "$tmp/repro-bad"
[ -e "$tmp/repro-bad" ] && { echo "FAIL: repro with a bad --jobs wrote results"; fail=1; }
# Points on several threads: the same CSV.
expect_exit 0 "repro fig4 --jobs 3" -- "$lw" repro jasny-fig4 --no-plot --jobs 3 --out "$tmp/repro3"
cmp -s "$tmp/repro/jasny-fig4.csv" "$tmp/repro3/jasny-fig4.csv" || { echo "FAIL: repro --jobs 3 changed the results"; fail=1; }
# Several figures: in order, one process each with --jobs 2, the same files and tables.
expect_exit 0 "repro two figures" -- "$lw" repro jasny-fig4,alock-fig1 --no-plot --jobs 1 --out "$tmp/repro-two1"
sed "s|$tmp/repro-two1||; /simulated verbs in/d" "$tmp/out" > "$tmp/two1.txt"
expect_exit 0 "repro two figures, two processes" -- "$lw" repro jasny-fig4,alock-fig1 --no-plot --jobs 2 --out "$tmp/repro-two2"
sed "s|$tmp/repro-two2||; /simulated verbs in/d" "$tmp/out" > "$tmp/two2.txt"
cmp -s "$tmp/two1.txt" "$tmp/two2.txt" || { echo "FAIL: repro in processes printed other tables"; fail=1; }
for fig in jasny-fig4 alock-fig1; do
  cmp -s "$tmp/repro-two1/$fig.csv" "$tmp/repro-two2/$fig.csv" || { echo "FAIL: repro in processes changed $fig"; fail=1; }
done
ls -A "$tmp/repro-two2" | grep -q stdout && { echo "FAIL: repro left a child's output file"; fail=1; }
# Jasny Figs. 4 and 5 share runs: one process runs both and simulates those
# runs once; the results equal each figure's own.
expect_exit 0 "repro figures sharing runs" -- "$lw" repro jasny-fig5,jasny-fig4 --no-plot --jobs 2 --out "$tmp/repro-shared"
grep -q "runs equal to earlier ones, not simulated again" "$tmp/out" || { echo "FAIL: repro shared no run between jasny-fig5 and jasny-fig4"; fail=1; }
expect_exit 0 "repro fig5 alone" -- "$lw" repro jasny-fig5 --no-plot --out "$tmp/repro-fig5"
grep -q "not simulated again" "$tmp/out" && { echo "FAIL: repro of one figure shared a run"; fail=1; }
cmp -s "$tmp/repro-fig5/jasny-fig5.csv" "$tmp/repro-shared/jasny-fig5.csv" || { echo "FAIL: shared runs changed jasny-fig5"; fail=1; }
cmp -s "$tmp/repro/jasny-fig4.csv" "$tmp/repro-shared/jasny-fig4.csv" || { echo "FAIL: shared runs changed jasny-fig4"; fail=1; }
expect_exit 2 "repro unknown in a list" -- "$lw" repro jasny-fig4,fig99 --no-plot --out "$tmp/repro-list-bad"
expect_err "unknown figure \"fig99\""
[ -e "$tmp/repro-list-bad" ] && { echo "FAIL: repro with an unknown figure wrote results"; fail=1; }
expect_exit 2 "repro figure twice" -- "$lw" repro jasny-fig4,jasny-fig4 --no-plot --out "$tmp/repro-list-bad"
expect_err "named twice"
# --scale paper: a figure kept at its scale gives the same values; the JSON
# says which scale ran; an unknown scale writes nothing.
expect_exit 0 "repro --scale paper" -- "$lw" repro jasny-fig4 --scale paper --no-plot --out "$tmp/repro-paper"
cmp -s "$tmp/repro/jasny-fig4.csv" "$tmp/repro-paper/jasny-fig4.csv" || { echo "FAIL: --scale paper changed jasny-fig4"; fail=1; }
grep -q '"scale": "paper"' "$tmp/repro-paper/jasny-fig4.json" || { echo "FAIL: repro JSON does not say --scale paper"; fail=1; }
grep -q '"scale": "default"' "$tmp/repro/jasny-fig4.json" || { echo "FAIL: repro JSON does not say the default scale"; fail=1; }
expect_exit 2 "repro --scale unknown" -- "$lw" repro jasny-fig4 --scale huge --no-plot --out "$tmp/repro-scale-bad"
[ -e "$tmp/repro-scale-bad" ] && { echo "FAIL: repro with a bad --scale wrote results"; fail=1; }

# latchwork check: negative controls caught with their cause, correct schemes clean.
expect_exit 0 "check list" -- "$lw" check --list
grep -q "^tuples *bookend *negative-control" "$tmp/out" || { echo "FAIL: check --list lacks bookend as a negative control"; cat "$tmp/out"; fail=1; }
grep -q "^btree *btree-pessimistic *correct" "$tmp/out" || { echo "FAIL: check --list lacks the btree"; cat "$tmp/out"; fail=1; }
[ "$(grep -c " correct \| negative-control " "$tmp/out")" -ge 19 ] || { echo "FAIL: check --list lists too few schemes"; cat "$tmp/out"; fail=1; }
expect_exit 0 "check bookend" -- "$lw" check --scheme bookend --seeds 30 --show 1
grep -q "violations found, as expected" "$tmp/out" || { echo "FAIL: check finds nothing for bookend"; cat "$tmp/out"; fail=1; }
grep -q "caused by read_lines_unordered" "$tmp/out" || { echo "FAIL: check names no relaxation"; cat "$tmp/out"; fail=1; }
grep -q "needs read_lines_unordered (ablation)" "$tmp/out" || { echo "FAIL: check explains nothing by ablation"; cat "$tmp/out"; fail=1; }
grep -q "replay: latchwork check --structure tuples --scheme bookend --seed" "$tmp/out" || { echo "FAIL: check prints no replay command"; fail=1; }
grep -q "by kind (whole sweep): [a-z-]*=[0-9]*.*; [1-9] seed(s) explained" "$tmp/out" || { echo "FAIL: check prints no counts per kind"; cat "$tmp/out"; fail=1; }
expect_exit 0 "check versioning json" -- "$lw" check --scheme versioning --seeds 5 --json
grep -q '"findings":0' "$tmp/out" || { echo "FAIL: check versioning json"; cat "$tmp/out"; fail=1; }
# Starvation (one key, few attempts) is a report: a correct scheme still passes.
expect_exit 0 "check starvation" -- "$lw" check --scheme pessimistic-async --keys 1 --ops 100 --max-attempts 10 --seeds 3
grep -q "starvation (report)" "$tmp/out" || { echo "FAIL: check reports no starvation"; cat "$tmp/out"; fail=1; }
expect_exit 0 "check stuck latch" -- "$lw" check --scheme write-unlatch-faa --keys 1 --ops 100 --max-attempts 10 --seeds 3 --show 1
grep -q "stuck-latch: .*latch word .* is 0x" "$tmp/out" || { echo "FAIL: check names no stuck latch word"; cat "$tmp/out"; fail=1; }
expect_exit 2 "check bad scheme" -- "$lw" check --scheme md5
expect_exit 2 "check on threads" -- "$lw" check --backend threads --scheme versioning
expect_err "runs on the simulator"
expect_exit 0 "check btree" -- "$lw" check --structure btree --seeds 5
grep -q "btree-pessimistic .* ok" "$tmp/out" || { echo "FAIL: check --structure btree"; cat "$tmp/out"; fail=1; }
expect_exit 2 "check btree with a tuple scheme" -- "$lw" check --structure btree --scheme bookend
expect_err "btree-optimistic and btree-pessimistic"
expect_exit 2 "check trace key on the btree" -- "$lw" check --structure btree --trace --trace-key 1
expect_err "needs --structure tuples"
expect_exit 0 "check trace" -- "$lw" check --scheme bookend --seeds 30 --stop-at-first --minimise --trace --trace-key 0
grep -q "relaxations applied:" "$tmp/out" || { echo "FAIL: check --trace prints no trace"; cat "$tmp/out"; fail=1; }
# Smart network hardware (docs/smart-hardware.md): duplicates executed twice
# are caught and named, and the replay command carries the config file.
printf '{"network": {"switch": {"enabled": true, "program": "optimistic-latching", "duplicate_percent": 20, "suppress_duplicates": false}}}' >"$tmp/dup.json"
expect_exit 1 "check switch duplicates" -- "$lw" check --scheme switch-optimistic --seeds 3 --show 1 --config "$tmp/dup.json"
grep -q "switch_duplicate" "$tmp/out" || { echo "FAIL: check names no switch duplicate"; cat "$tmp/out"; fail=1; }
grep -q -- "--config $tmp/dup.json" "$tmp/out" || { echo "FAIL: replay lacks the config file"; cat "$tmp/out"; fail=1; }
expect_exit 0 "perf on the switch" -- "$lw" perf cas --target switch --nic cx5-100g --threads 4
expect_exit 2 "perf 64 B on the switch" -- "$lw" perf read --size 64 --target switch
expect_err "8 bytes"
expect_exit 0 "flips help" -- "$lw" flips --help
expect_exit 2 "flips bad nic" -- "$lw" flips --nic cx9

# Issue 11: bad input never crashes. Each accepted-but-fatal input of the
# issue (and those found the same way) exits 2 with a message naming the
# field and its range, or 1 for a run that failed, within seconds.
bad_config() {  # bad_config NAME JSON EXPECTED-MESSAGE [command...]
  local name=$1 json=$2 msg=$3; shift 3
  printf '%s' "$json" >"$tmp/$name.json"
  expect_exit 2 "config $name" -- timeout 20 "$lw" "${@:-config}" --config "$tmp/$name.json"
  expect_err "$msg"
}
bad_config mnb4096 '{"memory_node_bytes": 4096}' "memory_node_bytes must be in \[8192, " latch
bad_config cn2p32 '{"compute_nodes": 4294967297}' "compute_nodes must be in \[1, 1024\], got 4294967297"
bad_config qd1 '{"queue_depth": 1}' "queue_depth 1 is too small" latch
bad_config qd1c1 '{"queue_depth": 1, "coroutines_per_thread": 1}' "queue_depth 1 is too small" torn-read
bad_config qd2demo '{"queue_depth": 2, "coroutines_per_thread": 1}' "queue_depth 2 is too small" demo
bad_config aw '{"semantics": {"atomic_window_ns": 18446744073709551615}}' "semantics.atomic_window_ns must be in \[0, 1000000\]" torn-read
bad_config rs '{"semantics": {"read_spread_ns": 10000000000}}' "semantics.read_spread_ns must be in" torn-read
bad_config pc '{"timing": {"post_cpu_ns": 9223372036854775808}}' "timing.post_cpu_ns must be in \[0, 1000000000\]" latch
bad_config jit '{"timing": {"jitter_ns": 1000000001}}' "timing.jitter_ns must be in" latch
bad_config bpn '{"timing": {"bytes_per_ns": 1e-300}}' "timing.bytes_per_ns must be in"
bad_config mem16g '{"memory_nodes": 2, "memory_node_bytes": 17179869184}' "memory_nodes x memory_node_bytes"
bad_config ltb '{"nic": {"profile": "cx5-100g", "parameters": {"lock_table_bits": 4294967308}}}' "lock_table_bits must be an integer in \[3, 24\]" perf read
bad_config gbps '{"nic": {"profile": "cx5-100g", "parameters": {"link_gbps": 1e-300}}}' "link_gbps must be a number in \[0.01, 100000\]" perf read
printf '{"name": "slow", "parameters": {"link_gbps": {"value": 1e-300, "source": "x"}}}' >"$tmp/slow-nic.json"
expect_exit 2 "nic profile link_gbps 1e-300" -- "$lw" perf read --nic "$tmp/slow-nic.json"
expect_err "link_gbps must be a number in"
expect_exit 2 "empty config path" -- "$lw" latch --config ""
expect_err "needs a file path"
expect_exit 2 "config /dev/zero" -- timeout 5 "$lw" latch --config /dev/zero
expect_err "config file /dev/zero is not a regular file"
expect_exit 2 "nic profile /dev/zero" -- timeout 5 "$lw" perf read --nic /dev/zero
expect_err "not a regular file"
expect_exit 2 "cluster file /dev/zero" -- timeout 5 "$lw" latch --backend verbs --cluster /dev/zero
expect_err "not a regular file"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$tmp/huge.json"
expect_exit 2 "config over 1 MiB" -- timeout 5 "$lw" config --config "$tmp/huge.json"
expect_err "at most 1048576"
# Resources, checked before anything is allocated.
expect_exit 2 "memory nodes x bytes" -- timeout 5 "$lw" latch --memory-nodes 1024
expect_err "memory_nodes x memory_node_bytes is 68719476736 bytes; at most 17179869184"
expect_exit 2 "workers" -- timeout 5 "$lw" latch --compute-nodes 1024 --threads 1024 --coroutines 1024
expect_err "workers; at most 65536"
expect_exit 2 "perf 16 MiB with deep queues" -- timeout 5 "$lw" perf read --size 16777216 --depth 256 --threads 8
expect_err "workers x batch x size is"
expect_exit 2 "perf depth beyond the queue" -- timeout 5 "$lw" perf read --threads 64 --depth 300
expect_err "depth x batch 300 is more than the queue pair holds (queue_depth 256)"
"$lw" perf --help >"$tmp/out"
grep -q "1 GiB of buffers" "$tmp/out" || { echo "FAIL: perf --help documents no limits"; fail=1; }
# Numbers without wrap-around.
expect_exit 2 "perf stride near 2^64 plus padding" -- "$lw" perf read --stride 18446744073709551615 --padding 2
expect_err "--stride: 18446744073709551615 is out of range \[1, 1073741824\]"
expect_exit 2 "perf stride + padding" -- "$lw" perf read --stride 1073741824 --padding 64
expect_err "stride + padding must be in"
expect_exit 2 "memnode size wraps" -- "$lw" memnode --size 17179869185G
expect_err "too large"
expect_exit 2 "litmus first seed near 2^64" -- "$lw" litmus --first-seed 18446744073709551615 --seeds 300
expect_err "would wrap to 0"
expect_exit 0 "litmus last seed 2^64 - 1" -- "$lw" litmus --first-seed 18446744073709551614 --seeds 2 --test reads_unordered --json
grep -q '"runs":2' "$tmp/out" || { echo "FAIL: litmus ran not 2 seeds"; cat "$tmp/out"; fail=1; }
expect_exit 2 "check seed wraps" -- "$lw" check --seed 18446744073709551615 --seeds 2
expect_err "would wrap to 0"
expect_exit 2 "negative uint with a blank" -- "$lw" litmus --seeds " -1"
expect_err "is not a non-negative integer"
# Library checks reachable from input are statuses, not aborts.
expect_exit 2 "latch counters that do not fit" -- "$lw" latch --counters 1048576
expect_err "1048576 counters of 256 bytes need"
expect_exit 2 "check store that does not fit" -- "$lw" check --keys 4096 --tuple-bytes 16384 --seeds 1 --scheme versioning
expect_err "no room"
# External programs: an argument vector, no shell.
mkdir -p "$tmp/q'\$(touch $tmp/pwned)"
expect_exit 1 "repro plot script with a quote in the path" -- "$lw" repro jasny-fig4 --out "$tmp/q'\$(touch $tmp/pwned)" --plot-script /nonexistent.py
[ -e "$tmp/pwned" ] && { echo "FAIL: repro ran a command from a path"; fail=1; }
expect_err "plotting failed"

# --json carries trace_hash everywhere; replay lines reproduce the run.
for c in "latch --ops 5" "perf cas --measure-us 5" "check --scheme versioning --seeds 2" "litmus --seeds 3 --test reads_unordered" "torn-read --ops 100"; do
  expect_exit 0 "$c --json" -- "$lw" $c --json
  python3 - "$tmp/out" <<'PY' || { echo "FAIL: $c --json lacks trace_hash"; fail=1; }
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    h = r.get("trace_hash") or r["result"]["trace_hash"]
    assert h.startswith("0x") and int(h, 16) != 0, r
PY
done
# A config with switches of its own: a replay that put --semantics after it
# would wipe them and change the run.
printf '{"profile": "connectx", "semantics": {"reads_unordered": true, "atomic_loses_write": true}, "compute_nodes": 2}' >"$tmp/own.json"
expect_exit 0 "check with its own switches" -- "$lw" check --scheme bookend --seeds 40 --show 1 --json --config "$tmp/own.json" --read-percent 70
cp "$tmp/out" "$tmp/check.json"
python3 - "$tmp/check.json" "$lw" <<'PY' || fail=1
import json, shlex, subprocess, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["examples"], "bookend found no violation to replay"
# Every finding of the sweep by kind, kept or not (starvation reports too).
assert sum(r["kinds"].values()) == r["findings"] + r["starved_seeds"] > 0, r["kinds"]
assert 1 <= r["explained_seeds"] <= 3, r["explained_seeds"]
ex = r["examples"][0]
assert "--semantics" not in ex["replay"], ex["replay"]
args = shlex.split(ex["replay"])
assert args[0] == "latchwork"
out = subprocess.run([sys.argv[2]] + args[1:] + ["--json"], capture_output=True, text=True)
assert out.returncode == 0, out.stderr
again = json.loads(out.stdout.splitlines()[0])
assert again["trace_hash"] == ex["trace_hash"], (again["trace_hash"], ex["trace_hash"], ex["replay"])
assert again["findings"] > 0, again
PY
# A minimised finding's replay line (a smaller shape) reproduces its trace hash.
expect_exit 0 "check minimised replay" -- "$lw" check --scheme in-place-marking --seeds 20 --stop-at-first --minimise --explain 0 --show 1 --json
cp "$tmp/out" "$tmp/min.json"
python3 - "$tmp/min.json" "$lw" <<'PY' || fail=1
import json, shlex, subprocess, sys
r = json.loads(open(sys.argv[1]).readline())
ex = r["examples"][0]
assert ex["failure"] and "--ops 30" not in ex["replay"], ex["replay"]
args = shlex.split(ex["replay"])
out = subprocess.run([sys.argv[2]] + args[1:] + ["--json"], capture_output=True, text=True)
again = json.loads(out.stdout.splitlines()[0])
assert again["trace_hash"] == ex["trace_hash"], (again["trace_hash"], ex["trace_hash"], ex["replay"])
assert again["examples"][0]["kind"] == ex["kind"], again["examples"][0]
PY
expect_exit 0 "latch replay" -- "$lw" latch --latch rw --read-percent 30 --coroutines 3 --ops 7 --seed 5 --config "$src/configs/small-cluster.json" --json
python3 - "$tmp/out" "$lw" <<'PY' || fail=1
import json, shlex, subprocess, sys
r = json.loads(open(sys.argv[1]).readline())
args = shlex.split(r["replay"])
assert args[:3] == ["latchwork", "latch", "--latch"] and "--config" in args, args
out = subprocess.run([sys.argv[2]] + args[1:] + ["--json"], capture_output=True, text=True)
assert out.returncode == 0, out.stderr
again = json.loads(out.stdout.splitlines()[0])
assert again["trace_hash"] == r["trace_hash"], (again, r)
# Without the config file the run differs: the replay needs it.
out = subprocess.run([sys.argv[2]] + [a for a in args[1:] if "small-cluster" not in a and a != "--config"] + ["--json"],
                     capture_output=True, text=True)
assert json.loads(out.stdout.splitlines()[0])["trace_hash"] != r["trace_hash"]
PY

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
