"""Waiting for a started service: its GET /health answering 200."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from bankbench.errors import UserError


def wait_healthy(url: str, timeout: float = 90, check: Callable[[], None] = lambda: None) -> None:
    """Polls GET /health until 200; `check` raises if waiting is pointless (process gone)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        check()
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise UserError(f"{url} not healthy after {timeout:.0f} s")
