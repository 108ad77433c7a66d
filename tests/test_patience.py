"""The tests' one scale of patience (tests/support/patience.py) and the clocks it scales."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, settings

from tests.support.patience import (
    ENV,
    FLOOR,
    SLOWDOWN,
    measured,
    parsed,
    patience,
    period,
    read_slowdown,
)


def test_a_quiet_machine_gets_the_floor_and_a_busy_one_more() -> None:
    assert measured(0.0, 2) == FLOOR == 3.0
    assert measured(7.0, 2) == 4.5  # the machine: load 7 on 2 CPUs
    assert measured(40.0, 0) == 41.0  # no CPU count: taken as one


def test_a_slowdown_named_in_the_environment_is_used_as_it_is() -> None:
    environ = {ENV: " 1 "}
    assert read_slowdown(environ) == 1.0 and environ == {ENV: " 1 "}
    assert parsed("2.5") == 2.5


@pytest.mark.parametrize("text", ["0.5", "0", "-3", "nan", "inf", "slow"])
def test_a_slowdown_under_one_or_not_a_number_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parsed(text)


def test_a_measured_slowdown_is_put_in_the_environment_for_the_processes_started() -> None:
    environ: dict[str, str] = {}
    value = read_slowdown(environ)
    assert value >= FLOOR and parsed(environ[ENV]) == value


def test_this_run_has_one_scale_and_its_children_see_it() -> None:
    assert SLOWDOWN >= 1 and parsed(os.environ[ENV]) == SLOWDOWN
    assert patience(30) == 30 * SLOWDOWN


def test_a_period_is_config_text_in_whole_seconds_rounded_up() -> None:
    for seconds in (0.1, 3, 4.5):
        text = period(seconds)
        assert text.endswith("s"), text
        assert int(text[:-1]) - 1 < patience(seconds) <= int(text[:-1]), text


def test_this_tests_limit_is_the_configured_one_scaled(request: pytest.FixtureRequest) -> None:
    marker = request.node.get_closest_marker("timeout")
    assert marker is not None
    configured = getattr(request.config, "_env_timeout", None)  # pytest-timeout's reading
    assert configured and marker.args == (patience(configured),)


@pytest.mark.timeout(7, method="thread")
def test_a_tests_own_limit_is_scaled_and_keeps_its_method(request: pytest.FixtureRequest) -> None:
    marker = request.node.get_closest_marker("timeout")
    assert marker is not None
    assert (marker.args, marker.kwargs) == ((patience(7),), {"method": "thread"})


def test_hypothesis_gives_an_example_the_scaled_deadline() -> None:
    current = settings()
    if SLOWDOWN == 1:  # a quiet machine: Hypothesis as it comes
        assert current.deadline == timedelta(milliseconds=200)
        assert HealthCheck.too_slow not in current.suppress_health_check
    else:
        assert current.deadline == timedelta(milliseconds=200) * SLOWDOWN
        assert HealthCheck.too_slow in current.suppress_health_check
