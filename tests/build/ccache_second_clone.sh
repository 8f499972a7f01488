#!/usr/bin/env bash
# A second clone of the same sources, at another path, compiles from ccache
# through cmake/compiler-launcher, precompiled header included: a small CMake
# project with a precompiled header (as every target of ours has one) is
# copied to two folders and built in each with one scratch cache; every unit
# of the second build is a ccache hit, a unit of our unity build included
# (cmake/LlmconformHelpers.cmake), and the launcher's settings reach ccache
# (docs/building.md, "ccache across clones", "Unity build").
#   ccache_second_clone.sh SOURCE_ROOT CCACHE CXX
set -euo pipefail
root=$1 ccache=$2 cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export CCACHE_DIR=$work/cache

# What ccache sees through the launcher (its config, as set in the environment).
config=$("$root/cmake/compiler-launcher" "$work/one" "$ccache" --show-config)
for setting in "base_dir = $work/one" "hash_dir = false" "pch_external_checksum = true" \
  "sloppiness = include_file_ctime, include_file_mtime, pch_defines, time_macros"; do
  grep -qF "(environment) $setting" <<<"$config" || fail "ccache is not given '$setting':
$config"
done

mkdir -p "$work/src"
cat >"$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(second_clone CXX)
add_executable(app main.cpp util.cpp)
target_include_directories(app PRIVATE ${PROJECT_SOURCE_DIR})
target_precompile_headers(app PRIVATE <map> <string> <vector>)
target_compile_options(app PRIVATE -Xclang -fno-pch-timestamp)
# The same sources as one unit of our unity build.
include(${LLMCONFORM_ROOT}/cmake/LlmconformHelpers.cmake)
add_executable(batched main.cpp util.cpp)
_llmconform_apply(batched)
CMAKE
printf '#pragma once\n#include <string>\nstd::string Greeting();\n' >"$work/src/util.h"
printf '#include "util.h"\n#include <map>\nstd::string Greeting() { return std::map<int, std::string>{{1, "hi"}}[1]; }\n' \
  >"$work/src/util.cpp"
printf '#include "util.h"\nint main() { return Greeting() == "hi" ? 0 : 1; }\n' >"$work/src/main.cpp"

build() {  # build FOLDER: a copy of the project there, configured and built
  mkdir -p "$(dirname "$1")" && cp -a "$work/src" "$1"
  cmake -S "$1" -B "$1/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DLLMCONFORM_ROOT="$root" \
    "-DCMAKE_CXX_COMPILER_LAUNCHER=$root/cmake/compiler-launcher;$1;$ccache" >"$1.log" 2>&1 ||
    { cat "$1.log" >&2; fail "configure in $1"; }
  cmake --build "$1/build" >>"$1.log" 2>&1 || { cat "$1.log" >&2; fail "build in $1"; }
  "$1/build/app" || fail "the program built in $1 does not run"
  "$1/build/batched" || fail "the unity-built program in $1 does not run"
  # The unit names its sources from the project's root, never by the clone's path.
  [ "$(grep '^#include' "$1/build/unity/batched_0.cpp")" = $'#include "main.cpp"\n#include "util.cpp"' ] ||
    fail "the unity unit in $1: $(cat "$1/build/unity/batched_0.cpp")"
}
counter() {  # counter NAME: ccache's counter NAME
  "$ccache" --print-stats | awk -v k="$1" '$1 == k { print $2 }'
}
build "$work/one"
[ "$(counter direct_cache_hit)" = 0 ] || fail "a hit in the first build"
"$ccache" --zero-stats >/dev/null
build "$work/second/clone"
hits=$(counter direct_cache_hit) misses=$(counter cache_miss)
echo "second clone: $hits direct hits, $misses misses"
[ "$hits" = 3 ] && [ "$misses" = 0 ] || fail "the second clone's 3 units are not all ccache hits"
