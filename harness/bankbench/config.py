"""The configuration every service reads (bank-go/config.go, bank-java's application.yaml): the
names the harness sets, and the services' defaults, which the harness records but never passes."""

POOL_SIZE = "POSTGRES_CONNECTIONS_SIZE"
ACQUIRE_TIMEOUT_MS = "POSTGRES_ACQUIRE_TIMEOUT_MS"
PORT = "PORT"

DEFAULT_POOL_SIZE = 95  # 100 connections of PostgreSQL's default, 5 left for the harness and psql
DEFAULT_ACQUIRE_TIMEOUT_MS = 3000
DEFAULT_PORT = 8080  # what a container listens on: docker compose and Terraform leave PORT unset
