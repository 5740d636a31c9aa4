#!/usr/bin/env bash
# A run that cannot get its threads or its memory ends with a message naming
# the command and the resource, and exit 1 (not an abort); a long run says how
# far it is on stderr.
# usage: resources_test.sh <path to latchwork> [sanitized: 1 or 0]
lw=$1 sanitized=${2:-0}
. "$(dirname "$0")/expect.sh"
start_cli_test

# A memory node larger than the address space allows (6 GiB). AddressSanitizer
# reserves terabytes of shadow memory at start-up, so a sanitized binary cannot
# run under an address-space limit at all: those two cases need a plain build.
if [ "$sanitized" = 1 ]; then
  echo "resources: address-space cases skipped (sanitized build)"
else
echo '{"memory_node_bytes": 17179869184}' >"$tmp/big.json"
expect_exit 1 "memory node mapping fails" -- bash -c 'ulimit -v 6291456 && exec "$0" latch --config "$1"' "$lw" "$tmp/big.json"
expect_err "latchwork latch: cannot map 17179869184 bytes of host memory for a memory node"
# 4096 threads with 8 MiB stacks do not fit in 6 GiB: some thread cannot be
# created (which one depends on the memory already used).
expect_exit 1 "threads that cannot be created" -- \
  bash -c 'ulimit -v 6291456 && ulimit -s 8192 && exec "$0" latch --backend threads --threads 1024 --compute-nodes 4 --ops 5' "$lw"
grep -Eq "latchwork latch: cannot create worker thread [0-9]+ of 4096: Resource temporarily unavailable" "$tmp/err" || {
  echo "FAIL: no message naming the thread"; cat "$tmp/err"; fail=1; }
fi

# Progress: runs of over a minute inside one seed print a line every
# --progress-seconds (stopped here after a few seconds).
for run in "check --ops 100000 --scheme farm --seeds 1" "check --memory-node-threads 1024 --seeds 2 --scheme versioning"; do
  timeout -s INT 5 "$lw" $run --progress-seconds 1 >"$tmp/out" 2>"$tmp/err"
  grep -Eq "^latchwork check (farm|versioning): 0 of [12] seeds done, 0 failing seeds, [0-9]+ s elapsed" "$tmp/err" || {
    echo "FAIL: $run printed no progress line:"; cat "$tmp/err"; fail=1; }
done
expect_exit 2 "progress interval 0" -- "$lw" check --progress-seconds 0
expect_err "--progress-seconds: 0 is out of range"
[ $fail -eq 0 ] && echo "resources and progress: all passed"
exit $fail
