#!/usr/bin/env bash
# The health check of bankbench's PostgreSQL image: the server answers a query over TCP in the
# schema'd database (the entrypoint's set-up server listens on no TCP port).
exec env PGPASSWORD="${POSTGRES_PASSWORD:-}" psql -X -q -h 127.0.0.1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" \
  -c 'SELECT FROM client LIMIT 0' -o /dev/null
