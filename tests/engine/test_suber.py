"""Suber's Initial Set: turns, unanimity, a die, renumbering, the judge before the mover,
overrule, the 25-rule limit, and a whole game to 100 points."""

from __future__ import annotations

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import Clause, ClauseKind, Judgement, ProposalStatus
from tests.engine.cast import ALICE, BOB, CAROL, DAY, SPEAKER
from tests.engine.harness import Game, amend, enact, repeal, set_, transmute


def turn(g: Game) -> tuple[int, str]:
    assert g.state.turn is not None
    return g.state.turn.number, g.state.turn.mover


def test_a_suber_game_through_its_mechanics() -> None:
    g = Game("suber", [ALICE, BOB, CAROL])
    assert turn(g) == (1, ALICE)

    # Turn 1: only the mover proposes; immutable rules need transmuting first.
    g.refused(c.Propose(BOB, "Mine", "text"), "it is Alice's turn", "rule 201")
    g.refused(c.Propose(ALICE, "Edit 101", "", (amend(101, "New."),)),
              "rule 101 is immutable", "transmute it first", "TRANSMUTE RULE 101")
    first = g.propose(ALICE, enact("Players may sing."))
    assert first == 301
    g.votes(first, alice="FOR", bob="FOR")
    g.dice.load(4)
    closing = g.votes(first, carol="FOR")  # the last eligible ballot closes the vote at once
    assert g.of(e.VoteClosed, closing)[0].adopted
    assert g.of(e.DieThrown, closing)[0].value == 4 and g.dice.asked == [(1, 6)]
    assert g.state.rules[301].text == "Players may sing." and g.state.rules[301].mutable
    assert turn(g) == (2, BOB) and g.scores() == {ALICE: 4, BOB: 0, CAROL: 0}

    # Turn 2: one proposal per turn; a defeat costs 10, the die still adds.
    second = g.propose(BOB, amend(206, "When a proposed rule change is defeated, nothing."))
    g.refused(c.Propose(BOB, "Again", "text"), "already proposed this turn")
    g.dice.load(3)
    g.votes(second, bob="FOR", alice="FOR", carol="AGAINST")
    assert not g.last(e.VoteClosed).adopted
    assert "unanimity among eligible voters" in g.last(e.VoteClosed).requirement
    assert g.score(BOB) == -7 and 206 in g.state.rules

    # Turn 3: a missing ballot is not FOR once the fallback period ends.
    third = g.propose(CAROL, title="Informal")
    g.votes(third, carol="FOR", alice="FOR")
    g.later(6 * DAY)  # reminders
    assert g.reminded() == {(third, BOB)}
    g.dice.load(2)
    g.later(DAY)
    assert g.last(e.VoteClosed).non_voters == (BOB,) and not g.last(e.VoteClosed).adopted
    assert g.score(CAROL) == -8 and turn(g) == (4, ALICE)
    assert g.state.circuits_completed == 1

    # Turn 4: amending 203 renumbers it; SET makes adoption by majority possible.
    fourth = g.propose(ALICE, amend(203, "A rule change is adopted by a simple majority."),
                       set_("adoption", "majority"))
    g.dice.load(5)
    g.votes(fourth, alice="FOR", bob="FOR", carol="FOR")
    assert 203 not in g.state.rules and g.state.rules[fourth].text.endswith("simple majority.")
    assert g.state.sources["adoption"] == fourth
    warning = g.last(e.MechanicsMayHaveChanged)
    assert warning.rule == 203 and warning.mechanics == ("count_basis",)  # adoption was SET

    # Turn 5: a majority adopts, and the dissenter gains 10 (rule 204).
    fifth = g.propose(BOB, title="Majority at work")
    g.dice.load(1)
    g.votes(fifth, bob="FOR", alice="FOR", carol="AGAINST")
    assert g.last(e.VoteClosed).adopted
    assert g.scores() == {ALICE: 9, BOB: -6, CAROL: 2}

    # Turn 6: transmutation still needs unanimity among the eligible voters (rule 109).
    sixth = g.propose(CAROL, transmute(116))
    g.dice.load(6)
    g.votes(sixth, carol="FOR", alice="FOR", bob="AGAINST")
    assert not g.last(e.VoteClosed).adopted
    assert "(transmutation)" in g.last(e.VoteClosed).requirement
    assert g.scores() == {ALICE: 9, BOB: -6, CAROL: -2}
    assert turn(g) == (7, ALICE) and g.state.circuits_completed == 2

    # At most 25 mutable rules (rule 209), checked when a proposal is submitted.
    for i in range(25 - g.state.mutable_rule_count()):
        g.ok(c.EditRule(SPEAKER, Clause(ClauseKind.ENACT, None, f"Filler {i}.")))
    assert g.state.mutable_rule_count() == 25
    g.refused(c.Propose(ALICE, "One more", "", (enact("Too many."),)),
              "at most 25", "rule 209", "repeal a mutable rule")
    seventh = g.propose(ALICE, enact("Swap."), repeal(301))

    # Judgement: the player preceding the mover judges; a unanimous overrule by the others
    # passes the question to the player preceding the Judge.
    g.ok(c.CallForJudgement(BOB, "Proposal 307 is illegal."))
    assert g.state.cfjs[1].judge == CAROL  # Carol precedes Alice
    g.ok(c.DeliverJudgement(CAROL, 1, Judgement.FALSE, "It is fine."))
    g.refused(c.Overrule(CAROL, 1), "cannot overrule their own")
    g.ok(c.Overrule(ALICE, 1))
    assert g.of(e.JudgementOverruled) == []
    g.ok(c.Overrule(BOB, 1))
    assert g.last(e.JudgementOverruled).cfj == 1 and g.state.cfjs[1].judge == BOB
    g.ok(c.DeliverJudgement(BOB, 1, Judgement.TRUE))
    g.dice.load(2)
    g.votes(seventh, alice="FOR", bob="FOR", carol="FOR")
    assert 301 not in g.state.rules and g.state.rules[seventh].text == "Swap."

    # Turn 8 begins with Bob's proposal: the overrule window for CFJ 1 closes.
    eighth = g.propose(BOB, title="Eighth")
    g.refused(c.Overrule(CAROL, 1), "can no longer be overruled")

    # An undecided CFJ holds back the next turn unless most of the other players agree.
    g.ok(c.CallForJudgement(CAROL, "Bob may not sing."))
    assert g.state.cfjs[2].judge == ALICE  # Alice precedes Bob
    g.dice.load(3)
    g.votes(eighth, alice="FOR", bob="FOR", carol="FOR")
    assert turn(g) == (9, CAROL)
    g.refused(c.Propose(CAROL, "Ninth", "text"), "cannot begin while CFJ 2 is undecided",
              "0 of 2 have")
    g.refused(c.AgreeToNextTurn(CAROL), "not the mover")
    g.ok(c.AgreeToNextTurn(ALICE))
    g.refused(c.Propose(CAROL, "Ninth", "text"), "1 of 2 have")
    g.ok(c.AgreeToNextTurn(BOB))
    ninth = g.propose(CAROL, title="Ninth")
    g.ok(c.DeliverJudgement(ALICE, 2, Judgement.FALSE))

    # Forfeit in one's own turn: the proposal is void and the turn passes.
    g.ok(c.Forfeit(CAROL))
    assert g.state.proposals[ninth].status is ProposalStatus.VOID
    assert turn(g) == (10, ALICE) and g.state.voters() == [ALICE, BOB]
    g.refused(c.CastBallot(CAROL, ninth, "FOR"), "not a player")  # type: ignore[arg-type]

    # Play on to 100 points.
    for _ in range(60):
        number, mover = turn(g)
        proposal = g.propose(mover, title=f"Turn {number}")
        g.dice.load(6)
        g.votes(proposal, alice="FOR", bob="FOR")
        if g.state.ended:
            break
    won = g.last(e.GameWon)
    assert len(won.winners) == 1 and g.score(won.winners[0]) >= 100
    assert g.last(e.GameEnded).winners == won.winners and g.state.ended
    g.refused(c.Propose(ALICE, "After", "text"), "the game has ended")


