"""Each kind of value reads from its own written forms, and a phrase is checked before use.

Each row gives a text holding one value alone and what it reads as (None: can't tell), read
through the public reader with the phrase "{}" (the value alone), so that what is tested
is what a preset's phrase gets.
"""

from __future__ import annotations

import pytest

from speakerbot.engine.readings import READABLE, Reading, phrase_fault, read_mechanic

NUMBERS: list[tuple[str, str | None]] = [
    ("150", "150"), ("+5", "5"), ("1,000", "1000"), ("12,345", "12345"), ("007", "7"),
    ("zero", "0"), ("one", "1"), ("nineteen", "19"), ("twenty", "20"),
    ("twenty-five", "25"), ("seventy seven", "77"), ("a hundred", "100"),
    ("one hundred", "100"), ("one hundred and fifty", "150"), ("one hundred fifty", "150"),
    ("a thousand", "1000"), ("two thousand and one", "2001"), ("fifteen hundred", "1500"),
    ("ninety nine thousand nine hundred and ninety nine", "99999"),
    ("three hundred", "300"), ("Ninety-Nine", "99"),
    # heavens_offset alone may be negative, and only a sign on the figures makes it so.
    ("-5", "-5"), ("-1,000", "-1000"),
    # Out of heavens_offset's range (-100000 to 100000).
    ("three hundred thousand", None), ("150001", None),
    # Not whole.
    ("2.5", None), ("two and a half", None),
    # Not numbers: nothing to read.
    ("many", None), ("", None), ("2/3", None), ("20%", None), ("3d", None),
    ("3 days", None), ("one week", None), ("twenty-five percent", None),
]


@pytest.mark.parametrize(("text", "expected"), NUMBERS)
def test_a_number_reads_from_figures_or_words(text: str, expected: str | None) -> None:
    assert read_mechanic("heavens_offset", "{}", f"Subtract {text}.").value == expected


@pytest.mark.parametrize(("text", "expected"), [("-5", None), ("0", None), ("1", "1")])
def test_a_negative_or_zero_is_out_of_range_where_the_mechanic_allows_none(
        text: str, expected: str | None) -> None:
    assert read_mechanic("win_points", "{}", f"win at {text}").value == expected


DURATIONS: list[tuple[str, str | None]] = [
    ("one week", "7d"), ("a week", "7d"), ("two weeks", "14d"), ("a fortnight", "14d"),
    ("two fortnights", "28d"), ("three days", "3d"), ("1 day", "1d"), ("72 hours", "3d"),
    ("36 hours", "1d12h"), ("an hour", "1h"), ("half an hour", "30m"), ("90 minutes", "1h30m"),
    ("ninety minutes", "1h30m"), ("45 seconds", "45s"), ("1.5 days", "1d12h"),
    ("one and a half days", "1d12h"), ("a day and a half", "1d12h"),
    ("1 day and 12 hours", "1d12h"), ("3d", "3d"), ("72h", "3d"), ("1w", "7d"),
    ("1d12h", "1d12h"), ("90m", "1h30m"), ("twenty-four hours", "1d"), ("3 Days", "3d"),
    ("7 hrs", "7h"), ("10 mins", "10m"),
    # Months and years vary; a duration must be whole seconds, and at most 365 days.
    ("one month", None), ("two years", None), ("half a second", None), ("400 days", None),
    # A unit is read only after a number, and a short unit only when written onto it.
    ("days", None), ("3 d", None), ("3", None), ("three", None),
]


@pytest.mark.parametrize(("text", "expected"), DURATIONS)
def test_a_duration_reads_from_a_number_and_a_unit(text: str, expected: str | None) -> None:
    assert read_mechanic("voting_period", "{}", f"Voting lasts {text}.").value == expected


PERCENTS: list[tuple[str, str | None]] = [
    ("20%", "20"), ("20 %", "20"), ("20 percent", "20"), ("twenty per cent", "20"),
    ("twenty-five percent", "25"), ("a fifth", "20"), ("one quarter", "25"),
    ("a quarter", "25"), ("half", "50"), ("one half", "50"), ("three quarters", "75"),
    ("two fifths", "40"), ("1/4", "25"), ("0%", "0"), ("100%", "100"),
    # Not whole, or out of 0 to 100, or not a share at all.
    ("33.3%", None), ("a third", None), ("2/3", None), ("101%", None), ("20", None),
    ("the third", None),
]


@pytest.mark.parametrize(("text", "expected"), PERCENTS)
def test_a_percentage_reads_as_a_whole_number_of_percent(
        text: str, expected: str | None) -> None:
    assert read_mechanic("quorum_percent", "{}", f"Quorum is {text} of voters.").value == expected


FRACTIONS: list[tuple[str, str | None]] = [
    ("2/3", "2/3"), ("4/6", "2/3"), ("two thirds", "2/3"), ("two-thirds", "2/3"),
    ("three quarters", "3/4"), ("three fourths", "3/4"), ("67%", "67/100"),
    ("sixty-seven percent", "67/100"), ("half", "1/2"), ("one half", "1/2"), ("1/1", "1/1"),
    # Below 1/2 or above 1.
    ("a third", None), ("1/3", None), ("4/3", None), ("150%", None),
    ("1/0", None), ("most", None),
]


@pytest.mark.parametrize(("text", "expected"), FRACTIONS)
def test_a_fraction_reads_as_set_writes_it(text: str, expected: str | None) -> None:
    assert read_mechanic("refused_consent_threshold", "{}", f"Needs {text}.").value == expected


