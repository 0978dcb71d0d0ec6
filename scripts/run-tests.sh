#!/usr/bin/env bash
# The whole suite: static checks, then pytest (real-component tests included; markers select, never skip).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
status=0
echo "== ruff"; $BIN/ruff check compiler tests bench scripts || status=1
echo "== ruff format"; $BIN/ruff format --check compiler tests bench scripts notebooks || status=1
echo "== mypy"; $BIN/mypy || status=1
echo "== data snapshot"; $BIN/python -m flashtune.snapshot || status=1  # tests check it matches data/
echo "== pytest"
$BIN/pytest "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here"; rc=1
fi
[ $rc -ne 0 ] && status=$rc
exit $status
