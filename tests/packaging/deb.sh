#!/usr/bin/env bash
# Builds the Debian package from the build tree BUILD (cpack -G DEB),
# unpacks it into a scratch root (dpkg -x), checks what it holds, and runs
# the unpacked llmconform: --version, then a bundled scenario with no --specs
# from a folder without specs/, so the installed share/llmconform/specs is used.
#
#   deb.sh BUILD VERSION
set -euo pipefail
build=$1 version=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/llmconform-deb-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Uncompressed: what is checked is what the package holds; compressing the
# sanitizer build's 1.4 GB was a third of this test's time.
(cd "$build" && cpack -G DEB -B "$scratch/pkg" -D CPACK_DEBIAN_COMPRESSION_TYPE=none \
  >"$scratch/cpack.log" 2>&1) || {
  cat "$scratch/cpack.log" >&2
  exit 1
}
deb=$(ls "$scratch"/pkg/llmconform_*.deb)
dpkg-deb --field "$deb" Package Version Depends
test "$(dpkg-deb --field "$deb" Package)" = llmconform
test "$(dpkg-deb --field "$deb" Version)" = "$version"

root=$scratch/root
dpkg -x "$deb" "$root"
for f in usr/bin/llmconform usr/bin/mockllm \
         usr/include/llmconform/mockllm/server.h usr/include/llmconform/protocols/wire/sse.h \
         usr/lib/cmake/llmconform/llmconformConfig.cmake usr/lib/cmake/llmconform/llmconformTargets.cmake \
         usr/share/llmconform/specs/multiturn/rules.json usr/share/llmconform/fixtures \
         usr/share/doc/llmconform/README.md; do
  test -e "$root/$f" || { echo "the package lacks $f" >&2; exit 1; }
done

"$root/usr/bin/llmconform" --version | grep -qx "llmconform $version"
"$root/usr/bin/mockllm" --version | grep -q "^mockllm $version"
mkdir "$scratch/work"
cd "$scratch/work"
NO_COLOR=1 "$root/usr/bin/llmconform" run --filter multiturn/s1-standard-assembly --out out --report console --report json
grep -q '"name": "s1-standard-assembly"' out/report.json
echo "deb: $(basename "$deb") unpacked and ran a bundled scenario"
