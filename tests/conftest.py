"""What every test shares: the clocks of pytest-timeout and Hypothesis scaled by ``SLOWDOWN``.

A test's limit (``timeout`` in pyproject.toml, or its ``@pytest.mark.timeout``) is written
for a quiet machine, as its waits are (``tests/support/patience.py``): on a busy one both
grow together, so that a test is stopped for hanging, not for sharing the CPU. Hypothesis
times itself as well: an example's deadline (200 ms unless a test sets its own) grows by the
same scale, and its health check of slow data generation, a measure of the machine rather
than of the code, is off unless ``SPEAKERBOT_TEST_SLOWDOWN=1`` says the machine is quiet.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from tests.support.patience import ENV, SLOWDOWN, patience

if SLOWDOWN > 1:
    _deadline = settings.get_profile("default").deadline
    settings.register_profile(
        "patience", deadline=_deadline * SLOWDOWN if _deadline is not None else None,
        suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("patience")


def _scaled(item: pytest.Item) -> pytest.MarkDecorator | None:
    """The test's limit (its marker's, else the run's) times ``SLOWDOWN``; None: no limit."""
    marker = item.get_closest_marker("timeout")
    args: tuple[object, ...] = marker.args if marker is not None else ()
    kwargs = dict(marker.kwargs) if marker is not None else {}
    if args:
        limit, rest = args[0], args[1:]
    else:  # pytest-timeout's own reading of --timeout, PYTEST_TIMEOUT and the ini
        limit, rest = kwargs.pop("timeout", getattr(item.config, "_env_timeout", None)), ()
    if limit is None or not float(str(limit)):
        return None
    return pytest.mark.timeout(patience(float(str(limit))), *rest, **kwargs)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give each test with a limit that limit times ``SLOWDOWN`` (0, no limit, stays 0)."""
    for item in items:
        scaled = _scaled(item)
        if scaled is not None:
            item.add_marker(scaled, append=False)


def pytest_report_header() -> str:
    """Say the run's scale, and how to set it."""
    return f"waits and timeouts scaled by {SLOWDOWN:g} ({ENV})"
