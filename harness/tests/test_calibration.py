"""What the load generator's calibration drives: each load's level, a long one cut to MAX_S."""

from dataclasses import replace

from bankbench.load import profiles
from bankbench.run.experiments import calibration


def test_a_soak_is_calibrated_over_its_first_minutes_at_its_rate() -> None:
    soak = profiles.load("soak")
    soak = replace(soak, duration_s=1800, phases=[[1800, 0.8]])
    level = calibration._within(soak.level("go", 400, 16, 1))
    assert (level.profile.duration_s, level.profile.phases) == (calibration.MAX_S, [[calibration.MAX_S, 0.8]])
    assert level.users == 400 and level.expected_s < 1800


def test_shorter_levels_and_phased_overloads_are_calibrated_whole() -> None:
    for name in ("capacity", "overload", "efficiency"):
        level = profiles.load(name).level("go", 100, 16, 1)
        assert calibration._within(level) == level, name
