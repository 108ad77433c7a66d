"""NomiCam (and its earlier copy, the speaker preset): open proposals, sealed one-week votes,
quorum, Speaker consent, 211 scoring, random Judges with deadlines, a new game on each win."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.model import Choice, Judgement, ProposalStatus, Role
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, DAY, ERIN, SPEAKER, VOTERS
from tests.engine.harness import amend, enact, nomicam, set_, transmute


def test_the_configured_speaker_is_named_in_rule_104_and_is_a_player_who_cannot_vote() -> None:
    g = nomicam()
    assert "The Speaker for the first game shall be Chuck." in g.state.rules[104].text
    assert g.state.players[SPEAKER].role is Role.SPEAKER
    assert g.state.voters() == VOTERS
    number = g.propose(SPEAKER, title="The Speaker may propose")
    g.refused(c.CastBallot(SPEAKER, number, Choice.FOR), "Speaker may not vote", "rule 206")


def test_a_vote_runs_one_week_with_changeable_sealed_ballots_and_211_scoring() -> None:
    g = nomicam()
    first = g.propose(ALICE, amend(202, "All players begin with 0 points."), title="Zero")
    informal = g.propose(SPEAKER, title="Tea at four")
    assert (first, informal) == (301, 302)
    g.votes(first, alice="FOR", bob="AGAINST", carol="AGAINST", dave="FOR")
    g.vote(BOB, first, "FOR")  # a later ballot replaces the earlier one
    g.vote(DAVE, first, "ABSTAIN")  # withdraws the ballot: an abstention
    assert g.state.proposals[first].status is ProposalStatus.OPEN
    g.step(6 * DAY - timedelta(minutes=1))

    reminders = g.later(timedelta(minutes=1))  # 24 hours before the end
    # One reminder each: Dave and Erin owe both votes, the others the informal one.
    assert {(r.player, len(r.owed)) for r in g.of(pe.Reminded, reminders)} == {
        (DAVE, 2), (ERIN, 2), (ALICE, 1), (BOB, 1), (CAROL, 1)}
    assert g.reminded(reminders) == {(first, DAVE), (first, ERIN)} | {(informal, v) for v in VOTERS}

    closing = g.later(DAY)
    first_result, informal_result = g.of(e.VoteClosed, closing)
    assert first_result.adopted and first_result.ballots == (
        (ALICE, Choice.FOR), (BOB, Choice.FOR), (CAROL, Choice.AGAINST))
    assert first_result.non_voters == (DAVE, ERIN)
    assert (first_result.quorum_base, first_result.quorum_needed) == (5, 1)
    assert "simple majority of votes cast" in first_result.requirement
    assert not informal_result.adopted and informal_result.reason.startswith("quorum not reached")
    assert g.state.rules[202].text == "All players begin with 0 points."  # keeps its number (109)
    assert g.of(e.InformalProposalAdopted) == []
    assert g.scores() == {SPEAKER: -10, ALICE: 10, BOB: 0, CAROL: 5, DAVE: 0, ERIN: 0}
    g.refused(c.CastBallot(ERIN, first, Choice.FOR), "vote on proposal 301 is over")


def test_for_voters_on_a_rejected_proposal_gain_five() -> None:
    g = nomicam()
    number = g.propose(BOB, title="Bad idea")
    g.votes(number, alice="FOR", carol="AGAINST", dave="AGAINST")
    g.later(7 * DAY)
    assert g.scores()[ALICE] == 5 and g.scores()[BOB] == -10 and g.scores()[CAROL] == 0


def test_a_ballot_received_after_the_deadline_is_refused_even_before_the_close_runs() -> None:
    g = nomicam()
    number = g.propose(ALICE)
    g.now += 7 * DAY  # the daemon was down: nothing has ticked
    g.refused(c.CastBallot(BOB, number, Choice.FOR), "after the voting period", "does not count")
    g.later(timedelta(0))
    assert g.last(e.VoteClosed).ballots == ()


def test_quorum_is_counted_on_the_voters_at_the_start_of_the_voting_period() -> None:
    g = nomicam()
    early = g.propose(ALICE, title="Before the crowd")
    for i in range(5):
        g.ok(c.AddPlayer(SPEAKER, f"late{i}@example.org", f"Late {i}"))
    late = g.propose(ALICE, title="After the crowd")
    g.vote(BOB, early, "FOR")
    g.vote(BOB, late, "FOR")
    g.later(7 * DAY)
    early_result, late_result = g.of(e.VoteClosed)
    assert (early_result.quorum_base, early_result.quorum_needed) == (5, 1)
    assert early_result.adopted
    assert (late_result.quorum_base, late_result.quorum_needed) == (10, 2)
    assert not late_result.adopted and not late_result.quorum_reached


@pytest.mark.parametrize(
    ("ballots", "adopted_with_consent", "adopted_without"),
    [
        ({"alice": "FOR", "bob": "FOR", "carol": "AGAINST"}, True, True),  # exactly 2/3
        ({"alice": "FOR", "bob": "FOR", "carol": "FOR", "dave": "AGAINST", "erin": "AGAINST"},
         True, False),  # 3/5 is a majority but not two-thirds
        ({"alice": "FOR", "bob": "AGAINST"}, False, False),
    ],
)
def test_a_refusal_of_consent_raises_the_threshold_to_two_thirds(
    ballots: dict[str, str], adopted_with_consent: bool, adopted_without: bool
) -> None:
    g = nomicam()
    assumed = g.propose(CAROL, title="Consent assumed")
    refused = g.propose(CAROL, title="Consent refused")
    g.ok(c.DeclareConsent(SPEAKER, refused, consent=False))
    g.refused(c.DeclareConsent(ALICE, refused, consent=True), "only the Speaker")
    for number in (assumed, refused):
        g.votes(number, **ballots)
    g.later(7 * DAY)
    with_consent, without = g.of(e.VoteClosed)
    assert (with_consent.adopted, without.adopted) == (adopted_with_consent, adopted_without)
    assert without.consent_refused and "two-thirds" in without.requirement


def test_consent_refused_then_given_back_counts_as_consent() -> None:
    g = nomicam()
    number = g.propose(CAROL)
    g.ok(c.DeclareConsent(SPEAKER, number, consent=False))
    g.ok(c.DeclareConsent(SPEAKER, number, consent=True))
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="AGAINST", erin="AGAINST")
    g.later(7 * DAY)
    assert g.last(e.VoteClosed).adopted


def test_transmutation_needs_unanimity_among_votes_cast_and_keeps_the_number() -> None:
    g = nomicam()
    g.refused(c.Propose(ALICE, "Change 116", "", (amend(116, "Anything goes."),)),
              "rule 116 is immutable", "TRANSMUTE RULE 116")
    split = g.propose(ALICE, transmute(116), title="Transmute 116, split vote")
    g.votes(split, alice="FOR", bob="FOR", carol="AGAINST")
    g.later(7 * DAY)
    assert not g.last(e.VoteClosed).adopted
    assert "unanimity among votes cast (transmutation)" in g.last(e.VoteClosed).requirement
    assert not g.state.rules[116].mutable

    agreed = g.propose(ALICE, transmute(116), title="Transmute 116 again")
    g.votes(agreed, alice="FOR", bob="FOR")  # three Voters abstain: unanimity among votes cast
    g.later(7 * DAY)
    assert g.last(e.VoteClosed).adopted
    rule = g.state.rules[116]
    assert rule.mutable and rule.history[-1].kind == "transmuted"
    assert rule.history[-1].proposal == agreed
    g.propose(ALICE, amend(116, "Anything goes."), title="Now 116 can be amended")


def test_a_voter_calling_judgement_gets_the_speaker_then_random_voters_on_missed_deadline() -> None:
    g = nomicam()
    g.ok(c.CallForJudgement(CAROL, "Rule 202 forbids trading points."))
    cfj = g.state.cfjs[1]
    assert cfj.judge == SPEAKER and g.last(e.JudgeAssigned).deadline == g.now + 7 * DAY
    g.refused(c.DeliverJudgement(ALICE, 1, Judgement.TRUE), "only the Judge of CFJ 1")

    reminder = g.later(6 * DAY)
    assert cfj.deadline is not None
    assert [(r.player, r.owed) for r in g.of(pe.Reminded, reminder)] == [
        (SPEAKER, (pe.Owed("judgement", 1, cfj.deadline),))]
    g.dice.load(1)  # the second of the candidates below
    missed = g.later(DAY)
    assert g.of(e.JudgeDeadlineMissed, missed)[0].judge == SPEAKER
    assert g.score(SPEAKER) == -10
    assigned = g.of(e.JudgeAssigned, missed)[0]
    # A random Voter, neither the most recent Judge (the Speaker) nor the caller (Carol).
    assert assigned.drawn_from == (ALICE, BOB, DAVE, ERIN) and assigned.judge == BOB

    g.dice.load(0)
    again = g.later(7 * DAY)
    assert g.of(e.JudgeAssigned, again)[0].drawn_from == (ALICE, DAVE, ERIN)  # not Bob, not Carol
    assert g.score(BOB) == -10
    g.ok(c.DeliverJudgement(ALICE, 1, Judgement.FALSE, "Trading is not gaining."))
    delivered = g.last(e.JudgementDelivered)
    assert delivered.public and delivered.reasons == "Trading is not gaining."
    assert g.state.open_cfjs() == []
    g.refused(c.DeliverJudgement(ALICE, 1, Judgement.TRUE), "already been judged")


def test_the_speaker_calling_judgement_gets_a_random_voter_and_the_draw_is_recorded() -> None:
    g = nomicam()
    g.dice.load(4)
    g.ok(c.CallForJudgement(SPEAKER, "Proposal 301 is legal."))
    assigned = g.last(e.JudgeAssigned)
    assert assigned.judge == ERIN and assigned.drawn_from == tuple(VOTERS)
    g.ok(c.DeliverJudgement(ERIN, 1, Judgement.UNDECIDED))
    assert g.state.cfjs[1].judgement is Judgement.UNDECIDED


def test_a_paradox_judged_true_makes_its_caller_the_winner_and_ends_the_game() -> None:
    g = nomicam()
    g.ok(c.CallForJudgement(DAVE, "Further play is impossible.", paradox=True))
    g.ok(c.DeliverJudgement(SPEAKER, 1, Judgement.TRUE, "It is."))
    assert g.last(e.GameWon).winners == (DAVE,)
    assert g.state.ended and g.of(e.NewGameBegun) == []  # 219: no new game
    g.refused(c.Propose(ALICE, "More", "text"), "the game has ended")


def test_a_whole_game_to_a_winner_who_becomes_speaker_of_a_new_game() -> None:
    g = nomicam()
    for round_ in range(10):
        number = g.propose(ALICE, enact(f"Rule number {round_}."), title=f"Round {round_}")
        g.votes(number, alice="FOR", bob="AGAINST", carol="FOR", dave="FOR")
        assert not g.of(e.GameWon)
        if round_ == 9:
            g.step(timedelta(hours=1))
            carried = g.propose(CAROL, title="Open across the new game")
            g.vote(ALICE, carried, "FOR")
            g.vote(CAROL, carried, "FOR")
            g.later(7 * DAY - timedelta(hours=1))  # Alice's tenth adopted proposal: 100 points
        else:
            g.later(7 * DAY)
    won = g.last(e.GameWon)
    new_game = g.last(e.NewGameBegun)
    assert won.winners == (ALICE,) and new_game.drawn_from == ()
    assert (new_game.new_speaker, new_game.old_speaker, new_game.game_number) == (ALICE, SPEAKER, 2)
    assert g.state.players[ALICE].role is Role.SPEAKER
    assert g.state.players[SPEAKER].role is Role.VOTER
    assert g.score(ALICE) == Decimal("1.00") and g.score(BOB) == Decimal("0.50")
    assert g.score(SPEAKER) == 0
    assert not g.state.ended and g.state.speaker == ALICE
    # Rules and open proposals carry over; the new Speaker's sealed ballot is dropped.
    assert g.state.rules[301].text == "Rule number 0."
    assert g.state.proposals[carried].status is ProposalStatus.OPEN
    assert set(g.state.proposals[carried].ballots) == {CAROL}
    g.vote(SPEAKER, carried, "FOR")  # the old Speaker is a Voter now
    g.refused(c.CastBallot(ALICE, carried, Choice.FOR), "Speaker may not vote")
    g.refused(c.CloseVote(BOB, carried), "only the Speaker")
    g.ok(c.CloseVote(ALICE, carried))
    # Rule 203 moves the in-game Speaker's role, not the host's authority to correct the game.
    g.ok(c.AdjustScore(SPEAKER, BOB, Decimal(1), "the host corrects a score"))
    assert g.last(e.SpeakerOverride).speaker == SPEAKER
    assert g.last(e.VoteClosed).ballots == ((SPEAKER, Choice.FOR), (CAROL, Choice.FOR))


def test_several_winners_at_once_all_win_and_one_drawn_at_random_becomes_speaker() -> None:
    g = nomicam()
    g.ok(c.AdjustScore(SPEAKER, "Alice", Decimal(90), "head start"))
    g.ok(c.AdjustScore(SPEAKER, "bob@example.org", Decimal(95), "head start"))
    number = g.propose(ALICE)
    g.votes(number, alice="FOR", bob="AGAINST", carol="FOR")
    g.dice.load(1)
    g.later(7 * DAY)
    assert g.last(e.GameWon).winners == (ALICE, BOB)
    assert g.last(e.NewGameBegun).drawn_from == (ALICE, BOB)
    assert g.state.speaker == BOB and g.dice.asked[-1] == (0, 1)


def test_the_speaker_preset_renumbers_amended_rules_and_warns_of_changed_mechanics() -> None:
    g = nomicam("speaker")
    assert "shall be Chuck." in g.state.rules[104].text
    number = g.propose(ALICE, amend(205, "The voting period is three days."), title="Shorter")
    g.vote(BOB, number, "FOR")
    g.later(7 * DAY)
    assert 205 not in g.state.rules and g.state.rules[number].text.endswith("three days.")
    assert g.state.rules[number].history[-1].previous_number == 205
    warning = g.last(e.MechanicsMayHaveChanged)
    assert warning.rule == 205 and warning.mechanics == ("voting_period",)
    assert g.state.sources["voting_period"] == number

    both = g.propose(ALICE, amend(number, "The voting period is two days."),
                     set_("voting_period", "2d"), title="Two days, structured")
    g.vote(BOB, both, "FOR")
    g.later(7 * DAY)
    assert g.state.rules_mechanics.voting_period == timedelta(days=2)
    assert len(g.of(e.MechanicsMayHaveChanged)) == 1  # none for the proposal that SET it
    assert both in g.state.rules and number not in g.state.rules
    next_one = g.propose(BOB, title="Runs two days")
    assert g.state.proposals[next_one].closes_at == g.now + timedelta(days=2)


def test_a_whole_speaker_preset_game_to_a_winner() -> None:
    g = nomicam("speaker")
    for round_ in range(10):
        number = g.propose(BOB, title=f"Round {round_}")
        g.votes(number, bob="FOR", carol="FOR")
        g.later(7 * DAY)
    assert g.last(e.GameWon).winners == (BOB,) and g.state.speaker == BOB
    assert g.score(BOB) == Decimal("1.00")
