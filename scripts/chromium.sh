#!/usr/bin/env bash
# Headless Chromium for `make screenshot` (bankbench.publish.first_screen): Debian's chromium and
# chromium-driver, installed when absent (as root). The driver comes from apt because Selenium
# would otherwise download one. fonts-liberation's Liberation Sans has Arial's metrics, the font
# github.com falls back to without Segoe UI or Helvetica: text wraps as on a reader's screen.
set -euo pipefail
PACKAGES=(chromium chromium-driver fonts-liberation)

missing() {
  local package
  for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null | grep -qx installed || echo "$package"
  done
}

mapfile -t absent < <(missing)
[ ${#absent[@]} -eq 0 ] && exit 0
echo "chromium: apt-get install ${absent[*]}"
if [ "$(id -u)" -eq 0 ] && apt-get update -q >/dev/null \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${absent[@]}" >/dev/null; then
  exit 0
fi
mapfile -t absent < <(missing)
echo "chromium: missing ${absent[*]}: install them as root with apt-get install ${absent[*]}" >&2
exit 1
