"""The answers to lookups (speakerbot.mail.outbound.lookups), from scripted games' states and
public records: every public event in one line, rule histories, and sealed ballots."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_to_json
from speakerbot.engine.events import EVENT_TYPES
from speakerbot.engine.model import Clause, ClauseKind, Judgement
from speakerbot.mail.outbound import lookups
from speakerbot.mail.outbound.compose import Renderer
from speakerbot.mail.outbound.sentences import SENTENCES
from speakerbot.resources import templates_dir
from tests.engine import harness
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game
from tests.support.mailgame import ballot_leaks

RENDERER = Renderer(templates_dir())
VOTERS = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}


@pytest.fixture(autouse=True)
def _forget_games() -> Iterator[None]:
    yield
    harness.ALL_GAMES.clear()


def record(game: Game) -> list[dict[str, Any]]:
    """The game's public record, as GameService.public_record gives it."""
    return list(chain.extend(chain.Head(), (event_to_json(ev) for ev in game.events
                                            if ev.public)))


def amend(rule: int, text: str) -> Clause:
    return Clause(ClauseKind.AMEND, rule, text)


# --- One line an event ---------------------------------------------------------------------


def test_every_public_kind_of_event_has_its_own_line() -> None:
    public = {kind for kind in EVENT_TYPES.values() if kind.public}
    said = {kind for kind, sentence in SENTENCES.items() if sentence.said or sentence.recorded}
    assert public - said == set(), "said only by its class name"


@pytest.mark.parametrize("kind", [k for k in EVENT_TYPES.values() if not k.public],
                         ids=lambda k: k.__name__)
def test_a_private_event_has_no_public_line(kind: type[e.Event]) -> None:
    game = Game("nomicam", [ALICE, BOB])
    game.propose(ALICE, amend(205, "Votes last a day."))
    ballot = game.vote(BOB, 301, "FOR")[0]
    assert isinstance(ballot, e.BallotCast)
    if kind is e.BallotCast:
        with pytest.raises(ValueError, match="private"):
            lookups.describe_event(ballot)
    assert not kind.public


def test_a_played_game_is_told_line_by_line_by_name() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL])
    game.propose(ALICE, amend(205, "Votes last a day."), title="Short\nvotes")
    game.votes(301, alice="FOR", bob="FOR", carol="AGAINST")
    game.later(timedelta(days=8))
    game.ok(c.CallForJudgement(CAROL, "Rule 205 is silly", "", False))
    lines = record(game)
    names = lookups.names_in(game.state)
    said = [lookups.describe_line(line, names) for line in lines]
    assert len(said) == len(lines)
    for text, line in zip(said, lines, strict=True):
        assert "\n" not in text
        assert text.startswith(f"#{line['seq']}  2026-")
        assert line["type"] not in text, text  # said in words, not by the class name
    assert any("Proposal 301 “Short votes” submitted by Alice" in text for text in said)
    assert any("Proposal 301 ADOPTED: 2 FOR, 1 AGAINST" in text for text in said)
    assert any("CFJ 1 called by Carol: Rule 205 is silly" in text for text in said)
    played = [text for text, line in zip(said, lines, strict=True)
              if line["type"] in ("ProposalSubmitted", "ScoreChanged", "CfjCalled")]
    assert played and not any("@" in text for text in played)  # players by name


def test_a_line_of_an_unknown_kind_is_said_in_words() -> None:
    line = {"seq": 7, "type": "ReceiptsPublished", "at": "2026-01-05T12:00:00+00:00",
            "prev": "0" * 64, "hash": "1" * 64}
    assert lookups.describe_line(line) == "#7  2026-01-05T12:00:00+00:00  Receipts published"


# --- SHOW PROPOSAL -------------------------------------------------------------------------


def test_an_open_proposal_shows_nothing_of_its_ballots() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL])
    game.propose(ALICE, amend(205, "Votes last a day."), title="Short votes")
    before = lookups.show_proposal(RENDERER, game.state, 301, record(game))
    game.vote(BOB, 301, "FOR")
    game.vote(CAROL, 301, "AGAINST")
    game.vote(BOB, 301, "AGAINST")
    after = lookups.show_proposal(RENDERER, game.state, 301, record(game))
    assert after == before, "the answer changed with the ballots"
    assert "Votes last a day." in after and "Changes to the rule's text:" in after
    assert "Voting is open until 2026-01-12 12:00 UTC." in after
    assert ballot_leaks(after, (ALICE, BOB), VOTERS) == []


def test_a_closed_proposal_shows_its_result_and_every_ballot() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL])
    game.propose(ALICE, amend(205, "Votes last a day."), title="Short votes")
    game.votes(301, alice="FOR", bob="FOR", carol="AGAINST")
    game.later(timedelta(days=8))
    text = lookups.show_proposal(RENDERER, game.state, 301, record(game))
    assert "Result: ADOPTED" in text
    assert "Tally: 2 FOR, 1 AGAINST (3 cast, 3 eligible)." in text
    for name, choice in (("Alice", "FOR"), ("Bob", "FOR"), ("Carol", "AGAINST")):
        assert any(line.split() == [name, choice] for line in text.splitlines()), name
    assert "Rule 205 amended by proposal 301" in text


