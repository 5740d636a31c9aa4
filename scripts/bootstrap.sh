#!/usr/bin/env bash
# Installs the Debian packages Latchwork needs, by group:
#   scripts/bootstrap.sh build   what building the library and the `latchwork`
#                                command needs (make run, make build)
#   scripts/bootstrap.sh all     also what tests, plots and fuzzing need
#                                (make test; the default): matplotlib for PNGs,
#                                clang with libFuzzer, Chromium and its fonts
#                                for the report.html test
# libibverbs-dev: the verbs backend (the Soft-RoCE VM of `make test-verbs`
# installs its own packages, see scripts/softroce-vm.sh).
# Idempotent: does nothing when everything is installed; runs apt-get update
# at most once, and only when something is missing.
set -euo pipefail

group=${1:-all}
build_packages=(cmake ninja-build g++ make libgtest-dev libgmock-dev libbenchmark-dev
                nlohmann-json3-dev libibverbs-dev ibverbs-providers)
test_packages=(python3-matplotlib clang libclang-rt-dev chromium fonts-liberation)
case "$group" in
  build) packages=("${build_packages[@]}") ;;
  all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "bootstrap: unknown group \"$group\" (build or all)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "bootstrap: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
