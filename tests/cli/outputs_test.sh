#!/usr/bin/env bash
# Files a command is asked to write: a path that cannot be written is refused
# before the run (exit 2, nothing on stdout); a plot that fails after the run
# exits 1. Counts that would make a run do nothing are refused (exit 2).
# usage: outputs_test.sh <path to latchwork>
lw=$1
. "$(dirname "$0")/expect.sh"
start_cli_test
no_run() {  # refused before anything ran: no report on stdout
  [ -s "$tmp/out" ] && { echo "FAIL: $1 printed a report:"; cat "$tmp/out"; fail=1; }
}

small_btree="btree --keys 500 --threads 1 --coroutines 1 --ops-per-worker 20"
small_lock="lock --nodes 2 --threads 1 --locks 4 --ops 10"
small_txn="txn --nodes 2 --threads 1 --coroutines 1 --accounts-per-node 500 --warmup-us 5 --measure-us 20"
for run in "$small_btree" "$small_lock" "$small_txn"; do
  c=${run%% *}
  expect_exit 2 "$c --png in a missing directory" -- "$lw" $run --png /nonexistent/dir/x.png
  expect_err "--png /nonexistent/dir/x.png: directory /nonexistent/dir does not exist"
  no_run "$c --png /nonexistent/dir/x.png"
  expect_exit 2 "$c --png /" -- "$lw" $run --png /
  expect_err "--png /: is a directory"
  no_run "$c --png /"
  touch "$tmp/file"
  expect_exit 2 "$c --png under a file" -- "$lw" $run --png "$tmp/file/x.png"
  expect_err "is not a directory"
  expect_exit 2 "$c --png=" -- "$lw" $run --png=
  expect_err "--png needs a file name"
done

expect_exit 2 "repro --out under a file" -- "$lw" repro jasny-fig4 --no-plot --out "$tmp/file/sub"
expect_err "--out $tmp/file/sub: $tmp/file is not a directory"
[ -e "$tmp/file/sub" ] && { echo "FAIL: repro created something"; fail=1; }
expect_exit 2 "repro --out an existing file" -- "$lw" repro jasny-fig4 --no-plot --out "$tmp/file"
expect_err "is not a directory"
# A plot that fails after the run: exit 1 with the reason.
expect_exit 1 "repro with a missing plot script" -- "$lw" repro jasny-fig4 --out "$tmp/r" --plot-script /nonexistent.py
expect_err "latchwork repro: plotting failed"
[ -s "$tmp/r/jasny-fig4.csv" ] || { echo "FAIL: repro's CSV is missing"; fail=1; }

# Counts that make a run do nothing.
expect_exit 2 "repro --jobs 0" -- "$lw" repro jasny-fig4 --jobs 0 --no-plot --out "$tmp/r0"
expect_err "--jobs: 0 is out of range \[1, 256\]"
expect_exit 2 "txn --txns 0" -- "$lw" txn --backend threads --txns 0
expect_err "--txns 0 would run no transaction"
expect_exit 2 "hash --ops-per-worker 0" -- "$lw" hash --backend threads --ops-per-worker 0
expect_err "--ops-per-worker 0 would run no operation"
expect_exit 2 "btree --ops-per-worker 0" -- "$lw" btree --backend threads --ops-per-worker 0
expect_err "--ops-per-worker 0 would run no operation"

# The PNG asked for is there when the command says so.
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  expect_exit 0 "btree --png" -- "$lw" $small_btree --png "$tmp/fig14.png"
  [ -s "$tmp/fig14.png" ] || { echo "FAIL: btree wrote no PNG"; fail=1; }
fi
[ $fail -eq 0 ] && echo "outputs: all passed"
exit $fail
