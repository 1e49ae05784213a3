import pytest

from bankbench.errors import UserError
from bankbench.run.environments.aws import workload


def test_each_worker_gets_its_share_of_the_users(level):
    props = workload.worker_properties(level(users=1000), workers=4)
    assert (props["users"], props["rate"], props["duration"]) == (250, 0, 120)


def test_each_worker_gets_its_share_of_the_arrival_rate(level):
    props = workload.worker_properties(level(users=400, model="open"), workers=2)
    assert (props["users"], props["rate"]) == (0, 200)


def test_a_load_that_does_not_split_is_refused(level):
    with pytest.raises(UserError, match="users=1000 does not split over 3"):
        workload.worker_properties(level(users=1000), workers=3)


def test_a_level_may_take_its_load_and_ten_minutes_more(level):
    assert workload.time_bound_s(level()) == 30 + 30 + 60 + 600
