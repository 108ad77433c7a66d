"""The rules are the program, through the running daemon (issue 25).

Real Dovecot, a real SMTP sink and SQLite (the votes close by waiting out their period or by
unanimity: the engine is the subject, not the store). An adopted amendment of a mechanic's
rule changes the game: suber's winning score read from rule 208's new words (a player at
120 does not win, one reaching 150 does), nomicam's voting period from rule 205 and its
quorum from rule 201; each change is announced with the rule and the words. A rewording
the reader cannot tell (two numbers, the rule repealed) changes nothing and asks the host,
naming the mechanic; a SET in the same proposal wins over the reading, and the host is told
they disagree; SHOW MECHANICS by mail says where each mechanic comes from.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from speakerbot.engine.durations import format_duration, parse_duration
from speakerbot.engine.model import ProposalStatus
from tests.integration.conftest import db_url_on
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, admin_mail, body_of
from tests.support.patience import period

pytestmark = pytest.mark.integration

ALICE, BOB, CAROL, DAVE, EVE = ("alice@nomic.test", "bob@nomic.test", "carol@nomic.test",
                                "dave@nomic.test", "eve@nomic.test")
PLAYERS = ((ALICE, "Alice"), (BOB, "Bob"))
SUBER = {"reminder_before": "none"}
NOMICAM = {"voting_period": period(4), "reminder_before": "none"}

db_url = db_url_on("sqlite")


def adopt(game: RunningGame, number: int, title: str, text: str,
          voters: tuple[str, ...] = (ALICE, BOB)) -> str:
    """Propose ``text`` (in suber, by the player whose turn it is), all vote FOR; the results."""
    state = game.state()
    mover = state.turn.mover if state.turn is not None else voters[0]
    game.send(mover, f"PROPOSE: {title}", text)
    game.wait_subject(f"Proposal {number}: {title}")
    for voter in voters:
        game.send(voter, f"vote {number}", f"VOTE {number} FOR\n")
    results = body_of(game.wait_subject(f"Proposal {number} ADOPTED"))
    assert game.state().proposals[number].status is ProposalStatus.ADOPTED
    return " ".join(results.split())  # the sentences as they read, unwrapped


def score_bob(game: RunningGame, subject: str, total: int) -> None:
    """The host's ADMIN SCORE that brings Bob to ``total`` points."""
    delta = total - int(game.state().players[BOB].score)
    game.send(SPEAKER, subject, admin_mail(f"ADMIN SCORE {BOB} {delta:+d} a test"))
    reply = body_of(game.wait_subject(f"Re: {subject}", to=SPEAKER))
    assert "Done" in reply, reply
    assert game.state().players[BOB].score == total


def host_notice(game: RunningGame, count: int) -> str:
    """The ``count``-th "Action needed by the Speaker" notice, unwrapped."""
    game.wait_for(lambda _: len(game.sent("Action needed by the Speaker", to=SPEAKER))
                  >= count)
    notice = game.sent("Action needed by the Speaker", to=SPEAKER)[count - 1]
    return " ".join(body_of(notice).split())


def suber_amending_208(make_game: MakeGame, title: str, new: str,
                       more: str = "") -> tuple[RunningGame, str]:
    """A suber game of Alice and Bob whose proposal 301 replaces rule 208's "100 (positive)
    points" with ``new`` (then ``more`` clauses), adopted; the game and the results."""
    game = make_game("suber", SUBER)
    game.begin(*PLAYERS)
    return game, adopt(game, 301, title, 'Amend Rule 208 by replacing "100 (positive) points" '
                       f'with "{new}".\n{more}')


def test_suber_plays_to_the_winning_score_its_amended_rule_208_states(
        make_game: MakeGame) -> None:
    game, results = suber_amending_208(make_game, "Longer game", "150 (positive) points")
    # Suber renumbers an amended rule to its proposal's number: rule 208 is rule 301 now.
    assert ("Mechanic win_points is now 150 (it was 100): rule 301 now says "
            "“achieve 150 (positive) points”") in results, results
    state = game.state()
    assert state.rules_mechanics.win_points == 150
    assert state.sources["win_points"] == 301
    changed = [ev for ev in game.events() if ev["type"] == "MechanicChanged"]
    assert [(ev["mechanic"], ev["old"], ev["new"], ev["rule"], ev["proposal"])
            for ev in changed] == [("win_points", "100", "150", 301, 301)]

    game.send(ALICE, "what is in force", "SHOW MECHANICS\n")
    shown = " ".join(body_of(game.wait_subject("Re: what is in force", to=ALICE)).split())
    assert "win_points = 150 rule 301: “achieve 150 (positive) points”" in shown, shown

    score_bob(game, "past the old score", 120)
    assert not game.state().ended  # 120 would have won at 100
    score_bob(game, "to the new score", 150)
    won = body_of(game.wait_subject("won the game"))
    state = game.state()
    assert state.ended and list(state.winners) == [BOB]
    assert "reached 150 points" in won, won
    assert game.stop() == 0


