#!/usr/bin/env bash
# Usage: scripts/venv.sh DIR REQUIREMENTS (both relative to infra/)
# Creates (once) a virtual environment in DIR with the pinned packages of REQUIREMENTS; relative
# paths inside REQUIREMENTS are relative to infra/. uv makes a cold install take seconds, and a
# stamp named after the checksum of the requirements, and of the files they include with -r,
# skips the work when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1 requirements=$2
mapfile -t included < <(sed -n 's/^-r[[:space:]]*//p' "$requirements")
stamp="$dir/.installed-$(cat "$requirements" "${included[@]}" | cksum | cut -d' ' -f1)"
[ -e "$stamp" ] && exit 0
command -v python3 >/dev/null || { echo "python3 (3.11+) is required" >&2; exit 1; }
rm -rf "$dir"
python3 -m venv "$dir"
"$dir/bin/python" -m pip install -q --disable-pip-version-check uv==0.13.9
"$dir/bin/uv" pip install -q --python "$dir/bin/python" -r "$requirements"
touch "$stamp"
