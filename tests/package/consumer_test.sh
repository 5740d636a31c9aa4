#!/usr/bin/env bash
# Installs this build of Latchwork into a temporary prefix, builds the example
# consumer project against it with find_package, and runs it.
# usage: consumer_test.sh <build-dir> <source-dir> <extra CXX flags>
set -euo pipefail
build=$1 src=$2 flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
