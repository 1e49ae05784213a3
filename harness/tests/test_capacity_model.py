"""The capacity model (bankbench.analyse.capacity_model) on simulated passes, seeded: probes of make
capacity's own search (bankbench.run.experiments.bisection.staircase with the capacity profile's
design: up its ladder to the first miss, then a staircase whose step halves at each reversal down
to its fixed step) of services whose P(hold | rate) is a logistic in log rate about their true
capacity, 10-90 % over 0.9-1.1 of it (NOTES: a transition about 20 % of capacity wide); the
figures in the comments are what these seeds gave."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import special, stats

from bankbench.analyse import capacity_model
from bankbench.analyse.capacity_model import ACROSS, AboveTried, Estimate, NoneHeld, Probe, Ratio
from bankbench.load import profiles
from bankbench.run.experiments import bisection, capacity_search

SLOPE = 2 * math.log(9) / math.log(1.1 / 0.9)  # per unit of log rate
DESIGN = capacity_search.Setup.of(profiles.load(capacity_search.PROFILE)).design  # what make capacity runs


def probes(rng: np.random.Generator, name: str, pass_id: str, capacity: float,
           count: int = DESIGN.probes) -> list[Probe]:
    """A contender's probes by the search's design (module doc)."""
    def holds(rate: int) -> bool:
        return bool(rng.random() < special.expit(SLOPE * math.log(capacity / rate)))

    found = bisection.alone(bisection.staircase(replace(DESIGN, probes=count)), holds, lambda: False)
    return [Probe(name, pass_id, rate, held) for rate, held in found.probes]


CAPACITIES = {"go": 600.0, "java": 450.0, "java-virtual": 420.0}


def stalled_passes(seed: int, passes: int) -> list[tuple[list[Probe], list[Probe]]]:
    """Passes of three contenders where go also stalled once at 30 % of its capacity; each with the
    same probes where that one held."""
    rng = np.random.default_rng(seed)
    found = []
    for i in range(passes):
        held = [p for name, capacity in CAPACITIES.items() for p in probes(rng, name, f"p{i}", capacity)]
        stall = Probe("go", f"p{i}", 0.3 * CAPACITIES["go"], False)
        found.append(([*held, stall], [*held, stall._replace(held=True)]))
    return found


def go_estimates(passes: list[tuple[list[Probe], list[Probe]]]) -> np.ndarray:
    """go's capacity with the stall and without it, per pass (NaN: a marker)."""
    def value(found: list[Probe]) -> float:
        point = capacity_model.fit_pass(found).point("go")
        return point if isinstance(point, float) else math.nan
    return np.array([[value(stalled), value(clean)] for stalled, clean in passes])


def test_one_stall_far_below_capacity_leaves_the_estimate_within_10_percent() -> None:
    """Issue 69: a service that stalls once at a low rate. The lapse explains the stall: it moves
    the estimate by less than 0.001 % in each of these 30 passes; the estimates stay within 10 % of
    the true capacity in all of them (the largest error 7.8 %)."""
    estimates = go_estimates(stalled_passes(69, 30))
    with_stall, without = estimates[:, 0], estimates[:, 1]
    moved = np.abs(with_stall / without - 1)
    assert np.median(moved) < 1e-3 and np.max(moved) < 0.03
    assert np.all(np.abs(with_stall / CAPACITIES["go"] - 1) < 0.10)