CHOICES: list[tuple[str, str, str | None]] = [
    ("adoption", "unanimous", "unanimous"), ("adoption", "unanimously", "unanimous"),
    ("adoption", "unaminous", "unanimous"), ("adoption", "unanimity", "unanimous"),
    ("adoption", "Unanimous", "unanimous"), ("adoption", "a majority", "majority"),
    ("adoption", "more than half", "majority"), ("adoption", "half", None),
    ("adoption", "unanimity or a majority", None), ("adoption", "consensus", None),
    ("count_basis", "the eligible voters", "eligible"),
    ("count_basis", "the elegible voters", "eligible"),
    ("count_basis", "the votes cast", "cast"), ("count_basis", "legally cast", "cast"),
    ("count_basis", "eligible voters' votes cast", None),
    ("transmute_basis", "eligible voters", "eligible"),
    ("transmute_basis", "votes cast", "cast"),
    ("transmute_basis", "votes", None),
]


@pytest.mark.parametrize(("mechanic", "text", "expected"), CHOICES)
def test_a_choice_reads_from_its_own_words(
        mechanic: str, text: str, expected: str | None) -> None:
    assert read_mechanic(mechanic, "{}", f"Adopted by {text}.").value == expected


def test_a_number_of_days_or_percent_is_no_count_beside_a_count() -> None:
    # nomicam 215: "the Judge has one week ... the Judge is penalized 10 points".
    text = "The Judge has one week to judge, or is penalized 10 points after 20% of it."
    assert read_mechanic("judge_penalty", "{}", text).value == "10"
    assert read_mechanic("judge_period", "{}", text).value == "7d"


def test_every_readable_mechanic_reads_a_value_of_its_kind() -> None:
    examples = {"number": "There are 7 of them.", "duration": "It takes 3 days.",
                "percent": "It takes 50% of them.", "fraction": "It takes 2/3 of them.",
                "choice": "It takes a majority of the votes cast."}
    for name, kind in READABLE.items():
        reading = read_mechanic(name, "{}", examples[kind])
        assert reading.value is not None, (name, reading.why)


PHRASES: list[tuple[str, str, str | None]] = [
    ("win_points", "achieve|reach|have {} points", None),
    ("win_points", "{}", None),
    ("win_points", "{} points", None),
    ("win_points", "reach {}", None),
    ("quorum_percent", "{} of voters", None),
    ("max_mutable_rules", "at most more than {} mutable rules of all", None),
    ("win_points", "Reach|REACH {} Points", None),
    # Not readable: a mechanic the engine has but no rule's text sets, or no mechanic.
    ("flow", "{}", "is not a mechanic that can be read"),
    ("speaker_role", "{}", "is not a mechanic that can be read"),
    ("no_such_thing", "{}", "is not a mechanic that can be read"),
    # Placeholders.
    ("win_points", "reach points", "no placeholders"), ("win_points", "", "no placeholders"),
    ("win_points", "reach {} or {} points", "2 placeholders"),
    ("win_points", "reach {}{} points", "2 placeholders"),
    ("win_points", "reach {}points", "must stand alone"),
    ("win_points", "reach{} points", "must stand alone"),
    # Words: letters only, no empty alternative, at most four on either side.
    ("win_points", "reach| {} points", "none empty"),
    ("win_points", "reach||have {} points", "none empty"),
    ("win_points", "| {} points", "none empty"),
    ("win_points", "reach {} points|", "none empty"),
    ("win_points", "reach {} 100 points", "letters alone"),
    ("win_points", "reach {} point's", "letters alone"),
    ("win_points", "reach {} {x}", "letters alone"),
    ("win_points", "the first player to reach {} points", "5 words before"),
    ("win_points", "reach {} points or more than that", "5 words after"),
    # A word the value itself takes in could never be found after it.
    ("quorum_percent", "{} percent of voters", "read as part of the value"),
    ("quorum_percent", "{} per cent", "read as part of the value"),
    ("voting_period", "lasts {} days", "read as part of the value"),
    ("voting_period", "lasts {} hour|hours", "read as part of the value"),
    ("voting_period", "a {} month", "read as part of the value"),
    ("voting_period", "lasts {} from distribution", None),
    ("win_points", "{} days", None),
]


@pytest.mark.parametrize(("mechanic", "phrase", "fault"), PHRASES)
def test_a_phrase_is_usable_or_its_fault_is_said(
        mechanic: str, phrase: str, fault: str | None) -> None:
    said = phrase_fault(mechanic, phrase)
    if fault is None:
        assert said is None
    else:
        assert said is not None and fault in said


@pytest.mark.parametrize(("mechanic", "phrase", "text"), [
    ("quorum_percent", "{} percent of voters", "Quorum is 20 percent of voters."),
    ("voting_period", "lasts {} days", "Voting lasts 3 days."),
])
def test_a_phrase_refused_for_a_word_of_the_value_would_never_read(
        mechanic: str, phrase: str, text: str) -> None:
    without = phrase.replace(" percent", "").replace(" days", "")
    assert read_mechanic(mechanic, without, text).value is not None
    assert read_mechanic(mechanic, phrase, text).value is None


def test_a_faulty_phrase_reads_nothing_and_says_why() -> None:
    reading = read_mechanic("win_points", "reach points", "reach 100 points")
    assert reading == Reading(None, "", phrase_fault("win_points", "reach points") or "?")
    assert read_mechanic("flow", "{}", "turns").value is None
