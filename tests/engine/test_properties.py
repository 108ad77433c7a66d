"""Property-based tests of the tally, the quorum, sealed ballots, and random play."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.engine.mechanics import Adoption, CountBasis, Mechanics
from speakerbot.engine.model import Choice, Judgement
from speakerbot.engine.tally import count_vote
from speakerbot.presets import PRESET_NAMES, load_preset
from tests.engine.cast import SPEAKER
from tests.engine.harness import Dice, Game, amend, enact, public_events, repeal, set_

PLAYERS = [f"p{i}@example.org" for i in range(8)]
FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def vote_setups(draw: st.DrawFn) -> dict[str, Any]:
    base = Mechanics.from_strings(load_preset(draw(st.sampled_from(PRESET_NAMES))).mechanics)
    mechanics = dataclasses.replace(
        base,
        adoption=draw(st.sampled_from(list(Adoption))),
        count_basis=draw(st.sampled_from(list(CountBasis))),
        transmute_basis=draw(st.sampled_from(list(CountBasis))),
        quorum_percent=draw(st.integers(0, 100)),
        speaker_consent=draw(st.booleans()),
        refused_consent_threshold=draw(st.sampled_from(
            [Fraction(1, 2), Fraction(2, 3), Fraction(3, 4), Fraction(1)])),
    )
    eligible = PLAYERS[: draw(st.integers(0, len(PLAYERS)))]
    ballots = {
        voter: choice for voter in eligible
        if (choice := draw(st.sampled_from([Choice.FOR, Choice.AGAINST, None]))) is not None
    }
    return {
        "ballots": ballots, "eligible": eligible, "mechanics": mechanics,
        "quorum_base": draw(st.integers(0, 12)),
        "unanimity_for_transmutation": draw(st.booleans()),
        "consent_refused": draw(st.booleans()),
    }


@given(vote_setups())
@settings(max_examples=400)
def test_adoption_never_decreases_when_a_ballot_changes_from_against_to_for(
    setup: dict[str, Any]
) -> None:
    before = count_vote(**setup)
    for voter, choice in setup["ballots"].items():
        if choice is Choice.AGAINST:
            changed = dict(setup, ballots={**setup["ballots"], voter: Choice.FOR})
            after = count_vote(**changed)
            assert after.adopted or not before.adopted, (voter, before, after)
            assert after.quorum_reached == before.quorum_reached


@given(vote_setups())
@settings(max_examples=200)
def test_quorum_depends_only_on_the_ballots_cast_and_the_base(setup: dict[str, Any]) -> None:
    tally = count_vote(**setup)
    cast = len(setup["ballots"])
    needed = -(-setup["quorum_base"] * setup["mechanics"].quorum_percent // 100)
    assert (tally.quorum_needed, tally.quorum_reached) == (needed, cast >= needed)
    if not tally.quorum_reached:
        assert not tally.adopted


@FAST
@given(
    at_start=st.integers(1, 8),
    joining=st.integers(0, 8),
    leaving=st.integers(0, 3),
    cast=st.integers(0, 16),
)
def test_quorum_is_counted_on_the_voters_at_the_start_of_the_period(
    at_start: int, joining: int, leaving: int, cast: int
) -> None:
    g = Game("nomicam")
    for address in PLAYERS[:at_start]:
        g.ok(c.AddPlayer(SPEAKER, address, address.split("@")[0]))
    number = g.propose(SPEAKER)
    for i in range(joining):
        g.ok(c.AddPlayer(SPEAKER, f"late{i}@example.org", f"late{i}"))
    for address in PLAYERS[: min(leaving, at_start - 1)]:
        g.ok(c.Forfeit(address))
    voters = g.state.voters()
    for voter in voters[:cast]:
        g.vote(voter, number, "FOR")
    g.later(timedelta(days=7))
    closed = g.last(e.VoteClosed)
    needed = -(-at_start * 20 // 100)
    assert (closed.quorum_base, closed.quorum_needed) == (at_start, needed)
    assert closed.quorum_reached == (min(cast, len(voters)) >= needed)


ballot_lists = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from(["FOR", "AGAINST", "ABSTAIN"])), max_size=12
)


def _public_before_close(preset: str, ballots: list[tuple[int, str]], refuse: bool) -> list[Any]:
    voters = PLAYERS[:5]
    g = Game(preset)
    for address in voters:
        g.ok(c.AddPlayer(SPEAKER, address, address.split("@")[0]))
    if g.state.turn is not None:
        number = g.propose(g.state.turn.mover)
    else:
        number = g.propose(voters[0])
        if refuse:
            g.ok(c.DeclareConsent(SPEAKER, number, consent=False))
    g.dice.load(1)  # the die thrown when a turn-based vote closes
    for voter, choice in ballots:
        if g.of(e.VoteClosed):
            break  # everyone has voted: a turn-based vote closes at once
        g.now += timedelta(minutes=7)
        g.vote(voters[voter], number, choice)
    g.later(timedelta(days=8))
    closes = [i for i, event in enumerate(g.events) if isinstance(event, e.VoteClosed)]
    assert closes, "the vote must close"
    return public_events(g.events[: closes[0]])


@FAST
@given(preset=st.sampled_from(["nomicam", "speaker"]), first=ballot_lists, second=ballot_lists,
       refuse=st.booleans())
def test_nothing_public_before_close_depends_on_the_ballots_open_flow(
    preset: str, first: list[tuple[int, str]], second: list[tuple[int, str]], refuse: bool
) -> None:
    # Pad both ballot lists to the same length with ballots at the same times, so that only
    # who voted and how differ between the two runs.
    length = max(len(first), len(second))
    first = first + [(0, "ABSTAIN")] * (length - len(first))
    second = second + [(0, "ABSTAIN")] * (length - len(second))
    assert _public_before_close(preset, first, refuse) == _public_before_close(
        preset, second, not refuse)


@FAST
@given(preset=st.sampled_from(["suber", "locked-open", "rurru"]), data=st.data())
def test_nothing_public_before_close_depends_on_the_choices_turn_flow(
    preset: str, data: st.DataObject
) -> None:
    # In the turn-based presets a vote closes when everyone has voted, so the same voters
    # vote in the same order in both runs; only the choices differ.
    order = data.draw(st.lists(st.integers(0, 4), max_size=10))
    first = [(v, data.draw(st.sampled_from(["FOR", "AGAINST"]))) for v in order]
    second = [(v, data.draw(st.sampled_from(["FOR", "AGAINST"]))) for v in order]
    assert _public_before_close(preset, first, False) == _public_before_close(
        preset, second, False)


# --- random play: whatever arrives, the engine answers and the record replays ---------------

ACTORS = [SPEAKER, *PLAYERS[:4], "stranger@example.org"]
KINDS = [*["propose"] * 5, *["ballot"] * 8, "cfj", "judge", "judge", "overrule", "agree", "consent",
         "forfeit", "join", "close", "extend", "void", "assign", "hand", "score", "edit", "setting"]


@st.composite
def steps(draw: st.DrawFn) -> tuple[str, int, int, bool, Any, int]:
    """A step's intent, resolved against the game as it stands when the step is played."""
    clause = draw(st.sampled_from([
        enact("New rule."), enact("Fixed.", immutable=True),
        amend(draw(st.sampled_from([116, 201, 202, 203, 208, 210, 301, 999])), "Changed."),
        repeal(draw(st.sampled_from([101, 201, 202, 209, 301, 999]))),
        set_("win_points", draw(st.sampled_from(["20", "0", "x"]))),
        set_("adoption", "majority"), set_("quorum_percent", "50"),
    ]))
    return (draw(st.sampled_from(KINDS)), draw(st.integers(0, 9)), draw(st.integers(0, 9)),
            draw(st.booleans()), clause, draw(st.integers(0, 4 * 24 * 60)))


