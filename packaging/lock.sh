#!/usr/bin/env bash
# Refresh packaging/constraints.txt: the exact versions `make run` and `make test` install.
# Resolves pyproject.toml's ranges afresh in a throwaway virtual environment and freezes the
# result. Run `make lock`, then `make test` (a fresh .venv picks the new pins), and commit the
# file only if the suite passes: the lock is the set of versions the tests passed with.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
OUT=packaging/constraints.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PYTHON" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
# Every extra a developer installs (not `ray`: optional, large, and not used by the tests).
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check '.[test,package]'
{
  echo "# Exact versions the test suite passed with; used by packaging/setup-env.sh (make run,"
  echo "# make test). Refresh with \`make lock\`, then run \`make test\` before committing it."
  echo "# Generated $(date -u +%Y-%m-%d) with $("$tmp/venv/bin/python" --version) on $(uname -m)."
  "$tmp/venv/bin/python" -m pip freeze --all --exclude-editable \
    | grep -v -i -E '^(throughline|pip|setuptools|wheel)[=@ ]'
} > "$OUT"
echo "lock: wrote $OUT ($(grep -c '==' "$OUT") pins)"
