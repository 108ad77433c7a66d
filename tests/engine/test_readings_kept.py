"""What is kept to read a rule quickly never changes what it reads (issue 37).

A reading is kept for the tokens it looked at (``Memo``), and what a stretch of tokens gave
for the tokens around it (``Matcher``); both are used again wherever the same tokens stand.
On texts that repeat themselves with a few changes, so that what is kept is used again:
each place read through the memo and afresh; each stretch's matches with and without the
stretches kept, at several sizes of stretch; and each reading as it is and with nothing
kept at all (every value read where it stands, as before issue 37).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from speakerbot.engine import rule_matches
from speakerbot.engine.readings import READABLE, Reading, read_mechanic
from speakerbot.engine.rule_matches import Match, Matcher, Nearest, Value, anchor_word
from speakerbot.engine.rule_values import reader_of
from speakerbot.engine.rule_words import Memo, Words

PHRASES = ["{}", "achieve|reach|have {} points", "{} of voters", "a {} majority",
           "more than {} mutable rules", "lose|loses {} points", "lasts {}", "{} points",
           "vote is {}", "s {} s"]
PIECES = ["one", "hundred", "and", "a", "an", "half", "thousand", "-", "5", "12", "0", "2/3",
          "%", "per", "cent", "days", "hours", "h", "d", "m", "s", "w", "week", "month",
          "unanimous", "majority", "more", "than", "cast", "points", "reach", "lasts", "of",
          "voters", "vote", "is", "1,000", "33.3", "+", "\u2212", "İ", "\n", " ", " ", " "]
# What values are made of, drawn more often: a reading kept for "5d" must not be used for
# "5 d", nor one for "5 days" for "5 days and a half".
VALUE_PIECES = ["5", "12", "d", "h", "w", "days", "and", "a", "half", "%", " ", " "]


def read_afresh(name: str, phrase: str, text: str) -> Reading:
    """Read ``text`` with nothing kept: every value read where it stands."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Memo, "_walk", lambda self, index: None)
        patch.setattr(Memo, "_keep", lambda self, index, extent, value: None)
        patch.setattr(Matcher, "_known", lambda self, low, entry: None)
        return read_mechanic(name, phrase, text)


def _texts() -> st.SearchStrategy[str]:
    pieces = st.sampled_from(PIECES + VALUE_PIECES * 4)
    unit = st.lists(pieces, min_size=1, max_size=8).map("".join)
    # A change puts a piece in at a place, or takes a character out (None).
    changes = st.lists(st.tuples(st.integers(0, 10**6), st.none() | pieces), max_size=4)

    def changed(unit: str, times: int, changes: list[tuple[int, str | None]]) -> str:
        text = unit * times
        for place, piece in changes:
            place %= len(text) + 1
            text = text[:place] + (piece or "") + text[place + (piece is None):]
        return text

    # Repeated often enough that readings are kept and used again.
    return st.builds(changed, unit, st.sampled_from([1, 3, 10, 50, 200]), changes)


@pytest.fixture(params=[1, 3, 64], ids=lambda size: f"stretch of {size}")
def stretch(request: pytest.FixtureRequest) -> Iterator[int]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule_matches, "STRETCH", request.param)
        yield request.param


@settings(max_examples=150, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(sorted(READABLE)), st.sampled_from(PHRASES), _texts())
@example("win_points", "{}", "5d" * 100 + "5 d")
def test_a_kept_reading_is_what_reading_again_gives(
        stretch: int, name: str, phrase: str, text: str) -> None:
    assert read_mechanic(name, phrase, text) == read_afresh(name, phrase, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(READABLE)), _texts())
@example("voting_period", "5d" * 10 + "5 d" + "5d" * 10)
def test_a_kept_reading_is_the_reading_at_every_place(name: str, text: str) -> None:
    reader, _ = reader_of(name, READABLE[name])
    words, plain = Words(text), Words(text)
    memo = Memo(words, reader)
    for index in range(words.size):
        assert memo.read(index) == reader(plain, index), index


@settings(max_examples=150, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(sorted(READABLE)), st.sampled_from(PHRASES), _texts())
def test_a_kept_stretch_gives_what_reading_it_again_gives(
        stretch: int, name: str, phrase: str, text: str) -> None:
    def stretches() -> list[tuple[Match | None, tuple[Value, ...]]]:
        words = Words(text)
        reader, first_words = reader_of(name, READABLE[name])
        place = phrase.split().index("{}")
        anchors = [frozenset(anchor_word(option) for option in word.split("|"))
                   for word in phrase.split()]
        nearest = Nearest(words, 4, anchors[:place], anchors[place + 1:])
        starts = words.starts(first_words, numbers=READABLE[name] != "choice")
        return list(Matcher(words, Memo(words, reader), starts, nearest).stretches())

    kept = stretches()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Matcher, "_known", lambda self, low, entry: None)
        assert kept == stretches()


def test_the_same_value_written_many_times_reads_once_as_it_would_alone() -> None:
    text = "Voting lasts 7d. " * 4000
    assert read_mechanic("voting_period", "lasts {}", text) == Reading("7d", "lasts 7d")
    assert read_afresh("voting_period", "lasts {}", text) == Reading("7d", "lasts 7d")
