#!/usr/bin/env bash
# Time-boxed libFuzzer run of every target in fuzz/ (make fuzz).
#   fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]
# Starts from the seed corpus in fuzz/corpus/<target>/ with the dictionary
# fuzz/dict/<target>.dict (the corpus is never modified: new
# inputs go to BUILD_DIR/fuzz-corpus/). A crash, an abort, a sanitizer report,
# a leak, an input slower than 10 s (a hang) or more than 2 GiB of memory fails
# the run; the input is saved to BUILD_DIR/fuzz-artifacts/ and printed as a
# replay command. Prints the executions per target.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]}
secs=${2:-45}
targets=(cluster_config nic_profile cluster_file flags)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$build/fuzz-artifacts"
# Targets run side by side, one per core: the time box is per target, so
# the run takes SECONDS x targets / cores.
jobs=$(nproc 2>/dev/null || echo 1)
run_one() {
  local t=$1 bin="$build/fuzz/fuzz_$1" work="$build/fuzz-corpus/$1" log="$build/fuzz-$1.log"
  mkdir -p "$work"
  "$bin" "$work" "fuzz/corpus/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -dict="fuzz/dict/$t.dict" -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" >"$log" 2>&1
  echo $? >"$build/fuzz-$t.rc"
}
for t in "${targets[@]}"; do
  [ -x "$build/fuzz/fuzz_$t" ] || { echo "fuzz: $build/fuzz/fuzz_$t is missing (make fuzz builds it)" >&2; exit 1; }
done
echo "== fuzz: ${#targets[@]} targets x ${secs} s, ${jobs} at a time"
running=0
for t in "${targets[@]}"; do
  rm -f "$build/fuzz-$t.rc"
  run_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
failed=()
summary=""
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  log="$build/fuzz-$t.log"
  rc=$(cat "$build/fuzz-$t.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  line="fuzz_$t: ${execs:-?} executions in ${secs} s, ${cov:-cov: ?}, exit $rc"
  echo "$line"
  summary+="$line"$'\n'
  if [ "$rc" -ne 0 ]; then
    failed+=("$t")
    grep -E "ERROR|runtime error|SUMMARY|Test unit written|deadly signal|timeout" "$log" | head -20
    for a in "$build"/fuzz-artifacts/"$t"-*; do
      [ -e "$a" ] && echo "replay: $bin $a"
    done
  fi
done
echo "== fuzz summary"
printf '%s' "$summary"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (logs: $build/fuzz-<target>.log)" >&2
  exit 1
fi
echo "fuzz: no crash, hang or sanitizer report"
