#!/usr/bin/env bash
# `make offline-images`: base images for a machine that has a Docker engine but no Docker Hub.
#
# The Dockerfiles of bankbench take their base images as build arguments whose defaults are the
# public images (golang, eclipse-temurin, debian). Here those are assembled from reachable
# sources instead, under plain local names (bankbench-local/...), never under the public ones:
#   bankbench-local/debian:bookworm   debootstrap of Debian 12 (PostgreSQL 15, the Go runtime)
#   bankbench-local/debian:trixie     debootstrap of Debian 13 (OpenJDK 25)
#   bankbench-local/golang:<go.mod>   the Go toolchain of bank-go/go.mod from the Go module proxy
#   bankbench-local/openjdk:25-jdk    Debian's OpenJDK 25 (build stage of the Java service)
#   bankbench-local/openjdk:25-jre    the same as a JRE (runtime of the Java service and JMeter)
# and writes their names to .run/images.env, which `make bench ENV=compose` and the tests pass
# to `docker compose build` (by hand: docker compose --env-file .run/images.env build).
# An image already in the engine is kept; delete it (docker rmi) to rebuild. Needs root
# (debootstrap) and Debian's debootstrap package.
# --if-built: only write .run/images.env, and only when every image is already in the engine
# (a new clone on a machine that built them: ENV=compose calls it so).
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=infra/docker/offline
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
out=.run/images.env
go_version=$(sed -n 's/^toolchain go//p' bank-go/go.mod)

have() { docker image inspect "$1" >/dev/null 2>&1; }
if [ "${1:-}" = --if-built ]; then
  have() { docker image inspect "$1" >/dev/null 2>&1 || exit 0; }
fi

debian() { # suite
  local image=bankbench-local/debian:$1 root
  have "$image" && { echo "offline-images: $image (kept)"; return; }
  command -v debootstrap >/dev/null || { echo "offline-images: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
  echo "offline-images: debootstrap $1 from $mirror"
  root=$(mktemp -d)
  debootstrap --variant=minbase "$1" "$root" "$mirror" >"$root.log" 2>&1 \
    || { tail -n 20 "$root.log" >&2; exit 1; }
  # The point releases' fixes too, as the public images have them.
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb http://deb.debian.org/debian-security %s-security main\n' \
    "$mirror" "$1" "$mirror" "$1" "$1" >"$root/etc/apt/sources.list"
  # The authorities this machine added (e.g. of a TLS-inspecting proxy): the images' own
  # ca-certificates, once installed, trust them too, so the builds reach what the host reaches.
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$image" >/dev/null
  rm -rf "$root" "$root.log"
  echo "offline-images: $image (built)"
}

derived() { # image dockerfile build-arg...
  local image=$1 dockerfile=$2
  shift 2
  have "$image" && { echo "offline-images: $image (kept)"; return; }
  docker build -q --force-rm -t "$image" -f "$here/$dockerfile" "${@/#/--build-arg=}" "$here" >/dev/null
  echo "offline-images: $image (built)"
}

debian bookworm
debian trixie
derived "bankbench-local/golang:$go_version" golang.Dockerfile \
  DEBIAN_IMAGE=bankbench-local/debian:bookworm "GO_VERSION=$go_version" "GOPROXY=$(go env GOPROXY 2>/dev/null || echo https://proxy.golang.org)"
derived bankbench-local/openjdk:25-jdk openjdk.Dockerfile DEBIAN_IMAGE=bankbench-local/debian:trixie PACKAGE=openjdk-25-jdk-headless
derived bankbench-local/openjdk:25-jre openjdk.Dockerfile DEBIAN_IMAGE=bankbench-local/debian:trixie PACKAGE=openjdk-25-jre-headless

mkdir -p "$(dirname "$out")"
cat >"$out" <<VARS
# Written by infra/docker/offline/build.sh: the local base images of the Dockerfiles.
DEBIAN_IMAGE=bankbench-local/debian:bookworm
GO_IMAGE=bankbench-local/golang:$go_version
JDK_IMAGE=bankbench-local/openjdk:25-jdk
JRE_IMAGE=bankbench-local/openjdk:25-jre
VARS
echo "offline-images: base images named in $out"