def test_without_the_lapse_one_stall_drags_the_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the model has its lapse: a pure logistic flattens its slope to explain the one miss
    far below, and the estimate moves by more than 10 % in most of the same passes (8 of 10)."""
    monkeypatch.setattr(capacity_model, "LAPSE", 1e-6)
    estimates = go_estimates(stalled_passes(69, 10))
    moved = np.abs(estimates[:, 0] / estimates[:, 1] - 1)
    assert np.mean(~(moved < 0.10)) > 0.5  # a marker (NaN) counts as moved


def test_an_a_a_pair_is_within_noise_in_95_percent_of_passes() -> None:
    """Issue 69: one service entered twice; over 200 passes of the search's probes, the 95 % interval of
    their ratio holds 1 in at least 93 % (this seed: 94.0 %; 95.5 % over 1,000 passes, where the
    capacity's own interval held the true one in 94.3 %), and the false-positive rate says as much."""
    rng = np.random.default_rng(69)
    controls = []
    for i in range(200):
        fit = capacity_model.fit_pass(probes(rng, "go", f"p{i}", 500.0) + probes(rng, "go-again", f"p{i}", 500.0))
        controls.append(capacity_model.control(fit, "go", "go-again"))
    judged = [c for c in controls if c.ratio is not None]
    assert len(judged) >= 195
    covered = np.mean([not c.failed for c in judged])
    assert covered >= 0.93
    rate = capacity_model.false_positives(controls)
    assert (rate.failed, rate.passes) == (sum(c.failed for c in judged), len(judged))
    assert rate.low <= 0.05 <= rate.high and rate.rate == pytest.approx(1 - covered)


def test_a_true_difference_is_told_apart() -> None:
    """The A/A test's other side: a 25 % difference, found in most passes (this seed: 15 of 20)."""
    rng = np.random.default_rng(7)
    ratios = [capacity_model.fit_pass(probes(rng, "go", str(i), 625.0) + probes(rng, "java", str(i), 500.0))
              .ratio("go", "java") for i in range(20)]
    assert sum(r.differs for r in ratios) >= 15
    assert np.median([r.value for r in ratios]) == pytest.approx(1.25, rel=0.05)


def test_a_contender_that_never_missed_has_a_lower_bound_and_one_that_never_held_an_upper_one() -> None:
    rng = np.random.default_rng(1)
    found = [*probes(rng, "go", "p", 500.0), *(Probe("fast", "p", rate, True) for rate in (100, 200, 400, 800)),
             *(Probe("stuck", "p", rate, False) for rate in (100, 150))]
    fit = capacity_model.fit_pass(found)
    assert fit.capacity("fast") == AboveTried(800)
    assert fit.capacity("stuck") == NoneHeld(100)
    assert isinstance(fit.capacity("go"), Estimate) and fit.ratio("go", "fast") is None
    assert set(fit.capacities) == {"go", "fast", "stuck"}


def test_a_fit_above_every_rate_tried_is_a_lower_bound() -> None:
    """Held everywhere but once, far below: the lapse explains the miss, and the capacity is
    above the rates tried, not a number the probes cannot bound."""
    rng = np.random.default_rng(3)
    found = [*probes(rng, "go", "p", 500.0),
             *(Probe("java", "p", rate, rate != 150) for rate in (100, 150, 200, 300, 400))]
    fit = capacity_model.fit_pass(found)
    assert fit.capacity("java") == AboveTried(400) and fit.ratio("go", "java") is None


def test_a_pass_with_nothing_to_fit_has_markers_alone() -> None:
    fit = capacity_model.fit_pass([Probe("go", "p", 100, True), Probe("java", "p", 100, False)])
    assert fit.model is None and fit.slope is None
    assert fit.capacities == {"go": AboveTried(100), "java": NoneHeld(100)}


def test_a_capacity_interval_holds_the_estimate_and_tightens_with_probes() -> None:
    rng = np.random.default_rng(5)
    few, many = (capacity_model.fit_pass(probes(rng, "go", "p", 500.0, count) + probes(rng, "java", "p", 400.0, count))
                 for count in (10, 40))
    for fit in (few, many):
        capacity = fit.capacity("go")
        assert capacity.low < capacity.value < capacity.high and capacity.method == capacity_model.WITHIN
    assert many.capacity("go").high / many.capacity("go").low < few.capacity("go").high / few.capacity("go").low


def test_passes_are_fitted_apart() -> None:
    rng = np.random.default_rng(11)
    found = [p for i, scale in enumerate((1.0, 1.3)) for name, capacity in (("go", 600.0), ("java", 450.0))
             for p in probes(rng, name, f"p{i}", capacity * scale)]
    fits = capacity_model.fit_passes(found)
    assert list(fits) == ["p0", "p1"]
    assert fits["p1"].capacity("go").value > fits["p0"].capacity("go").value
    with pytest.raises(ValueError, match="one pass"):
        capacity_model.fit_pass(found)


def test_over_passes_is_a_paired_t_interval_on_log_ratios() -> None:
    """Five passes of known within-pass ratios: the geometric mean and exp(mean +- t(0.975, 4) *
    sd / sqrt(5)) of their logs, by hand."""
    logs = np.log([1.30, 1.25, 1.40, 1.22, 1.35])
    half = stats.t.ppf(0.975, 4) * logs.std(ddof=1) / math.sqrt(5)
    ratio = capacity_model.over_passes(np.exp(logs))
    assert ratio == Ratio(pytest.approx(math.exp(logs.mean())), pytest.approx(math.exp(logs.mean() - half)),
                          pytest.approx(math.exp(logs.mean() + half)), ACROSS, 5)
    assert ratio.differs
    assert not capacity_model.over_passes([0.9, 1.2, 1.05]).differs  # on both sides of 1: within noise
    assert capacity_model.over_passes([1.3]) is None  # one pass: no interval


def test_across_passes_takes_each_passs_ratio() -> None:
    rng = np.random.default_rng(13)
    fits = list(capacity_model.fit_passes(
        p for i in range(3) for name, capacity in (("go", 625.0), ("java", 500.0))
        for p in probes(rng, name, f"p{i}", capacity)).values())
    ratio = capacity_model.across_passes(fits, "go", "java")
    within = [fit.ratio("go", "java").value for fit in fits]
    assert ratio.passes == 3 and ratio.value == pytest.approx(math.exp(np.mean(np.log(within))))
    assert ratio.low < ratio.value < ratio.high


def test_a_ratio_differs_only_where_its_interval_leaves_out_1() -> None:
    assert Ratio(1.3, 1.1, 1.5, ACROSS).differs and Ratio(0.7, 0.5, 0.9, ACROSS).differs
    assert not Ratio(1.3, 0.95, 1.5, ACROSS).differs and not Ratio(1.0, math.nan, math.nan, ACROSS).differs
