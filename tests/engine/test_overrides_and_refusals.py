"""The human Speaker's overrides (recorded and public), and commands the rules refuse."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from speakerbot.engine import GameState, apply, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import Choice, Clause, ClauseKind, Judgement, ProposalStatus
from speakerbot.mail.outbound.wording import clause_failure_text, refusal_text
from speakerbot.presets import load_preset
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, DAY, ERIN, SPEAKER, T0
from tests.engine.harness import Game, amend, enact, nomicam, repeal, set_, transmute


def test_every_override_is_recorded_public_and_carried_out() -> None:
    g = nomicam()
    number = g.propose(ALICE)
    other = g.propose(BOB)
    g.ok(c.CallForJudgement(CAROL, "A question."))
    overrides: list[tuple[c.Command, Callable[[Game], bool]]] = [
        (c.AddPlayer(SPEAKER, "Fred@Example.org", "Fred"),
         lambda g: g.state.players["fred@example.org"].name == "Fred"),
        (c.RemovePlayer(SPEAKER, "Fred", "asked to leave"),
         lambda g: not g.state.players["fred@example.org"].active),
        (c.AdjustScore(SPEAKER, "Alice", Decimal(-3), "rudeness"), lambda g: g.score(ALICE) == -3),
        (c.SetMechanic(SPEAKER, "quorum_percent", "40"),
         lambda g: g.state.rules_mechanics.quorum_percent == 40),
        (c.ExtendVote(SPEAKER, number, DAY),
         lambda g: g.state.proposals[number].closes_at == g.now + 8 * DAY),
        (c.VoidProposal(SPEAKER, other, "duplicate"),
         lambda g: g.state.proposals[other].status is ProposalStatus.VOID),
        (c.EditRule(SPEAKER, amend(101, "Edited by the Speaker.")),
         lambda g: g.state.rules[101].text == "Edited by the Speaker."),  # even immutable
        (c.EditRule(SPEAKER, Clause(ClauseKind.ENACT, None, "A new rule.")),
         lambda g: g.state.rules[220].text == "A new rule."),  # below the proposal numbers
        (c.EditRule(SPEAKER, transmute(220)), lambda g: not g.state.rules[220].mutable),
        (c.EditRule(SPEAKER, repeal(220)), lambda g: 220 not in g.state.rules),
        (c.AssignJudge(SPEAKER, 1, "dave@example.org"), lambda g: g.state.cfjs[1].judge == DAVE),
        (c.CloseVote(SPEAKER, number),
         lambda g: g.state.proposals[number].status is not ProposalStatus.OPEN),
        (c.HandSpeaker(SPEAKER, "Erin"), lambda g: g.state.speaker == ERIN),
        (c.EndGame(ERIN, "we are done"), lambda g: g.state.ended),
    ]
    for command, done in overrides:
        events = g.ok(command)
        assert isinstance(events[0], e.SpeakerOverride) and events[0].public, command
        assert events[0].speaker == command.actor
        assert done(g), command
    summaries = [o.summary for o in g.of(e.SpeakerOverride)]
    assert "changed Alice's score by -3: rudeness" in summaries
    assert "extended the vote on proposal 301 by 1d" in summaries


@pytest.mark.parametrize(
    "command",
    [
        c.AddPlayer(ALICE, "x@example.org", "X"),
        c.AdjustScore(BOB, "Alice", Decimal(5)),
        c.SetMechanic(ALICE, "quorum_percent", "0"),
        c.CloseVote(ALICE, 301),
        c.EditRule(ALICE, repeal(201)),
        c.HandSpeaker(ALICE, "Alice"),
        c.EndGame(ALICE),
    ],
)
def test_only_the_speaker_may_override(command: c.Command) -> None:
    g = nomicam()
    g.propose(ALICE)
    g.refused(command, "only the Speaker")


REFUSALS: list[tuple[str, Callable[[Game], c.Command], str]] = [
    ("unknown proposal", lambda g: c.CastBallot(ALICE, 999, Choice.FOR), "no proposal 999"),
    ("not a player", lambda g: c.CastBallot("zed@example.org", 301, Choice.FOR), "not a player"),
    ("empty title", lambda g: c.Propose(ALICE, "  ", "text"), "needs a title"),
    ("no text", lambda g: c.Propose(ALICE, "Title", "  "), "no text"),
    ("missing rule", lambda g: c.Propose(ALICE, "T", "", (repeal(999),)), "no rule 999"),
    ("two clauses one rule", lambda g: c.Propose(ALICE, "T", "", (amend(201, "A."), repeal(201))),
     "changed by two clauses"),
    ("two enactments", lambda g: c.Propose(ALICE, "T", "", (enact("A."), enact("B."))),
     "would give 2 rules the number 302"),
    ("empty amendment", lambda g: c.Propose(ALICE, "T", "", (amend(201, " "),)), "new full text"),
    ("no-op amendment",
     lambda g: c.Propose(ALICE, "T", "", (amend(202, g.state.rules[202].text),)),
     "no difference"),
    ("unknown mechanic", lambda g: c.Propose(ALICE, "T", "", (set_("speed", "3"),)),
     "no mechanic called 'speed'"),
    ("bad value", lambda g: c.Propose(ALICE, "T", "", (set_("quorum_percent", "120"),)),
     "from 0 to 100"),
    ("bad duration", lambda g: c.Propose(ALICE, "T", "", (set_("voting_period", "soon"),)),
     "duration"),
    ("structural mechanic", lambda g: c.Propose(ALICE, "T", "", (set_("flow", "turns"),)),
     "cannot be set"),
    ("taken name", lambda g: c.Join("new@example.org", "alice"), "taken"),
    ("bad address", lambda g: c.Join("not-an-address", "Newbie"), "not an email address"),
    ("already a player", lambda g: c.Join(ALICE, "Alice Again"), "already a player"),
    ("late consent", lambda g: c.DeclareConsent(SPEAKER, 999, False), "no proposal 999"),
    ("unknown CFJ", lambda g: c.DeliverJudgement(SPEAKER, 7, Judgement.TRUE), "no CFJ 7"),
    ("empty CFJ", lambda g: c.CallForJudgement(ALICE, "   "), "needs a statement"),
    ("overrule elsewhere", lambda g: c.Overrule(ALICE, 1), "no overrule"),
    ("zero score change", lambda g: c.AdjustScore(SPEAKER, "Alice", Decimal(0)), "other than zero"),
    ("unknown player", lambda g: c.AdjustScore(SPEAKER, "Nobody", Decimal(1)), "no player"),
    ("negative extension", lambda g: c.ExtendVote(SPEAKER, 301, -DAY), "longer than zero"),
    ("speaker leaves", lambda g: c.Forfeit(SPEAKER), "hand the Speaker role"),
    ("closed vote", lambda g: c.CloseVote(SPEAKER, 300), "no proposal 300"),
    ("repeal immutable", lambda g: c.Propose(ALICE, "T", "", (repeal(101),)), "immutable"),
]


@pytest.mark.parametrize(("case", "make", "fragment"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refused_commands_say_why_and_change_nothing(
    case: str, make: Callable[[Game], c.Command], fragment: str
) -> None:
    g = nomicam()
    g.propose(ALICE)
    rejection = g.refused(make(g), fragment)
    assert not rejection.public and rejection.recipients() == (make(g).actor,)


def test_a_forfeited_player_cannot_rejoin_by_mail_but_the_speaker_may_add_them() -> None:
    g = nomicam()
    g.ok(c.Forfeit(BOB))
    g.refused(c.Join(BOB, "Bob"), "left this game")
    g.ok(c.AddPlayer(SPEAKER, BOB, "Bob"))


def test_closed_registration_refuses_join() -> None:
    g = Game("nomicam", [ALICE], open_registration=False)
    g.refused(c.Join("new@example.org", "Newbie"), "ask the Speaker")


def test_before_a_game_starts_everything_is_refused_and_time_does_nothing() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    _, events = apply(GameState(), c.Join(ALICE, "Alice"), now)
    assert isinstance(events[0], e.CommandRejected)
    assert "no game has started" in refusal_text(events[0])[0]
    assert tick(GameState(), now) == (GameState(), [])


def test_times_must_be_timezone_aware() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        apply(GameState(), c.Join(ALICE, "Alice"), datetime(2026, 1, 1))


def test_a_second_start_is_refused() -> None:
    g = nomicam()
    g.refused(c.StartGame(SPEAKER, load_preset("suber"), "Chuck"), "already running")


def test_start_refuses_an_unknown_or_bad_mechanic_override() -> None:
    for overrides, fragment in (({"speed": "1"}, "no mechanic called 'speed'"),
                                ({"voting_period": "soon"}, "voting_period")):
        state, events = apply(GameState(), c.StartGame(SPEAKER, load_preset("nomicam"), "Chuck",
                                                       mechanics=overrides), T0)
        assert state == GameState() and isinstance(events[0], e.CommandRejected)
        assert fragment in refusal_text(events[0])[0]


def test_closing_twice_and_ticking_twice_change_nothing() -> None:
    g = nomicam()
    g.propose(ALICE)
    g.later(7 * DAY)
    assert g.later(timedelta(0)) == []
    state_before = g.state
    state, events = tick(g.state, g.now + DAY)
    assert events == [] and state is state_before


def test_a_clause_that_cannot_be_carried_out_at_adoption_is_reported() -> None:
    g = nomicam()
    first = g.propose(ALICE, repeal(212), title="Repeal 212")
    second = g.propose(BOB, amend(212, "Changed."), title="Amend 212")
    for number in (first, second):
        g.vote(CAROL, number, "FOR")
    g.later(7 * DAY)
    failed = g.last(e.ClauseFailed)
    assert failed.proposal == second and "no rule 212" in clause_failure_text(failed)
