#!/usr/bin/env bash
# Installs this build of Latchwork into a temporary prefix, builds an example
# project outside the tree against it with find_package, and runs it.
# usage: consumer_test.sh <build-dir> <source-dir> <extra CXX flags> [example]
#   example: a folder of examples/ whose executable has the folder's name
#   (default consumer). check_my_structure is docs/checking.md's example: it
#   exits 0 only when the public check driver catches its unfenced release,
#   explains it by read_overtaken, finds the fenced twin clean, and (exhaustive
#   exploration, 2 workers x 1 operation) violates the one and proves the other.
set -euo pipefail
build=$1 src=$2 flags=${3:-} example=${4:-consumer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# Every installed header stands alone against the install: none reaches a
# private (src/) header. One translation unit includes them all.
if [ "$example" = consumer ]; then
  (cd "$work/prefix/include" && find latchwork -name '*.h' | sort | sed 's/.*/#include <&>/') > "$work/all_headers.cpp"
  [ -s "$work/all_headers.cpp" ] || { echo "no headers installed" >&2; exit 1; }
  c++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I"$work/prefix/include" "$work/all_headers.cpp" 2>"$work/headers.log" ||
    { grep -v "pragma message\|^In file included\|note: #pragma" "$work/headers.log" >&2; exit 1; }
fi
cmake -S "$src/examples/$example" -B "$work/$example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/$example" >/dev/null
"$work/$example/$example"