def test_no_one_judges_during_their_own_turn_when_overrules_walk_back() -> None:
    g = Game("suber", [ALICE, BOB, CAROL])
    g.dice.load(1)
    g.votes(g.propose(ALICE), alice="FOR", bob="FOR", carol="FOR")
    assert turn(g) == (2, BOB)
    g.propose(BOB)
    g.ok(c.CallForJudgement(CAROL, "Something."))
    assert g.state.cfjs[1].judge == ALICE  # precedes Bob
    g.ok(c.DeliverJudgement(ALICE, 1, Judgement.TRUE))
    g.ok(c.Overrule(BOB, 1))
    g.ok(c.Overrule(CAROL, 1))
    assert g.state.cfjs[1].judge == CAROL  # precedes Alice
    g.ok(c.DeliverJudgement(CAROL, 1, Judgement.TRUE))
    g.ok(c.Overrule(ALICE, 1))
    g.ok(c.Overrule(BOB, 1))
    assert g.state.cfjs[1].judge == ALICE  # Bob precedes Carol, but it is Bob's turn


def test_a_paradox_judged_true_makes_the_mover_the_winner() -> None:
    g = Game("suber", [ALICE, BOB, CAROL])
    g.ok(c.CallForJudgement(BOB, "Play cannot continue.", paradox=True))
    assert g.state.cfjs[1].judge == CAROL
    g.ok(c.DeliverJudgement(CAROL, 1, Judgement.TRUE))
    assert g.last(e.GameEnded).winners == (ALICE,)  # unable to complete her turn (rule 213)
