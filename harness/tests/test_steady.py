"""The warm-up rule shared by quick-bench and the warm start (bankbench.measure.steady)."""

from __future__ import annotations

import pytest

from bankbench.measure.steady import JIT_QUIET, ROUND_S, STEADY, Round, is_warm

QUIET_MS = JIT_QUIET * ROUND_S * 1000


@pytest.mark.parametrize("rounds,warm", [
    ([], False),
    ([Round(1000, 0)], False),  # one round has nothing to be steady against
    ([Round(1000, 0), Round(1000 * (1 + STEADY), QUIET_MS)], True),
    ([Round(1000, 0), Round(1000 * (1 + 2 * STEADY), 0)], False),  # still climbing
    ([Round(1000, 0), Round(800, 0)], True),  # a slower round: noise of a warm service, not a warm-up
    ([Round(1000, 9000), Round(800, 3000)], False),  # slower while the JIT is at work
    ([Round(1000, 0), Round(1000, QUIET_MS + 1)], False),  # steady, but the JIT is still at work
    ([Round(500, 9000), Round(1000, 3000), Round(1010, 100)], True),
])
def test_warm_when_no_longer_climbing_and_the_jit_is_quiet(rounds: list[Round], warm: bool) -> None:
    assert is_warm(rounds) is warm
