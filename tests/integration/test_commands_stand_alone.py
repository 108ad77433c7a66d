"""Each command of a message stands alone, through the running daemon (issue 39).

A Judge's valid JUDGEMENT was dropped because the same mail held a VOTE the Speaker may not
cast: now the JUDGEMENT is delivered and the VOTE refused, both in one reply. A message
with a line not understood at all is still applied not at all.
"""

from __future__ import annotations

from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, body_of
from tests.support.patience import period

ALICE, BOB = "alice@nomic.test", "bob@nomic.test"
MECHANICS = {"voting_period": period(600), "reminder_before": "none", "win_points": "1000"}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _with_301(make_game: MakeGame) -> RunningGame:
    """A nomicam game of Alice and Bob, run by the daemon, with Alice's proposal 301 open."""
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Three days",
              'Amend Rule 205 by replacing "one week" with "three days".\n')
    game.wait_subject("Proposal 301: Three days")
    return game


def test_a_judgement_is_delivered_though_the_same_message_holds_a_refused_vote(
        make_game: MakeGame) -> None:
    game = _with_301(make_game)
    game.send(BOB, "CFJ: Rule 205 is too slow", "")
    game.wait_subject("CFJ 1")
    assert game.state().cfjs[1].judge == SPEAKER  # a Voter's CFJ: the Speaker judges

    game.send(SPEAKER, "my judgement", "JUDGEMENT 1 TRUE\nVOTE 301 FOR\n")
    reply = _flat(body_of(game.wait_subject("Re: my judgement", to=SPEAKER)))
    assert ("Each command was applied on its own; 1 was refused and changed nothing, the "
            "others were done") in reply
    assert "line 2: VOTE 301 FOR Refused: the Speaker may not vote" in reply
    assert game.state().cfjs[1].judgement is not None
    assert game.state().proposals[301].ballots == {}
    assert len(game.sent("Re: my judgement")) == 1
    assert game.stop() == 0


def test_a_message_with_a_line_not_understood_is_applied_not_at_all(
        make_game: MakeGame) -> None:
    game = _with_301(make_game)
    game.send(BOB, "votes", "VOTE 301 FOR\nVOET 301 AGAINST\n")
    reply = _flat(body_of(game.wait_subject("Re: votes", to=BOB)))
    assert "Nothing in your message was done" in reply
    assert "line 2: VOET 301 AGAINST" in reply and "did you mean VOTE?" in reply
    assert game.state().proposals[301].ballots == {}
    assert game.stop() == 0


def test_plain_words_get_the_exact_command_back_and_change_nothing(
        make_game: MakeGame) -> None:
    game = _with_301(make_game)
    events = len(list(game.events()))
    game.send(BOB, "my vote", "I vote against 301.\nCheers, Bob\n")
    reply = _flat(body_of(game.wait_subject("Re: my vote", to=BOB)))
    assert "Your message held no commands, so nothing was done" in reply
    assert "line 1: I vote against 301. VOTE 301 AGAINST" in reply
    assert game.state().proposals[301].ballots == {}
    assert len(list(game.events())) == events  # nothing recorded
    assert game.stop() == 0
