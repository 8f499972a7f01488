#!/usr/bin/env bash
# Installs the build tree BUILD into a scratch prefix, then configures, builds
# and tests examples/cmake-consumer against it with find_package(llmconform
# CONFIG REQUIRED): its GoogleTest program (in-process mockllm, a bundled
# scenario) and the tests llmconform_add_conformance_tests registered.
#
#   consumer.sh SOURCE_ROOT BUILD
set -euo pipefail
src=$1 build=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/llmconform-consumer-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log"
test -f "$scratch/prefix/lib/cmake/llmconform/llmconformConfig.cmake"
test -f "$scratch/prefix/lib/cmake/llmconform/llmconformConfigVersion.cmake"
test -f "$scratch/prefix/include/llmconform/mockllm/server.h"
test -d "$scratch/prefix/share/llmconform/specs"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# The installed libraries carry the sanitizer calls of the compiler that built
# them (clang 19 for the asan preset): the consumer builds with that compiler.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$src/examples/cmake-consumer" -B "$scratch/consumer" "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_PREFIX_PATH="$scratch/prefix"
cmake --build "$scratch/consumer" -j 2
# The conformance tests: one per multiturn scenario.
listed=$(ctest --test-dir "$scratch/consumer" -N -L bundled | grep -c 'bundled\.multiturn/' || true)
expected=$(ls "$src"/specs/multiturn/*.json | grep -vc '/rules.json$')
if [ "$listed" -ne "$expected" ]; then
  echo "llmconform_add_conformance_tests registered $listed tests, expected $expected" >&2
  exit 1
fi
ctest --test-dir "$scratch/consumer" --output-on-failure -j 2
echo "consumer: built against $scratch/prefix and passed ($listed conformance tests)"