def resolve(g: Game, step: tuple[str, int, int, bool, Any, int]) -> c.Command:
    """Turn an intent into a command: mostly sensible, sometimes from the wrong person."""
    kind, who, which, flag, clause, _ = step
    state = g.state
    players = [p.address for p in state.active_players()] or [SPEAKER]
    actor = players[who % len(players)] if who < 8 else ACTORS[who % len(ACTORS)]
    overrides = ("close", "extend", "void", "assign", "hand", "score", "edit", "setting")
    if kind in overrides and who < 7:
        actor = state.speaker
    if kind == "propose" and state.turn is not None and who < 7:
        actor = state.turn.mover
    open_numbers = [p.number for p in state.open_proposals()] or [state.next_proposal]
    number = open_numbers[which % len(open_numbers)]
    cfj = which % max(state.next_cfj, 1) + (0 if which < 8 else 1)
    target = players[which % len(players)]
    choice = [Choice.FOR, Choice.FOR, Choice.AGAINST, Choice.ABSTAIN][which % 4]
    commands: dict[str, c.Command] = {
        "propose": c.Propose(actor, "Title", "Text.", (clause,) if flag else ()),
        "ballot": c.CastBallot(actor, number, choice),
        "cfj": c.CallForJudgement(actor, "Is it so?", paradox=flag and which == 0),
        "judge": c.DeliverJudgement(
            state.cfjs[cfj].judge or actor if cfj in state.cfjs and who < 7 else actor, cfj,
            [Judgement.TRUE, Judgement.FALSE, Judgement.UNDECIDED][which % 3]),
        "overrule": c.Overrule(actor, cfj),
        "agree": c.AgreeToNextTurn(actor),
        "consent": c.DeclareConsent(state.speaker if who < 5 else actor, number, flag),
        "forfeit": c.Forfeit(actor),
        "join": c.Join(f"new{which}@example.org" if flag else actor, f"New {which}"),
        "close": c.CloseVote(actor, number),
        "extend": c.ExtendVote(actor, number, timedelta(hours=which - 1)),
        "void": c.VoidProposal(actor, number),
        "assign": c.AssignJudge(actor, cfj, target),
        "hand": c.HandSpeaker(actor, target),
        "score": c.AdjustScore(actor, target, Decimal([0, 60, -5, 30][which % 4])),
        "edit": c.EditRule(actor, clause),
        "setting": c.SetMechanic(actor, "voting_period", ["1d", "x", "3h"][which % 3]),
    }
    return commands[kind]


class SeededDice(Dice):
    def __init__(self, values: list[int]) -> None:
        super().__init__()
        self.values = values
        self.i = 0

    def randint(self, a: int, b: int) -> int:
        self.i += 1
        return a + self.values[self.i % len(self.values)] % (b - a + 1)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESET_NAMES),
    plan=st.lists(steps(), max_size=50),
    dice=st.lists(st.integers(0, 1000), min_size=1, max_size=5),
)
def test_random_play_never_crashes_and_always_replays(
    preset: str, plan: list[tuple[str, int, int, bool, Any, int]], dice: list[int]
) -> None:
    g = Game(preset, mechanics={"judge_period": "3d"})
    g.dice = SeededDice(dice)
    for address in PLAYERS[:4]:
        g.ok(c.AddPlayer(SPEAKER, address, address.split("@")[0]))
    for step in plan:
        g.later(timedelta(minutes=step[-1]))
        given, record = g.state, list(g.events)
        g.send(resolve(g, step))
        # apply never changes the state it was given (states share closed proposals).
        assert given == replay(record)
    g.check_replay()
