#!/usr/bin/env bash
# Installs the Debian packages Latchwork needs to build, test and plot
# (libibverbs-dev: the verbs backend; the Soft-RoCE VM of `make test-verbs`
# installs its own packages, see scripts/softroce-vm.sh; clang and its
# compiler-rt with libFuzzer: the fuzz targets of `make fuzz`).
# Idempotent: does nothing when everything is installed; runs apt-get update
# at most once, and only when something is missing.
set -euo pipefail

packages=(cmake ninja-build g++ make libgtest-dev libgmock-dev libbenchmark-dev
          nlohmann-json3-dev python3-matplotlib
          libibverbs-dev ibverbs-providers
          clang libclang-rt-dev)

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
