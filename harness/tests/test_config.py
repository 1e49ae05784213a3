"""The settings the harness passes every service and server (bankbench.config); that the
services' own defaults are the same is contract/test_defaults.py's."""

from __future__ import annotations

import pytest

from bankbench import config
from bankbench.errors import UserError


def test_the_acquire_timeout_is_the_callers_else_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(config.ACQUIRE_TIMEOUT_MS, raising=False)
    monkeypatch.delenv(config.MAX_CONCURRENT_REQUESTS, raising=False)
    assert config.settings_env(7) == {config.POOL_SIZE: "7", config.ACQUIRE_TIMEOUT_MS: "3000",
                                      config.MAX_CONCURRENT_REQUESTS: "1000"}
    monkeypatch.setenv(config.ACQUIRE_TIMEOUT_MS, "1500")
    assert config.settings_env(7)[config.ACQUIRE_TIMEOUT_MS] == "1500"
    for wrong in ("0", "3s", "-1", ""):
        monkeypatch.setenv(config.ACQUIRE_TIMEOUT_MS, wrong)
        with pytest.raises(UserError, match="whole number"):
            config.acquire_timeout_ms()


def test_max_connections_is_read_from_the_servers_settings(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "postgresql.conf"
    conf.write_text("shared_buffers = 512MB\nmax_connections = 42   # a comment\n")
    monkeypatch.setattr(config.paths, "PG_SETTINGS", conf)
    assert config.max_connections() == 42
    conf.write_text("#max_connections = 42\n")
    with pytest.raises(UserError, match="sets no max_connections"):
        config.max_connections()


def test_the_default_pool_leaves_room_for_the_harness() -> None:
    assert config.max_connections() - config.DEFAULT_POOL_SIZE >= 5


def test_the_admission_limit_is_the_callers_else_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(config.MAX_CONCURRENT_REQUESTS, "50")
    assert config.settings_env(7)[config.MAX_CONCURRENT_REQUESTS] == "50"
    monkeypatch.setenv(config.MAX_CONCURRENT_REQUESTS, "none")
    with pytest.raises(UserError, match="MAX_CONCURRENT_REQUESTS='none': want requests"):
        config.max_concurrent_requests()
