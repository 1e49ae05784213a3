#!/usr/bin/env bash
# Creates .venv with the pinned Python packages of harness/requirements.txt (uv makes it take seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "python3 (3.11+) is required" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv || { echo "python3 -m venv failed: install python3-venv" >&2; exit 1; }
fi
.venv/bin/python -m pip install -q --disable-pip-version-check uv==0.13.9
.venv/bin/uv pip install -q --python .venv/bin/python -r harness/requirements.txt
.venv/bin/uv pip install -q --python .venv/bin/python -e harness
touch .venv/.installed