def test_a_void_proposal_keeps_its_ballots_sealed() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL])
    game.propose(ALICE, amend(205, "Votes last a day."))
    game.votes(301, bob="FOR", carol="AGAINST")
    game.ok(c.VoidProposal(SPEAKER, 301, "a typo"))
    text = lookups.show_proposal(RENDERER, game.state, 301, record(game))
    assert "This proposal is void" in text and "voided: a typo" in text
    assert "FOR" not in text.replace("Changes to", "") and "AGAINST" not in text
    assert ballot_leaks(text, (ALICE,), VOTERS) == []


@pytest.mark.parametrize(("what", "number", "expected"), [
    ("proposal", 99999, "There is no proposal 99999: the only one is proposal 301."),
    ("rule", 9999, "There is no rule 9999. The rules are numbered 101 to 219."),
    ("cfj", 1, "There is no CFJ 1: there are none yet."),
])
def test_what_does_not_exist_is_said_plainly(what: str, number: int, expected: str) -> None:
    game = Game("nomicam", [ALICE, BOB])
    game.propose(ALICE, amend(205, "Votes last a day."))
    lines = record(game)
    answer = {"proposal": lambda: lookups.show_proposal(RENDERER, game.state, number, lines),
              "rule": lambda: lookups.show_rule(RENDERER, game.state, number),
              "cfj": lambda: lookups.show_cfj(RENDERER, game.state, number, lines)}[what]()
    assert answer.startswith(expected)


# --- SHOW RULE -----------------------------------------------------------------------------


def renumbered() -> Game:
    """Rule 205, amended by proposal 301, becomes rule 301; then the Speaker transmutes it."""
    game = Game("nomicam", [ALICE, BOB, CAROL], mechanics={"renumber_on_amend": "true"})
    game.propose(ALICE, amend(205, "Votes close when all have voted."), title="Faster")
    game.votes(301, alice="FOR", bob="FOR", carol="FOR")
    game.later(timedelta(days=8))
    assert 301 in game.state.rules and 205 not in game.state.rules
    game.ok(c.EditRule(SPEAKER, Clause(ClauseKind.TRANSMUTE, 301)))
    return game


def test_a_rule_shows_its_whole_history() -> None:
    game = renumbered()
    text = lookups.show_rule(RENDERER, game.state, 301)
    assert text.startswith("Rule 301 (immutable)\n  Votes close when all have voted.")
    history = text.split("History of rule 301:\n", 1)[1]
    steps = [line for line in history.splitlines() if line.startswith("- ")]
    assert steps[0].startswith("- In the initial ruleset (nomicam), 2026-01-05 12:00 UTC")
    assert steps[1].startswith("- Amended by proposal 301 (“Faster”), 2026-01-13 12:00 UTC,")
    assert "renumbered from rule 205 to rule 301" in history
    assert steps[2].startswith("- Made immutable by the Speaker")
    assert "+ Votes close when all have voted." in history  # the amendment's diff


def test_an_old_number_finds_the_rule_and_a_repealed_rule_is_shown() -> None:
    game = renumbered()
    assert lookups.show_rule(RENDERER, game.state, 205).startswith(
        "Rule 205 is now rule 301.\n\nRule 301 (immutable)")
    game.ok(c.EditRule(SPEAKER, Clause(ClauseKind.TRANSMUTE, 301)))
    game.ok(c.EditRule(SPEAKER, Clause(ClauseKind.REPEAL, 301)))
    text = lookups.show_rule(RENDERER, game.state, 301)
    assert text.startswith("Rule 301 (mutable) was repealed. It last read:")
    assert "- Made mutable by the Speaker" in text
    assert text.rstrip().endswith("- Repealed by the Speaker, 2026-01-13 12:00 UTC.")


# --- SHOW CFJ and HISTORY -------------------------------------------------------------------


def test_a_cfj_shows_its_judges_judgement_and_reasons() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL])
    game.ok(c.CallForJudgement(CAROL, "Rule 205 is silly", "It says a week.", False))
    game.ok(c.DeliverJudgement(SPEAKER, 1, Judgement.FALSE, "A week is fine."))
    text = lookups.show_cfj(RENDERER, game.state, 1, record(game))
    assert text.startswith("CFJ 1, called by Carol on 2026-01-05 12:00 UTC:\n  Rule 205 is silly")
    assert "Arguments:\n  It says a week." in text
    assert "Judges, in turn: Chuck." in text
    assert "Judgement: FALSE, by Chuck" in text and "Reasons:\n  A week is fine." in text
    assert "CFJ 1 judged FALSE by Chuck" in text


@pytest.mark.parametrize(("asked", "shown", "note"), [
    (3, 3, False), (1, 1, False), (100, None, False), (99999999, None, True),
])
def test_history_sends_the_last_events_and_says_when_it_cut(asked: int, shown: int | None,
                                                          note: bool) -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL])
    for number in range(40):
        game.ok(c.AdjustScore(SPEAKER, ALICE, Decimal(1), f"point {number}"))
    lines = record(game)
    text = lookups.history(RENDERER, lines, asked, lookups.names_in(game.state), limit=100)
    events = [line for line in text.splitlines() if line.startswith("  #")]
    assert len(events) == (shown if shown is not None else min(100, len(lines)))
    assert events[-1].startswith(f"  #{len(lines)}  ")
    assert ("HISTORY sends at most 100 events" in text) is note
