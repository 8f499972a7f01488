#!/usr/bin/env bash
# ctest: the pytest plugin (integrations/python) installed as a user installs
# it, then its own tests and the user project tests/integrations/python, all
# against the built mockllm. Debian's pytest and httpx serve /usr/bin/python3
# (which need not be the first python3 on PATH), so that one runs them.
#   tests/integrations/python.sh MOCKLLM_BINARY SOURCE_ROOT SCRATCH_DIR [plugin|project]
set -euo pipefail
mockllm=$1 root=$2 scratch=$3 what=${4:-plugin}
py=/usr/bin/python3
rm -rf "$scratch" && mkdir -p "$scratch"
# pip builds in the source tree: install from a copy. --no-index: nothing is
# downloaded (pytest comes from Debian, setuptools from python3-setuptools).
cp -r "$root/integrations/python" "$scratch/src"
"$py" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --no-build-isolation --no-index \
  --target "$scratch/site" "$scratch/src" >&2
export PYTHONPATH="$scratch/site" MOCKLLM_BIN="$mockllm" PYTHONDONTWRITEBYTECODE=1
"$py" -c 'import importlib.metadata as m; eps = m.entry_points(group="pytest11"); assert any(e.value == "pytest_mockllm.plugin" for e in eps), eps'
case "$what" in
  plugin) cd "$root/integrations/python" && exec "$py" -m pytest -p no:cacheprovider -q tests ;;
  project) cd "$root/tests/integrations/python" && exec "$py" -m pytest -p no:cacheprovider -q ;;
  *) echo "python.sh: plugin or project, not '$what'" >&2; exit 2 ;;
esac
