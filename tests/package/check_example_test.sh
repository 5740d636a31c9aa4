#!/usr/bin/env bash
# docs/checking.md's example, built against the installed package as a user
# would: installs this build into a temporary prefix, builds
# examples/check_my_structure with find_package and runs it. It exits 0 only
# when the public driver catches the unfenced release, explains it by
# read_overtaken, and finds the fenced twin clean.
# usage: check_example_test.sh <build-dir> <source-dir> <extra CXX flags>
set -euo pipefail
build=$1 src=$2 flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples/check_my_structure" -B "$work/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/example" >/dev/null
"$work/example/check_my_structure"
