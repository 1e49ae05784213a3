"""The settings, from the environment: the names and defaults of bank-go/config.go and
bank-java's application.yaml (docs/configuration.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class Config:
    port: int
    host: str
    db_port: int
    user: str
    password: str
    database: str
    pool_size: int  # minimum = maximum: a fixed-size pool
    acquire_timeout_s: float
    max_concurrent: int  # the admission limit (bankpy.web.Server.admit)


def load(env: Mapping[str, str]) -> Config:
    """The settings of `env`; an empty value means unset. Invalid values raise ValueError naming
    every one: better not start than run a benchmark with settings nobody chose."""
    errors: list[str] = []

    def text(name: str, default: str) -> str:
        return env.get(name) or default

    def number(name: str, default: int, lo: int, hi: int) -> int:
        value = env.get(name) or ""
        if not value:
            return default
        if value.isascii() and value.isdigit() and lo <= int(value) <= hi:
            return int(value)
        errors.append(f"{name}={value!r}: want an integer from {lo} to {hi}")
        return default

    cfg = Config(
        port=number("PORT", 8080, 1, 65535),
        host=text("POSTGRES_HOST", "localhost"),
        db_port=number("POSTGRES_PORT", 5432, 1, 65535),
        user=text("POSTGRES_USER", "postgres"),
        password=text("POSTGRES_PASSWORD", "postgres"),
        database=text("POSTGRES_NAME", "bank"),
        pool_size=number("POSTGRES_CONNECTIONS_SIZE", 95, 1, INT_MAX),
        acquire_timeout_s=number("POSTGRES_ACQUIRE_TIMEOUT_MS", 3000, 1, INT_MAX) / 1000,
        max_concurrent=number("MAX_CONCURRENT_REQUESTS", 1000, 1, INT_MAX),
    )
    if errors:
        raise ValueError("; ".join(errors))
    return cfg
