"""Which repeats of a level count, from its money check and its load generator's verdict.

A repeat's figures count (COUNTS) where its money check passed and its load generator held up;
otherwise they do not: its money check failed (FAILED), its load generator did not hold up
(INVALID), or did not hold up as the limit of a closed loop (BOUND, `generator_bound`).

See docs/method.md#how-to-read-the-figures."""

from collections.abc import Sequence

import pandas as pd

from bankbench.results.summaries import VALID

COUNTS, FAILED, INVALID, BOUND = "", "FAILED", "INVALID", "BOUND"
CLOSED_LOOP = "sustained"  # the load model without a planned rate (bankbench.load.profiles.LOAD_MODELS)


def usable(frame: pd.DataFrame) -> pd.Series:
    """The rows whose figures count: the money check passed and the load generator held up."""
    return frame["money_ok"].astype(bool) & frame[VALID].astype(bool)


def generator_bound(frame: pd.DataFrame) -> pd.Series:
    """Rows whose throughput is a floor of the service's: money ok, the generator short, in the
    sustained model's closed loop (a user's next request waits for its last: a service that kept up
    serves at least that). Under a planned rate slow services cause a shortfall as often."""
    return frame["money_ok"].astype(bool) & ~frame[VALID].astype(bool) & frame["model"].eq(CLOSED_LOOP)


def floor(verdicts: Sequence[tuple[int, str]], values: Sequence[float]) -> float:
    """The lowest of a group's `values` (in `verdicts`' order, as repeats.aggregate_repeats gives
    them) whose repeat is BOUND: the service served at least that; NaN for none."""
    bound = [value for (_, mark), value in zip(verdicts, values, strict=True) if mark == BOUND and not pd.isna(value)]
    return min(bound, default=float("nan"))


def verdicts(frame: pd.DataFrame) -> pd.Series:
    """Per row: COUNTS (`usable`), FAILED (money check), BOUND (`generator_bound`) or INVALID."""
    standing = pd.Series(INVALID, index=frame.index, dtype=object)
    standing[usable(frame)] = COUNTS
    standing[~frame["money_ok"].astype(bool)] = FAILED
    standing[generator_bound(frame)] = BOUND
    return standing
