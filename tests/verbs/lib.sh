# Shared by the Soft-RoCE scripts (verbs_suite.sh and the *_two_process.sh
# scripts it runs): check counting, memory nodes, usage-error checks.
# Source it after setting LW (the latchwork binary) and TMP (a scratch dir).
failures=0
checks=0
pids=()

pass() { checks=$((checks + 1)); echo "PASS $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $*"; }
note() { echo "---- $*"; }
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }

# need_verbs_build: exits 1 unless $LW exists and has the verbs backend.
need_verbs_build() {
  [ -x "$LW" ] || { echo "FAIL $LW is not built"; exit 1; }
  if ! "$LW" memnode --help >/dev/null 2>&1 || "$LW" memnode --listen 127.0.0.1:1 --size 1x 2>&1 | grep -q "no verbs backend"; then
    echo "FAIL this build has no verbs backend (libibverbs-dev missing at configure time)"; exit 1
  fi
}

# start_memnode PORT SIZE LOG: starts a memory node on rxe0 and waits until
# it serves; prints its pid.
start_memnode() {
  "$LW" memnode --listen "127.0.0.1:$1" --size "$2" --device rxe0 --gid-index 1 >"$3" 2>&1 &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 200); do
    grep -q "serving" "$3" 2>/dev/null && { echo "$pid"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$3" >&2
  return 1
}

# expect_usage NAME PATTERN -- ARGS...: `latchwork ARGS` exits 2 with a
# message matching PATTERN.
expect_usage() {
  local name=$1 pattern=$2
  shift 3
  timeout 60 "$LW" "$@" >"$TMP/err.out" 2>&1
  local rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pattern" "$TMP/err.out"; then
    pass "$name: exit 2: $(grep -m1 -- "$pattern" "$TMP/err.out")"
  else
    fail "$name: exit $rc (want 2 matching '$pattern'):"
    cat "$TMP/err.out"
  fi
}
