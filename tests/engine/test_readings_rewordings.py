"""Rules as players reword them still read, and a rewording that leaves a doubt cannot tell.

One table of (text, mechanic, phrase, expected): the expected value as SET writes it, or
CANT (can't tell). Where the reason is not obvious, a comment says it; for some rows the
reason a host is given is checked too.
"""

from __future__ import annotations

import pytest

from speakerbot.engine.readings import read_mechanic

CANT = None
WIN = "achieve|reach|have {} points"
LOSE = "lose|loses {} points"
MUTABLE = "more than {} mutable rules"
QUORUM = "{} of voters"
ALONE = "{}"

REWORDINGS: list[tuple[str, str, str, str | None]] = [
    # Winning.
    ("The winner is the first player to reach 150 points.", "win_points", WIN, "150"),
    ("The winner is the first player to achieve one hundred and fifty (positive) points.",
     "win_points", WIN, "150"),
    ("The winner is the first player to achieve one hundred fifty points.",
     "win_points", WIN, "150"),
    ("The first Player to have 1,000 Points wins.", "win_points", WIN, "1000"),
    ("The winner is the first player to reach a hundred points.", "win_points", WIN, "100"),
    ("The winner is the first player to reach a thousand points.", "win_points", WIN, "1000"),
    ("The first to reach seventy seven points wins.", "win_points", WIN, "77"),
    ("The first to reach twenty-five points wins.", "win_points", WIN, "25"),
    ("A player who achieves three hundred thousand points wins.", "win_points", WIN,
     "300000"),
    ("The first player to achieve +5 points wins.", "win_points", WIN, "5"),
    ("The winner is the first player to REACH 150 POINTS.", "win_points", WIN, "150"),
    # Another value in another sentence is no second value of this one.
    ("The winner is the first player to achieve 150 points. A player who loses 20 points "
     "pays a fine.", "win_points", WIN, "150"),
    ("The winner is the first player to achieve 150 points.\n\nPlayers start with 20 points.",
     "win_points", WIN, "150"),
    # "point", not "points": a final "s" does not matter.
    ("The game is won by the first to reach 1 point.", "win_points", WIN, "1"),
    # Only a final "s": "reaches" is not "reach" (a phrase that wants it says reach|reaches).
    ("Whoever first reaches 150 points wins.", "win_points", WIN, CANT),
    ("Whoever first reaches 150 points wins.", "win_points", "reach|reaches {} points", "150"),
    # "with" is not one of the phrase's words: the phrase is gone.
    ("The winner is the first player with 150 or more points.", "win_points", WIN, CANT),
    # Two values: 150 and 100.
    ("The winner is the first player to achieve 150 points, or 100 points if only two play.",
     "win_points", WIN, CANT),
    # The same value twice, in figures and in words, is one value.
    ("The winner is the first player to achieve 150 points (one hundred and fifty points).",
     "win_points", WIN, "150"),
    ("The winner is the first player to achieve 0 points.", "win_points", WIN, CANT),
    ("The winner is the first player to achieve 100000000 points.", "win_points", WIN, CANT),
    ("The winner is whoever the Speaker likes best.", "win_points", WIN, CANT),
    # Half a point is not a whole number of points.
    ("The winner is the first player to reach 2.5 points.", "win_points", WIN, CANT),
    ("The winner is the first player to reach one and a half points.", "win_points", WIN,
     CANT),
    # "reach" is more than four tokens before the value.
    ("The winner is the first player to reach, at the very end, 150 points.", "win_points", WIN,
     CANT),
    # Losing points.
    ("When a proposal is defeated, its proposer loses ten points.",
     "proposer_rejected_points", LOSE, "10"),
    ("A defeated proposer shall lose 15 of their points.", "proposer_rejected_points", LOSE,
     "15"),
    ("A defeated proposer loses nothing.", "proposer_rejected_points", LOSE, CANT),
    # Mutable rules.
    ("At no time may there be more than thirty mutable rules.", "max_mutable_rules", MUTABLE,
     "30"),
    ("There may never be more than 40 Mutable Rules in effect.", "max_mutable_rules",
     MUTABLE, "40"),
    ("There may be any number of mutable rules.", "max_mutable_rules", MUTABLE, CANT),
    # Voting periods: the only duration in the rule.
    ("Voting lasts three days.", "voting_period", ALONE, "3d"),
    ("The voting period is 72 hours.", "voting_period", ALONE, "3d"),
    ("The voting period is 36 hours.", "voting_period", ALONE, "1d12h"),
    ("The voting period is a fortnight.", "voting_period", ALONE, "14d"),
    ("The voting period is one week.", "voting_period", ALONE, "7d"),
    ("The voting period is 1w.", "voting_period", ALONE, "7d"),
    ("The voting period is 3d.", "voting_period", ALONE, "3d"),
    ("The voting period is 1d12h.", "voting_period", ALONE, "1d12h"),
    ("The voting period is a day and a half.", "voting_period", ALONE, "1d12h"),
    ("The voting period is 1 day and 12 hours.", "voting_period", ALONE, "1d12h"),
    ("The voting period is ninety minutes.", "voting_period", ALONE, "1h30m"),
    # Two values: 7d and 14d.
    ("The voting period is one week, or two weeks in August.", "voting_period", ALONE, CANT),
    # Months and years vary in length.
    ("The voting period is one month.", "voting_period", ALONE, CANT),
    ("The voting period is a year.", "voting_period", ALONE, CANT),
    # Longer than the longest voting period (365d).
    ("The voting period is 400 days.", "voting_period", ALONE, CANT),
    ("Votes are taken until everyone has voted.", "voting_period", ALONE, CANT),
    # Quorum.
    ("Quorum is twenty-five percent of Voters.", "quorum_percent", QUORUM, "25"),
    ("Quorum is twenty five per cent of Voters.", "quorum_percent", QUORUM, "25"),
    ("Quorum is 25 % of voters.", "quorum_percent", QUORUM, "25"),
    ("Quorum is a quarter of Voters.", "quorum_percent", QUORUM, "25"),
    ("Quorum is a fifth of all the Voters.", "quorum_percent", QUORUM, "20"),
    ("Quorum is half of the voters.", "quorum_percent", QUORUM, "50"),
    # Not a whole number of percent.
    ("Quorum is 33.3% of voters.", "quorum_percent", QUORUM, CANT),
    ("Quorum is a third of voters.", "quorum_percent", QUORUM, CANT),
    ("Quorum is 150% of voters.", "quorum_percent", QUORUM, CANT),
    # Adoption and what it counts.
    ("A rule change is adopted by a simple majority of votes cast.", "adoption", ALONE,
     "majority"),
    ("A rule change is adopted by a simple majority of votes cast.", "count_basis", ALONE,
     "cast"),
    ("A rule change is adopted if the vote is unanimous among the eligible voters.",
     "adoption", ALONE, "unanimous"),
    ("A rule change is adopted if the vote is unanimous among the eligible voters.",
     "count_basis", ALONE, "eligible"),
    ("A rule change is adopted if more than half of the votes legally cast favour it.",
     "adoption", ALONE, "majority"),
    ("A rule change needs unanimity.", "adoption", ALONE, "unanimous"),
    ("Rule changes pass unanimously.", "adoption", ALONE, "unanimous"),
    # Both values named: two values.
    ("A rule change is adopted unanimously, or by a majority after two circuits.",
     "adoption", ALONE, CANT),
    ("Votes are counted among the eligible voters, not the votes cast.", "count_basis",
     ALONE, CANT),
    ("A rule change is adopted when the players agree.", "adoption", ALONE, CANT),
    # Refused consent.
    ("a two-thirds majority of all votes legally cast", "refused_consent_threshold",
     "a {} majority", "2/3"),
    ("a three quarters majority of all votes", "refused_consent_threshold", "a {} majority",
     "3/4"),
    ("a 75% majority of all votes", "refused_consent_threshold", "a {} majority", "3/4"),
    # A third is below the least threshold (1/2).
    ("a one third majority of all votes", "refused_consent_threshold", "a {} majority", CANT),
]


