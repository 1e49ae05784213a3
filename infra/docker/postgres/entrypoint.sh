#!/usr/bin/env bash
# Entrypoint of bankbench's PostgreSQL image (Dockerfile beside it).
#
#   postgres [ARG...]   the server, as POSTGRES_USER with POSTGRES_PASSWORD, database POSTGRES_DB
#                       holding db/schema.sql; ARGs are the server's (e.g. -c max_connections=200)
#   anything else       run as is (the admin task's psql)
set -euo pipefail
[ "${1:-}" = postgres ] || exec "$@"
shift

if [ "$(id -u)" = 0 ]; then # the data directory may be a fresh host mount (AWS: the NVMe disk)
  install -d -m 700 -o postgres -g postgres "$PGDATA"
  exec runuser -u postgres -- "$0" postgres "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf" # initdb admits loopback only
  # The schema is loaded on a server without TCP: nothing outside sees it before it is whole.
  pg_ctl -D "$PGDATA" -w -s -o "-c listen_addresses=''" start
  psql -X -q -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""
  psql -X -q -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -f /bankbench/schema.sql
  pg_ctl -D "$PGDATA" -w -s -m fast stop
  echo "bankbench-postgres: initialised $PGDATA with db/schema.sql"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
