"""The settings every service reads, with the defaults the harness passes to all it starts.

The configuration every service reads (bank-go/config.go, bank-java's application.yaml) and
PostgreSQL's max_connections: the names and defaults the harness passes, explicitly, to all it
starts (and records in the manifest); contract/test_defaults.py checks the services' own match.

See docs/configuration.md#configuration-same-names-in-every-service."""

import os
import re

from bankbench import paths
from bankbench.errors import UserError

POOL_SIZE = "POSTGRES_CONNECTIONS_SIZE"
ACQUIRE_TIMEOUT_MS = "POSTGRES_ACQUIRE_TIMEOUT_MS"
MAX_CONCURRENT_REQUESTS = "MAX_CONCURRENT_REQUESTS"
# Never taken from the harness's own environment as it is: settings_env passes each, or a caller.
NOT_INHERITED = (POOL_SIZE, ACQUIRE_TIMEOUT_MS, MAX_CONCURRENT_REQUESTS)
PORT = "PORT"

DEFAULT_POOL_SIZE = 95  # leaves 5 of max_connections() for the harness and psql
DEFAULT_ACQUIRE_TIMEOUT_MS = 3000
# The admission limit (requests held at once; past it, 503): docs/configuration.md, "Why 1,000".
DEFAULT_MAX_CONCURRENT_REQUESTS = 1000
DEFAULT_PORT = 8080  # what a container listens on: docker compose and Terraform leave PORT unset


def acquire_timeout_ms() -> int:
    return _positive(ACQUIRE_TIMEOUT_MS, DEFAULT_ACQUIRE_TIMEOUT_MS, "milliseconds")


def max_concurrent_requests() -> int:
    return _positive(MAX_CONCURRENT_REQUESTS, DEFAULT_MAX_CONCURRENT_REQUESTS, "requests")


def settings_env(pool: int) -> dict[str, str]:
    """What the harness passes a service it starts with a pool of `pool` connections."""
    return {POOL_SIZE: str(pool), ACQUIRE_TIMEOUT_MS: str(acquire_timeout_ms()),
            MAX_CONCURRENT_REQUESTS: str(max_concurrent_requests())}


def _positive(name: str, default: int, unit: str) -> int:
    value = os.environ.get(name, str(default))
    if not value.isdigit() or int(value) < 1:
        raise UserError(f"{name}={value!r}: want {unit}, a whole number above 0")
    return int(value)


def max_connections() -> int:
    """db/postgresql.conf's, the one place it is set (the compose and AWS image bake it in)."""
    found = re.search(r"^max_connections\s*=\s*(\d+)", paths.PG_SETTINGS.read_text(), re.MULTILINE)
    if not found:
        raise UserError(f"{paths.PG_SETTINGS} sets no max_connections")
    return int(found.group(1))
