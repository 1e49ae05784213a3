#!/usr/bin/env bash
# CI only (.ci/run with CI=true): a Docker engine for the Docker path of `make test`. Installs
# Debian's docker.io and debootstrap when absent, the compose v2 plugin when `docker compose`
# is missing, starts dockerd when none answers, and builds the local base images (this machine
# has no Docker Hub). A user's `make test` never installs system packages: it runs the Docker
# suites when an engine answers and says so when none does.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian 13's compose v2 (Debian 12 has only the old Python docker-compose 1.29): a static Go
# program that needs glibc 2.34, pinned by hash.
COMPOSE_DEB=pool/main/d/docker-compose/docker-compose_2.26.1-4_amd64.deb
COMPOSE_SHA256=47681197cb2b1ab88206b42a1a92fc75f50d9530a6322d03494a473eed0408ea
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
start=$SECONDS

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  echo "ci-docker: apt-get install docker.io debootstrap"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io debootstrap >/dev/null
fi

if ! docker compose version >/dev/null 2>&1; then
  echo "ci-docker: the compose plugin from $COMPOSE_DEB"
  deb=$(mktemp)
  curl -fsSL -o "$deb" "$MIRROR/$COMPOSE_DEB"
  echo "$COMPOSE_SHA256  $deb" | sha256sum -c --quiet -
  mkdir -p /usr/local/lib/docker/cli-plugins
  dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/libexec/docker/cli-plugins/docker-compose \
    >/usr/local/lib/docker/cli-plugins/docker-compose
  chmod +x /usr/local/lib/docker/cli-plugins/docker-compose
  rm -f "$deb"
fi

if ! docker info >/dev/null 2>&1; then
  echo "ci-docker: starting dockerd (log: .run/dockerd.log)"
  mkdir -p .run
  nohup dockerd >.run/dockerd.log 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 .run/dockerd.log; exit 1; }
fi
echo "ci-docker: $(docker version --format 'engine {{.Server.Version}}, client {{.Client.Version}}'), $(docker compose version)"

bash infra/docker/offline/build.sh
echo "ci-docker: ready in $((SECONDS - start)) s"
