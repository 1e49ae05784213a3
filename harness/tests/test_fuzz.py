"""The schemathesis suite's own arithmetic: reading its summary, choosing the seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bankbench.checks import fuzz
from bankbench.errors import UserError

PASSED = """Test cases:
  1542 generated, 1542 passed

Seed: 14
"""
FAILED = """Test cases:
  684 generated, 4 found 4 unique failures, 4 skipped
"""


def test_summary_read() -> None:
    ok = fuzz.parse("go", PASSED, 0, Path("log"))
    assert (ok.generated, ok.failures, ok.ok) == (1542, 0, True)
    failed = fuzz.parse("java", FAILED, 1, Path("log"))
    assert (failed.generated, failed.failures, failed.ok) == (684, 4, False)


def test_no_summary_is_a_failure() -> None:
    """A run that broke before testing (schema error, service down) never counts as passed."""
    assert not fuzz.parse("go", "Error: No such option", 0, Path("log")).ok


def test_seed() -> None:
    assert fuzz.seed(None) == fuzz.DEFAULT_SEED == fuzz.seed("")
    assert fuzz.seed("7") == 7
    assert 0 <= fuzz.seed("random") < 2**32
    with pytest.raises(UserError):
        fuzz.seed("seven")
