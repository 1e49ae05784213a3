"""Whether an open-model level got the load it offered: the validity gate (HttpArena's).

An open-model level offers `rate` iterations per second for `arrivals_s` seconds (level.json's
`jmeter_properties`). JMeter's schedule puts exactly rate x arrivals_s arrivals in that time, at
Poisson-spaced moments, and runs each on a thread of its own whose name no other arrival has
(`threadName` of jmeter.csv.gz, "open arrivals 2-1234"). So an iteration is a thread name and
starts with its first sample (a slow service delays an iteration's later requests, not its
first), and the achieved rate is the iterations that started within the schedule, from the
first arrival to arrivals_s + GRACE_S later, over arrivals_s: 100 % when the generator kept to
its schedule. The whole schedule is counted, not the measured window alone: a part of it holds
a random number of Poisson arrivals, which would miss 99 % by chance.

A level that achieved less than MIN_PCT % of the offered rate is invalid: the generator (short
of CPU, say) did not put that load on the service, or put it late, so its figures do not belong
to that rate. Other models offer no rate: no figure, no gate.
"""

from __future__ import annotations

import pandas as pd

MIN_PCT = 99.0  # achieved / offered, in %, below which a level is invalid
GRACE_S = 1  # an arrival due at the end of the schedule may start its first request a little later
ACHIEVED = "delivery.achieved_pct"  # summary.csv's figure of the gate
FIGURES = ("overall.", "resources.", "efficiency.", "service_metrics.", "seconds_ci.")  # what valid_only blanks


def delivery(samples: pd.DataFrame, level: dict) -> dict | None:
    """`offered_per_s`, `achieved_per_s` (iterations), `achieved_pct` and `valid` of an
    open-model level from its JMeter samples and level.json; None for another model."""
    properties = level["jmeter_properties"]
    if level["model"] != "open" or not properties.get("rate"):
        return None
    offered, seconds = float(properties["rate"]), properties["arrivals_s"]
    firsts = samples.groupby("threadName", observed=True)["timeStamp"].min()
    started = int((firsts < firsts.min() + 1000 * (seconds + GRACE_S)).sum()) if len(firsts) else 0
    achieved = started / seconds
    pct = 100 * achieved / offered
    return {"offered_per_s": offered, "achieved_per_s": round(achieved, 3), "achieved_pct": round(pct, 2),
            "valid": pct >= MIN_PCT}


def is_valid(summary: dict) -> bool:
    """Whether a level's summary.json passed the gate (a level without the figure did)."""
    return bool(summary.get("delivery", {}).get("valid", True))


def valid_rows(frame: pd.DataFrame) -> pd.Series:
    """Which rows of summary.csv passed the gate (those without the figure did)."""
    if "delivery.valid" not in frame:
        return pd.Series(True, index=frame.index)
    flags = {True: True, False: False, "True": True, "False": False}  # as pandas reads them back
    return frame["delivery.valid"].map(flags).fillna(True).astype(bool)


def valid_only(frame: pd.DataFrame) -> pd.DataFrame:
    """summary.csv with the figures of the rows that failed the gate blanked (NaN): aggregated
    over repeats, a level's figures are those of its valid repeats."""
    valid = valid_rows(frame)
    figures = [c for c in frame if c.startswith(FIGURES) and frame[c].dtype.kind in "if" and c != ACHIEVED]
    return frame.assign(**{column: frame[column].where(valid) for column in figures})
