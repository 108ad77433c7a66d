"""The one retry backoff shared by the outbox (SMTP) and the IMAP reconnect."""

from __future__ import annotations

import random

import pytest

from speakerbot.adapters import smtp
from speakerbot.adapters.backoff import FULL_JITTER, QUARTER_MORE, backoff, ceiling


class _Extreme(random.Random):
    """Always draws the top (or bottom) of the range."""

    def __init__(self, top: bool) -> None:
        super().__init__(0)
        self.top = top

    def random(self) -> float:
        return 1.0 if self.top else 0.0


def test_the_ceiling_doubles_up_to_the_cap() -> None:
    assert [ceiling(n, base=1.0, cap=10.0) for n in range(1, 7)] == [1, 2, 4, 8, 10, 10]
    assert ceiling(10**9, base=1.0, cap=10.0) == 10.0
    with pytest.raises(ValueError, match="from 1"):
        ceiling(0, base=1.0, cap=10.0)


def test_full_jitter_spans_nothing_to_the_ceiling() -> None:
    assert backoff(3, base=1.0, cap=60.0, rng=_Extreme(top=True), jitter=FULL_JITTER) == 4.0
    assert backoff(3, base=1.0, cap=60.0, rng=_Extreme(top=False), jitter=FULL_JITTER) == 0.0


def test_a_quarter_more_never_waits_less_than_the_ceiling() -> None:
    top, bottom = _Extreme(top=True), _Extreme(top=False)
    assert backoff(3, base=1.0, cap=60.0, rng=bottom, jitter=QUARTER_MORE) == 4.0
    assert backoff(3, base=1.0, cap=60.0, rng=top, jitter=QUARTER_MORE) == 5.0
    rng = random.Random(5)
    for attempt in range(1, 12):
        expected = min(60.0, 2.0 ** (attempt - 1))
        delay = backoff(attempt, base=1.0, cap=60.0, rng=rng, jitter=QUARTER_MORE)
        assert expected <= delay <= expected * 1.25


def test_the_smtp_adapter_exports_the_same_backoff() -> None:
    assert smtp.backoff is backoff


# -- the outbox's defaults, through the SMTP adapter's name ---------------------------


def test_backoff_grows_exponentially_up_to_the_cap() -> None:
    top = _Extreme(top=True)
    ceilings = [smtp.backoff(n, base=30.0, cap=3600.0, rng=top) for n in range(1, 12)]
    assert ceilings[:7] == [30.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0]
    assert ceilings[7:] == [3600.0] * 4
    assert smtp.backoff(10_000, rng=top) == 3600.0
    assert smtp.backoff(3, rng=_Extreme(top=False)) == 0.0


def test_backoff_is_jittered_within_its_ceiling() -> None:
    rng = random.Random(1234)
    for attempt in (1, 4, 9):
        highest = min(3600.0, 30.0 * 2 ** (attempt - 1))
        draws = [smtp.backoff(attempt, rng=rng) for _ in range(200)]
        assert all(0.0 <= d <= highest for d in draws)
        assert len(set(draws)) == len(draws)
        # Full jitter spreads over the whole range.
        assert min(draws) < highest * 0.1
        assert max(draws) > highest * 0.9


def test_backoff_counts_attempts_from_one() -> None:
    with pytest.raises(ValueError):
        smtp.backoff(0, rng=random.Random(0))
