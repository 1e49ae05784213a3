"""Fixtures of the aws environment's tests: fake credentials, so boto3 never reaches a real account, and
levels of a profile."""

import pytest

from bankbench.load import profiles


@pytest.fixture(autouse=True)
def fake_aws(monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)


def make_level(users: int = 1000, model: str = "sustained") -> profiles.Level:
    """A level of a 30 s ramp-up, 30 s warm-up and 60 s measured; `users` a second under the open model."""
    profile = profiles.Profile(name=model, description="", model=model, services=["go"], users=[users], pools=[95],
                               repeat=1, scenario="rematch", hot_accounts=10, think_ms=0, rampup_s=30, warmup_s=30,
                               duration_s=60, placements=[])
    return profiles.levels(profile)[0]


@pytest.fixture
def level():
    return make_level
