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
failed=()
summary=""
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "fuzz: $bin is missing (make fuzz builds it)" >&2; exit 1; }
  work="$build/fuzz-corpus/$t"
  mkdir -p "$work"
  log="$build/fuzz-$t.log"
  echo "== fuzz_$t: ${secs} s"
  "$bin" "$work" "fuzz/corpus/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -dict="fuzz/dict/$t.dict" -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  line="fuzz_$t: ${execs:-?} executions in ${secs} s, ${cov:-cov: ?}, exit $rc"
  echo "$line"
  summary+="$line"$'\n'
  if [ $rc -ne 0 ]; then
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
