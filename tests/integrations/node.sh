#!/usr/bin/env bash
# ctest: the Node helper (integrations/node) with its own vitest tests, then the
# user project tests/integrations/node (the openai SDK and the Vercel AI SDK
# through useMockllm), against the built mockllm. node_modules come from
# scripts/install-deps.
#   tests/integrations/node.sh MOCKLLM_BINARY SOURCE_ROOT [helper|project]
set -euo pipefail
mockllm=$1 root=$2 what=${3:-helper}
case "$what" in
  helper) dir=$root/integrations/node ;;
  project) dir=$root/tests/integrations/node ;;
  *) echo "node.sh: helper or project, not '$what'" >&2; exit 2 ;;
esac
if [ ! -x "$dir/node_modules/.bin/vitest" ]; then
  echo "node.sh: $dir/node_modules has no vitest: run scripts/install-deps" >&2
  exit 1
fi
cd "$dir"
MOCKLLM_BIN=$mockllm CI=1 exec node_modules/.bin/vitest run