@pytest.mark.parametrize(("text", "mechanic", "phrase", "expected"), REWORDINGS)
def test_a_rewording_reads_its_value_or_cannot_tell(
        text: str, mechanic: str, phrase: str, expected: str | None) -> None:
    reading = read_mechanic(mechanic, phrase, text)
    assert reading.value == expected, reading.why
    if expected is None:
        assert reading.why and reading.words == ""
    else:
        assert reading.why == "" and reading.words in text


def test_there_are_at_least_forty_rewordings() -> None:
    assert len(REWORDINGS) >= 40
    assert sum(expected is CANT for *_, expected in REWORDINGS) >= 15


WHY = [
    ("The winner is the first player to achieve 150 points, or 100 points if only two play.",
     "win_points", WIN, "two values: 150 and 100"),
    ("The voting period is one week, or two weeks in August.", "voting_period", ALONE,
     "two values: 7d and 14d"),
    ("The first to reach 150000000 points wins.", "win_points", WIN,
     "150000000 is out of range: expected a whole number from 1 to 10000000"),
    ("The winner is whoever the Speaker likes best.", "win_points", WIN,
     "the rule no longer says 'achieve or reach or have … points'"),
    ("Votes are taken until everyone has voted.", "voting_period", ALONE,
     "the rule no longer names a duration"),
    ("Rule changes pass when the players agree.", "adoption", ALONE,
     "the rule no longer names majority or unanimous"),
    ("The voting period is one month.", "voting_period", ALONE,
     "a month varies in length: say it in days or weeks"),
    ("Quorum is 33.3% of voters.", "quorum_percent", QUORUM, "is not a whole number"),
    ("The voting period is 400 days.", "voting_period", ALONE,
     "400d is out of range: expected a duration from 1s to 365d"),
    ("The voting period is 9999999 weeks.", "voting_period", ALONE,
     "9999999 weeks is out of range"),
    ("The voting period is half a second.", "voting_period", ALONE,
     "is not a whole number of seconds"),
    ("A rule change is adopted unanimously, or by majority, or by unanimity.",
     "adoption", ALONE, "two values: unanimous and majority"),
    # Issue 38: a second value in the phrase's sentence, with half of the phrase's words
    # around it, is a second value that sentence states; the first is never taken alone.
    ("The winner is the first player to achieve 150 (positive) points, or 200 points in a "
     "game of more than five players.", "win_points", WIN,
     "its sentence states two values: 150 and 200"),
    ("The first player to reach 150 points wins; in a game of many players, 200 points.",
     "win_points", WIN, "its sentence states two values: 150 and 200"),
    ("The first to reach 150 points wins, or in a game of more than five players the first "
     "to reach two hundred.", "win_points", WIN, "its sentence states two values: 150 and "
                                                 "200"),
]


@pytest.mark.parametrize(("text", "mechanic", "phrase", "why"), WHY)
def test_a_reading_that_cannot_tell_says_why(
        text: str, mechanic: str, phrase: str, why: str) -> None:
    reading = read_mechanic(mechanic, phrase, text)
    assert reading.value is None
    assert why in reading.why


def test_the_words_read_run_from_the_first_phrase_word_to_the_last() -> None:
    text = "Rule 208. The winner is the first player to REACH one hundred (positive) Points!"
    assert read_mechanic("win_points", WIN, text).words == "REACH one hundred (positive) Points"
    assert read_mechanic("win_points", "{} points", text).words == "one hundred (positive) Points"
    assert read_mechanic("win_points", "reach {}", text).words == "REACH one hundred"
    assert read_mechanic("voting_period", ALONE, "It lasts 72 hours.").words == "72 hours"
