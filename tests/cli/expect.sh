# Helpers shared by the CLI end-to-end scripts (sourced). They expect $tmp (a
# scratch folder) and set fail=1 on a mismatch.
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
start_cli_test() {  # the preamble: strict mode, no failure yet, a scratch $tmp removed on exit
  set -uo pipefail
  fail=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}
