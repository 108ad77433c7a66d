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
