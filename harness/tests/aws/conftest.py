"""Fixtures of the aws environment's tests: fake credentials, so boto3 never reaches a real account, and
levels as `bankbench plan --json` prints them."""

import pytest


@pytest.fixture(autouse=True)
def fake_aws(monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)


def make_level(users: int = 1000, rate: int = 0, scenario: str = "rematch") -> dict:
    """A level as `bankbench plan --json` prints it."""
    return {"id": "go-u1000-p95-r1", "service": "go", "users": 1000, "pool": 95, "repeat": 1,
            "profile": "sustained", "model": "sustained", "scenario": scenario, "warmup_s": 30,
            "rampup_s": 30, "duration_s": 60, "measure_offset_s": 60, "expected_s": 120,
            "load_properties": {"think_ms": 0, "scenario": scenario, "hot_accounts": 10,
                                  "users": users, "rampup": 30, "duration": 120, "loops": -1,
                                  "rate": rate, "arrivals_s": 0, "drain_s": 0}}


@pytest.fixture
def level():
    return make_level
