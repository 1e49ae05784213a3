#!/usr/bin/env bash
# `make newcomer`: the README's walk, as a new user on a fresh machine would take it, in a clean
# minimal Debian 13 root: debootstrap (minbase), then exactly the install commands docs/setup.md and
# `make doctor` give for Debian 13 (`bankbench.machine.doctor --install debian13`), a clone of this
# repository's HEAD, and `make doctor` and `make bench PROFILE=smoke` there, as root. Any step
# that fails fails the walk. What the machine itself provides is carried in and nothing else: DNS,
# /etc/hosts, its CA certificates and the variables that point at them or at a proxy or registry,
# so that the registries answer inside as they do here. Needs root and debootstrap. The root is
# removed at the end (NEWCOMER_KEEP=1 keeps it and prints where).
set -euo pipefail
cd "$(dirname "$0")/.."
suite=trixie distro=debian13
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
say() { printf 'newcomer: [%4d s] %s\n' "$SECONDS" "$*"; }

[ "$(id -u)" -eq 0 ] || { echo "newcomer: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null \
  || { echo "newcomer: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
mkdir -p .run
log=$(pwd)/.run/newcomer.log
: >"$log"
root=$(mktemp -d /var/tmp/bankbench-newcomer.XXXXXX)
chmod 755 "$root" # it becomes /: every user must reach through it, as on a machine

cleanup() {
  local pid
  for pid in /proc/[0-9]*; do # whatever still runs in the root (a server left behind)
    [ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && kill -9 "${pid#/proc/}" 2>/dev/null
  done
  for mount in dev/shm dev/pts sys proc; do umount -l "$root/$mount" 2>/dev/null || true; done
  if [ "${NEWCOMER_KEEP:-}" = 1 ]; then
    echo "newcomer: root kept in $root"
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT

# Runs a command in the root as root, with a clean environment plus what the machine provides.
carried=()
while IFS='=' read -r name value; do
  carried+=("$name=$value")
done < <(env | grep -E '^([A-Za-z_]*(CERT|CA_BUNDLE|CAINFO|SSL_ROOTS)[A-Za-z_]*|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|GOPROXY|GOSUMDB|GONOSUMDB|GOPRIVATE|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|UV_INDEX_URL|UV_DEFAULT_INDEX)=' || true)
inside() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${carried[@]}" \
    bash -c "$1"
}
# A step's output goes to the log (and, with `show`, to the screen too: the make targets print
# their own progress); a failed step shows the log's tail and fails the walk.
steps=0
step() { # title command [show]
  say "$1"
  local out=/dev/null
  [ "${3:-}" = show ] && out=/dev/stdout
  if ! inside "$2" 2>&1 | tee -a "$log" >"$out"; then
    [ "${3:-}" = show ] || tail -n 40 "$log" >&2
    say "FAILED: $1 (log: $log)"
    exit 1
  fi
  steps=$((steps + 1))
}

say "debootstrap --variant=minbase $suite into $root"
debootstrap --variant=minbase "$suite" "$root" "$mirror" >>"$log" 2>&1 \
  || { tail -n 20 "$log" >&2; exit 1; }
printf 'deb %s %s main\ndeb %s %s-updates main\ndeb http://deb.debian.org/debian-security %s-security main\n' \
  "$mirror" "$suite" "$mirror" "$suite" "$suite" >"$root/etc/apt/sources.list"
# The machine: its name service and the authorities it added (picked up by ca-certificates once
# the walk installs it, and by the JDK's cacerts through ca-certificates-java).
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
# The user answers apt's question with yes; a script cannot.
echo 'APT::Get::Assume-Yes "true";' >"$root/etc/apt/apt.conf.d/90newcomer"
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"
mkdir -p "$root/dev/pts" "$root/dev/shm"
mount -t devpts -o newinstance devpts "$root/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" # PostgreSQL's dynamic shared memory

step "apt-get update" "apt-get update"
while read -r command; do
  step "docs/setup.md, Debian 13: $command" "$command"
done < <(PYTHONPATH=harness python3 -m bankbench.machine.doctor --install "$distro")

# The walk once failed on a machine without xz (the PostgreSQL package is a .txz): say whether
# this root has it.
say "xz in the root: $(inside 'command -v xz || echo none')"
commit=$(git rev-parse --short HEAD)
say "git clone of this repository at $commit"
git clone -q "$(pwd)" "$root/root/bankbench" >>"$log" 2>&1
step "make doctor" "cd /root/bankbench && make doctor" show
touch "$root/root/bench.started"
step "make bench PROFILE=smoke" "cd /root/bankbench && make bench PROFILE=smoke" show
run=$(find "$root/root/bankbench/results/runs" -maxdepth 1 -name '*-native-smoke' -newer "$root/root/bench.started")
[ -n "$run" ] || { say "FAILED: make bench wrote no new smoke run"; exit 1; }
say "passed: in a minimal Debian 13 root, make doctor and make bench PROFILE=smoke ($(basename "$run"))"
echo "newcomer: $steps passed, 0 failed"
