"""Debate before the vote (suber 111, rurru 109, locked-open 111) and voting in turn order
(locked-open 203): the proposer revises and calls the vote, the period runs out, refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.debate import MAX_ARGUMENT, turn_order, waiting_for
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset
from tests.engine.cast import ALICE, BOB, CAROL, DAY, SPEAKER, T0
from tests.engine.harness import Game, amend, enact


@pytest.mark.parametrize(("preset", "debate", "in_order"), [
    ("suber", "proponent", "false"), ("rurru", "proponent", "false"),
    ("locked-open", "period", "true"), ("speaker", "none", "false"),
    ("nomicam", "none", "false"),
])
def test_each_preset_debates_as_its_rules_say(preset: str, debate: str, in_order: str) -> None:
    mechanics = load_preset(preset).mechanics
    assert (mechanics["debate"], mechanics["debate_period"]) == (debate, "2d")
    assert str(mechanics["vote_in_turn_order"]).lower() == in_order


def rurru() -> Game:
    return Game("rurru", [ALICE, BOB, CAROL], mechanics={"debate": "proponent"})


def test_a_rurru_proposal_is_revised_in_debate_and_the_vote_counts_the_revised_text() -> None:
    g = rurru()
    number = g.propose(ALICE, amend(101, "A rurru-change is any change."), title="Changes")
    submitted = g.last(e.ProposalSubmitted)
    assert submitted.debate_until == T0 + 2 * DAY and submitted.closes_at is None
    assert g.state.proposals[number].in_debate

    g.refused(c.CastBallot(BOB, number, Choice.FOR), "in debate", "voting starts when",
              "CALL VOTE 300")
    g.ok(c.DebateProposal(BOB, number, "Say which changes, please."))
    assert g.last(e.DebateContributed).text == "Say which changes, please."
    g.refused(c.ReviseProposal(BOB, number, "Mine instead."), "only proposal 300's proposer",
              "Alice", "DEBATE 300")
    g.refused(c.ReviseProposal(ALICE, number, "x", (amend(999, "no such rule"),)),
              "no rule 999")
    g.refused(c.CallVote(BOB, number), "only proposal 300's proposer")

    g.now += timedelta(hours=5)
    revised = "A rurru-change is the enactment, repeal or amendment of a rurru, or two."
    g.ok(c.ReviseProposal(ALICE, number, "Now clearer.", (amend(101, revised),)))
    proposal = g.state.proposals[number]
    assert proposal.text == "Now clearer." and proposal.first_text == "Text of the proposal."
    assert proposal.clauses == (amend(101, revised),)

    g.now += timedelta(hours=1)
    started = g.of(e.VoteStarted, g.ok(c.CallVote(ALICE, number)))
    assert [(s.how, s.closes_at) for s in started] == [("called", g.now + 7 * DAY)]
    assert not g.state.proposals[number].in_debate

    g.refused(c.ReviseProposal(ALICE, number, "Too late."), "has started",
              "can no longer be revised")
    g.refused(c.CallVote(ALICE, number), "not in debate", "its vote has started")
    g.refused(c.DebateProposal(BOB, number, "More."), "not in debate", "VOTE 300 FOR")
    g.votes(number, alice="FOR", bob="FOR", carol="FOR")
    assert g.last(e.VoteClosed).adopted
    assert g.state.rules[300].text == revised  # the renumbered rule reads the revised text


def test_the_vote_starts_by_itself_when_the_debate_period_runs_out() -> None:
    g = rurru()
    number = g.propose(ALICE, enact("Tea is served."))
    g.later(2 * DAY - timedelta(seconds=1))
    assert g.state.proposals[number].in_debate
    started = g.of(e.VoteStarted, g.later(timedelta(seconds=1)))
    assert [(s.proposal, s.how, s.closes_at) for s in started] == [
        (number, "debate-over", T0 + 9 * DAY)]
    g.vote(BOB, number, "FOR")


def test_locked_open_debates_for_a_period_no_one_shortens() -> None:
    g = Game("locked-open", [ALICE, BOB], mechanics={"debate": "period"})
    number = g.propose(ALICE)
    g.refused(c.CallVote(ALICE, number), "starts by itself", "rule 111")
    g.refused(c.ReviseProposal(ALICE, number, "New."), "form it was distributed", "rule 111")
    g.ok(c.DebateProposal(BOB, number, "Fine by me."))
    g.refused(c.CastBallot(ALICE, number, Choice.FOR), "in debate")
    assert g.of(e.VoteStarted, g.later(2 * DAY))
    g.vote(ALICE, number, "FOR")


def test_without_debate_there_is_nothing_to_revise_or_argue() -> None:
    g = Game("speaker", [ALICE, BOB])
    number = g.propose(ALICE)
    assert g.last(e.ProposalSubmitted).debate_until is None
    g.refused(c.ReviseProposal(ALICE, number, "New."), "form it was distributed")
    g.refused(c.DebateProposal(BOB, number, "Hm."), "voted on at once")
    g.refused(c.CallVote(ALICE, number), "voted on at once")
    g.refused(c.DebateProposal(BOB, 999, "Hm."), "no proposal 999")


def test_an_argument_is_bounded_and_not_empty() -> None:
    g = rurru()
    number = g.propose(ALICE)
    g.refused(c.DebateProposal(BOB, number, "\n  \n"), "holds no argument")
    g.refused(c.DebateProposal(BOB, number, "x" * (MAX_ARGUMENT + 1)),
              f"at most {MAX_ARGUMENT}")
    g.refused(c.DebateProposal("stranger@example.org", number, "Hi."), "not a player")
    g.ok(c.DebateProposal(BOB, number, "x" * MAX_ARGUMENT))
    assert [player for player, _ in g.state.proposals[number].debated] == [BOB]


def test_the_speaker_neither_extends_nor_closes_a_vote_not_begun() -> None:
    g = rurru()
    number = g.propose(ALICE)
    g.refused(c.ExtendVote(SPEAKER, number, DAY), "in debate")
    g.refused(c.CloseVote(SPEAKER, number), "in debate")


def test_in_turn_order_a_ballot_waits_for_the_players_before_it() -> None:
    g = Game("locked-open", [ALICE, BOB, CAROL])
    g.ok(c.SetMechanic(SPEAKER, "debate", "none"))
    number = g.propose(ALICE)  # Alice's turn: she votes first, then Bob, then Carol
    proposal = g.state.proposals[number]
    assert turn_order(g.state, proposal, g.now) == [ALICE, BOB, CAROL]
    g.vote(CAROL, number, "FOR")
    assert waiting_for(g.state, g.state.proposals[number], CAROL, g.now) == [ALICE, BOB]
    g.vote(BOB, number, "FOR")
    assert waiting_for(g.state, g.state.proposals[number], CAROL, g.now) == [ALICE]
    assert waiting_for(g.state, g.state.proposals[number], BOB, g.now) == [ALICE]
    g.dice.load(1)
    g.vote(ALICE, number, "AGAINST")
    closed = g.last(e.VoteClosed)  # every held ballot counted
    assert (closed.for_votes, closed.against_votes) == (2, 1)


def test_in_turn_order_the_order_starts_with_the_proposer_and_held_ballots_count_at_the_end(
) -> None:
    g = Game("locked-open", [ALICE, BOB, CAROL])
    g.ok(c.SetMechanic(SPEAKER, "debate", "none"))
    first = g.propose(ALICE)
    g.dice.load(1)
    g.votes(first, alice="FOR", bob="FOR", carol="FOR")
    assert g.state.turn is not None and g.state.turn.mover == BOB
    number = g.propose(BOB)
    proposal = g.state.proposals[number]
    assert turn_order(g.state, proposal, g.now) == [BOB, CAROL, ALICE]
    g.vote(ALICE, number, "FOR")
    assert waiting_for(g.state, g.state.proposals[number], ALICE, g.now) == [BOB, CAROL]
    closes = g.state.proposals[number].closes_at
    assert closes is not None
    assert waiting_for(g.state, g.state.proposals[number], ALICE, closes) == []
    g.dice.load(1)
    g.later(closes - g.now)
    closed = g.last(e.VoteClosed)
    assert closed.proposal == number and (closed.for_votes, closed.non_voters) == (1, (BOB, CAROL))


def test_in_turn_order_an_absent_player_is_not_waited_for() -> None:
    g = Game("locked-open", [ALICE, BOB, CAROL])
    g.ok(c.SetMechanic(SPEAKER, "debate", "none"))
    g.ok(c.DeclareAbsence(BOB, T0 + 5 * DAY, "away"))
    number = g.propose(ALICE)
    g.vote(CAROL, number, "FOR")
    assert waiting_for(g.state, g.state.proposals[number], CAROL, g.now) == [ALICE]


@given(order=st.permutations([ALICE, BOB, CAROL]),
       choices=st.lists(st.sampled_from(["FOR", "AGAINST"]), min_size=3, max_size=3),
       voting=st.integers(min_value=0, max_value=3))
@settings(max_examples=40, deadline=None)
def test_holding_ballots_in_turn_order_never_changes_a_tally(
        order: list[str], choices: list[str], voting: int) -> None:
    """The same ballots, cast in any order (some never), give the same result with or without
    turn order: a held ballot always counts by the close."""
    closed = []
    for in_order in ("true", "false"):
        g = Game("locked-open", [ALICE, BOB, CAROL],
                 mechanics={"vote_in_turn_order": in_order, "debate": "none"})
        number = g.propose(ALICE)
        g.dice.load(1)
        for voter, choice in list(zip(order, choices, strict=True))[:voting]:
            g.vote(voter, number, choice)
        if not g.of(e.VoteClosed):
            g.later(8 * DAY)
        closed.append(g.last(e.VoteClosed))
    held, free = closed
    assert (held.adopted, held.ballots, held.non_voters, held.for_votes) == (
        free.adopted, free.ballots, free.non_voters, free.for_votes)