def test_nomicam_reads_its_voting_period_and_quorum_from_amended_rules(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", NOMICAM)
    game.begin(*PLAYERS, (CAROL, "Carol"), (DAVE, "Dave"), (EVE, "Eve"))
    everyone = (ALICE, BOB, CAROL, DAVE, EVE)
    results = adopt(game, 301, "Bigger quorum",
                    'Amend Rule 201 by replacing "20%" with "25%".\n', everyone)
    assert ("Mechanic quorum_percent is now 25 (it was 20): rule 201 now says "
            "“25% of Voters”") in results, results
    assert game.state().rules_mechanics.quorum_percent == 25
    # The vote of 301 itself was counted at 20%, and its results say so.
    assert "Quorum: 1 (20% of the 5 Voters" in results, results

    results = adopt(game, 302, "Three days",
                    'Amend Rule 205 by replacing "one week" with "three days".\n', everyone)
    was = format_duration(parse_duration(NOMICAM["voting_period"]))  # 4s, scaled
    assert (f"Mechanic voting_period is now 3d (it was {was}): rule 205 now says "
            "“three days”") in results, results
    # The vote of 302 counted its quorum at 25%: of the five players (the Speaker
    # is no Voter), two; at 20%, one.
    base = game.state().proposals[302].quorum_base
    assert base == 5, base
    assert f"Quorum: 2 (25% of the {base} Voters" in results, results

    game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
    body = body_of(game.wait_subject("Proposal 303: Tea"))
    proposal = game.state().proposals[303]
    assert proposal.closes_at is not None
    assert proposal.closes_at - proposal.submitted_at == timedelta(days=3)
    assert f"Voting is open until {proposal.closes_at:%Y-%m-%d %H:%M} UTC." in body, body
    assert game.stop() == 0


def test_a_rewording_the_reader_cannot_tell_changes_nothing_and_asks_the_host(
        make_game: MakeGame) -> None:
    game, _ = suber_amending_208(make_game, "Two scores", "150 or 200 points")
    notice = host_notice(game, 1)
    assert ("Rule 301 changed, and win_points could not be read from it: two values: 150 "
            "and 200") in notice, notice
    assert "ADMIN SET win_points = ..." in notice, notice
    assert game.state().rules_mechanics.win_points == 100

    # The rule that stated it repealed (it is rule 301 now): still 100, the host asked.
    adopt(game, 302, "No score", "REPEAL RULE 301\n")
    notice = host_notice(game, 2)
    assert "win_points could not be read from it: rule 301 was repealed" in notice, notice
    state = game.state()
    assert 301 not in state.rules and state.rules_mechanics.win_points == 100
    assert not [ev for ev in game.events() if ev["type"] == "MechanicChanged"]
    not_read = [(ev["mechanic"], ev["proposal"]) for ev in game.events()
                if ev["type"] == "MechanicNotRead"]
    assert not_read == [("win_points", 301), ("win_points", 302)]

    game.send(ALICE, "what is in force", "SHOW MECHANICS\n")
    shown = body_of(game.wait_subject("Re: what is in force", to=ALICE))
    assert "win_points = 100" in shown and "max_mutable_rules = 25" in shown, shown
    assert "rule 209: “more than 25 mutable rules”" in shown, shown
    assert "preset default" in shown
    assert game.stop() == 0


def test_a_set_in_the_same_proposal_wins_over_the_reading_and_the_host_is_told(
        make_game: MakeGame) -> None:
    game, results = suber_amending_208(make_game, "Both ways", "150 (positive) points",
                                       "SET win_points = 120\n")
    assert "Mechanic win_points is now" not in results, results
    state = game.state()
    assert state.rules_mechanics.win_points == 120
    assert state.set_by["win_points"] == "proposal 301"
    notice = host_notice(game, 1)
    assert ("rule 301 now reads win_points = 150 (“achieve 150 (positive) points”), but the "
            "same proposal sets it to 120, which wins") in notice, notice
    assert game.stop() == 0
