#!/usr/bin/env bash
# Creates .venv with the pinned Python packages of harness/requirements.txt (uv makes it take seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "python3 (3.11+) is required" >&2; exit 1; }
# A .venv whose pip does not run is half-made (python3-venv was missing, or its Python is gone):
# rebuild it, or every later run would fail at pip.
if [ -d .venv ] && ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  echo "rebuilding the half-made .venv" >&2
  rm -rf .venv
fi
if [ ! -d .venv ]; then
  python3 -m venv .venv || {
    rm -rf .venv
    echo "python3 -m venv failed: apt-get install python3-venv" >&2
    exit 1
  }
fi
.venv/bin/python -m pip install -q --disable-pip-version-check uv==0.13.9
.venv/bin/uv pip install -q --python .venv/bin/python -r harness/requirements.txt
.venv/bin/uv pip install -q --python .venv/bin/python -e harness
touch .venv/.installed
