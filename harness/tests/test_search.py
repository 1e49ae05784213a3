"""The searches of `make capacity` (bankbench.run.experiments.bisection) on fake services: a
threshold they hold up to, noise that fails a confirmation, a budget that runs out; and the heap
probe that runs again when only the load generator fell short
(bankbench.run.experiments.capacity_search.held_heap); the heaps `make capacity` sweeps."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from bankbench.commands import capacity
from bankbench.errors import UserError
from bankbench.results import runs
from bankbench.run.experiments import bisection, capacity_search

LADDER = (25, 50, 100, 200, 400, 800, 1600)


def up_to(limit: int) -> Callable[[int], bool]:
    return lambda value: value <= limit


def never_over() -> bool:
    return False


def highest_rate(passes: Callable[[int], bool], ladder: tuple[int, ...], precision: float, repeats: int,
                 over: Callable[[], bool]) -> bisection.Found:
    return bisection.alone(bisection.rate_search(ladder, precision, repeats), passes, over)


def test_the_rate_search_climbs_bisects_and_confirms() -> None:
    found = highest_rate(up_to(530), LADDER, 0.1, 3, never_over)
    assert found.complete
    assert 530 - 0.1 * 530 <= found.good <= 530 < found.bad <= found.good * 1.1
    assert [rate for rate, _ in found.probes[:6]] == [25, 50, 100, 200, 400, 800]  # up to the first miss
    assert found.probes[-3:] == [(found.good, True)] * 3 and found.confirmations() == 4  # its probe, 3 more
    assert len(found.probes) <= 6 + 3 + 3  # 400..800 bisected to 10 % in 3 probes


def test_a_failed_confirmation_moves_the_search_below_it() -> None:
    """The service holds 530 once, then only up to 480: 530 is not its capacity."""
    seen: dict[int, int] = {}

    def flaky(rate: int) -> bool:
        seen[rate] = seen.get(rate, 0) + 1
        return rate <= 480 or (rate <= 530 and seen[rate] == 1)

    found = highest_rate(flaky, LADDER, 0.1, 3, never_over)
    assert found.good is not None and found.good <= 480 < found.bad
    assert found.probes[-3:] == [(found.good, True)] * 3


def test_nothing_held_and_everything_held() -> None:
    none = highest_rate(up_to(10), LADDER, 0.1, 3, never_over)
    assert (none.good, none.bad, none.probes) == (None, 25, [(25, False)])
    every = highest_rate(up_to(10_000), LADDER, 0.1, 2, never_over)
    assert (every.good, every.bad) == (1600, None)
    assert every.probes[-2:] == [(1600, True)] * 2


def test_the_budget_stops_the_search_where_it_is() -> None:
    probes: list[int] = []

    def counted(rate: int) -> bool:
        probes.append(rate)
        return rate <= 530

    found = highest_rate(counted, LADDER, 0.1, 3, lambda: len(probes) >= 4)
    assert not found.complete and probes == [25, 50, 100, 200] and found.good == 200


def test_searches_side_by_side_probe_in_turn_and_find_what_each_alone_would() -> None:
    """make capacity's contenders: one probe of each in turn, so the machine's drift falls on
    all of them alike; one that ends early leaves the others going."""
    order: list[tuple[str, int]] = []
    limits = {"go": 530, "java": 310, "java tuned": 60}

    def passes(name: str, rate: int) -> bool:
        order.append((name, rate))
        return rate <= limits[name]

    found = bisection.in_turn({name: bisection.rate_search(LADDER, 0.1, 3) for name in limits}, passes, never_over)
    for name, limit in limits.items():
        alone = highest_rate(up_to(limit), LADDER, 0.1, 3, never_over)
        assert (found[name].good, found[name].probes) == (alone.good, alone.probes)
    assert [name for name, _ in order[:6]] == ["go", "java", "java tuned"] * 2
    assert order[-1][0] == "go" and len(order) == sum(len(f.probes) for f in found.values())


def test_the_budget_ends_every_search_side_by_side() -> None:
    order: list[str] = []
    found = bisection.in_turn({name: bisection.rate_search(LADDER, 0.1, 3) for name in ("go", "java")},
                              lambda name, rate: order.append(name) or True, lambda: len(order) >= 5)
    assert order == ["go", "java", "go", "java", "go"]
    assert not found["go"].complete and not found["java"].complete
    assert (found["go"].good, found["java"].good) == (100, 50)


def test_contenders_are_the_shipped_settings_then_the_tuned_ones() -> None:
    """TUNED=both: a service tuned to its shipped settings (java here) is one contender."""
    tables = {"go": {"pool": 16, "env": {}}, "java": {"pool": 95, "env": {}}}
    names = [c.name for c in capacity_search.contenders(["go", "java"], True, True, tables)]
    assert names == ["go", "java", "go tuned"]
    assert [c.tuned for c in capacity_search.contenders(["java"], True, False, tables)] == [True]
    assert [c.tuned for c in capacity_search.contenders(["go"], False, False, {})] == [False]


def test_a_service_probed_once_has_its_shipped_record_as_its_tuned_one() -> None:
    doc = {runs.SHIPPED_SECTION: {"go": {"rate": {"found": 500}, "probes": [{"rate": 500}]},
                                  "java": {"rate": {"found": 300}, "probes": []}},
           runs.TUNED_SECTION: {"go": {"rate": {"found": 550}, "probes": []}}}
    capacity_search.as_shipped(doc)
    assert doc[runs.TUNED_SECTION]["go"]["rate"]["found"] == 550
    assert doc[runs.TUNED_SECTION]["java"] == {"rate": {"found": 300}, "probes": [], "as_shipped": True}
    doc[runs.SHIPPED_SECTION]["java"]["probes"].append({"heap_mb": 64})  # the heap sweep comes after
    assert doc[runs.TUNED_SECTION]["java"]["probes"] == []


def test_the_smallest_heap_bisects_the_sweep() -> None:
    heaps = (64, 128, 256, 512, 1024)
    found = bisection.smallest(up_to(10_000), heaps, 2, never_over)
    assert (found.good, found.bad) == (64, None)  # the smallest swept held
    found = bisection.smallest(lambda mb: mb >= 256, heaps, 2, never_over)
    assert (found.good, found.bad, found.complete) == (256, 128, True)
    assert found.probes[0] == (1024, True) and found.probes[-2:] == [(256, True)] * 2
    assert len(found.probes) <= 1 + 2 + 2  # 1024, then two halvings, then two confirmations
    found = bisection.smallest(lambda mb: False, heaps, 2, never_over)
    assert (found.good, found.bad, found.probes) == (None, None, [(1024, False)])


def test_a_heap_probe_spoiled_by_the_load_generator_runs_again() -> None:
    """At the capacity rate JMeter may fall short once: that level says nothing of the heap."""
    levels = iter([["load generator"], ["load generator"], []])
    assert capacity_search.held_heap(lambda: next(levels), 2, never_over)
    assert not capacity_search.held_heap(lambda: ["load generator"], 2, never_over)  # short every time: not held
    calls = []
    assert not capacity_search.held_heap(lambda: calls.append(1) or ["load generator", "p99"], 2, never_over)
    assert len(calls) == 1  # a miss of its own (p99) is the heap's: no retry
    calls.clear()
    assert not capacity_search.held_heap(lambda: calls.append(1) or ["load generator"], 2, lambda: True)
    assert len(calls) == 1  # no time left for another level


def test_the_heap_sweep_is_the_shipped_settings_only() -> None:
    """The tuned settings name their heap: no sweep by default, and asking for one is refused."""
    parser = argparse.ArgumentParser()
    capacity.add_arguments(parser)

    def heaps(*argv: str) -> tuple[int, ...]:
        return capacity.heaps_to_sweep(parser.parse_args(list(argv)))

    assert heaps() == capacity_search.HEAPS_MB
    assert heaps("--heaps", "64,128") == (64, 128)
    assert heaps("--heaps", "") == ()
    assert heaps("--tuned") == () == heaps("--tuned", "--heaps", "")
    with pytest.raises(UserError, match="--heaps with --tuned"):
        heaps("--tuned", "--heaps", "128")
