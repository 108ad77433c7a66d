"""locked-open (unanimity that turns into majority after two circuits, 7 points, the host
judges) and rurru (Heavens, a named Judge, no immutability, numbers from 300)."""

from __future__ import annotations

from decimal import Decimal

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import Judgement
from tests.engine.cast import ALICE, BOB, CAROL, DAY, SPEAKER
from tests.engine.harness import Game, amend, enact, transmute

JUDGE = "lalc@example.org"


def play_turn(g: Game, die: int = 1, **ballots: str) -> int:
    """The mover proposes; everyone votes FOR unless told otherwise; the die shows ``die``."""
    assert g.state.turn is not None
    number = g.propose(g.state.turn.mover, title=f"Turn {g.state.turn.number}")
    if g.state.rules_mechanics.turn_award.value == "die":
        g.dice.load(die)
    choices = {p.address.split("@")[0]: "FOR" for p in g.state.active_players()}
    choices.update(ballots)
    g.votes(number, **choices)
    return number


def test_locked_open_switches_to_majority_after_two_circuits_and_plays_to_77() -> None:
    g = Game("locked-open", [ALICE, BOB, CAROL])
    play_turn(g, die=2, carol="AGAINST")
    assert not g.last(e.VoteClosed).adopted and g.score(ALICE) == -5  # -7 + 2
    for _ in range(4):
        play_turn(g)
    assert g.of(e.AdoptionSwitchedToMajority) == [] and g.state.circuits_completed == 1
    play_turn(g)  # Carol's turn ends the second circuit
    switch = g.last(e.AdoptionSwitchedToMajority)
    assert (switch.rule, switch.circuits) == (203, 2)
    assert g.state.rules[203].history[-1].kind == "switched"

    play_turn(g, die=1, carol="AGAINST")
    closed = g.last(e.VoteClosed)
    assert closed.adopted and "simple majority of eligible voters" in closed.requirement
    assert g.last(e.ScoreChanged).reason.startswith("threw")
    dissent = [s for s in g.of(e.ScoreChanged) if s.player == CAROL and s.delta == 7]
    assert len(dissent) == 1 and "rule 204" in dissent[0].reason

    # Open to locked needs unanimity (109); locked to open follows the ordinary rule.
    locking = g.propose(BOB, transmute(201))
    g.dice.load(1)
    g.votes(locking, alice="FOR", bob="FOR", carol="AGAINST")
    assert not g.last(e.VoteClosed).adopted and g.state.rules[201].mutable
    unlocking = g.propose(CAROL, transmute(112))
    g.dice.load(1)
    g.votes(unlocking, alice="FOR", bob="FOR", carol="AGAINST")
    assert g.last(e.VoteClosed).adopted
    assert 112 not in g.state.rules and g.state.rules[unlocking].mutable  # renumbered (108)

    # The host judges; there is no overrule procedure in this ruleset.
    g.ok(c.CallForJudgement(ALICE, "Rule 210 applies."))
    assert g.state.cfjs[1].judge == SPEAKER
    g.ok(c.DeliverJudgement(SPEAKER, 1, Judgement.FALSE))
    g.refused(c.Overrule(BOB, 1), "no overrule")

    for _ in range(80):
        play_turn(g, die=6)
        if g.state.ended:
            break
    won = g.last(e.GameWon)
    assert g.score(won.winners[0]) >= 77 and "77 points" in won.reason


def test_amending_rule_203_in_time_stops_the_switch() -> None:
    g = Game("locked-open", [ALICE, BOB])
    number = g.propose(ALICE, amend(203, "A rule-change is adopted if and only if unanimous."))
    g.dice.load(1)
    g.votes(number, alice="FOR", bob="FOR")
    for _ in range(5):
        play_turn(g)
    assert g.state.circuits_completed >= 2 and g.of(e.AdoptionSwitchedToMajority) == []
    assert g.state.rules_mechanics.adoption.value == "unanimous"


def test_locked_open_paradox_makes_the_mover_the_winner() -> None:
    g = Game("locked-open", [ALICE, BOB])
    g.ok(c.CallForJudgement(BOB, "No move is possible.", paradox=True))
    g.ok(c.DeliverJudgement(SPEAKER, 1, Judgement.TRUE))
    assert g.last(e.GameEnded).winners == (ALICE,)


def rurru() -> Game:
    return Game("rurru", [ALICE, BOB, CAROL], judge=JUDGE, judge_name="Lal'C")


def test_rurru_heavens_named_judge_and_a_game_to_200() -> None:
    g = rurru()
    assert g.state.rules[210].text == "Lal'C is the Judge."
    assert g.propose(ALICE) == 300
    g.votes(300, alice="FOR", bob="FOR", carol="FOR")
    assert g.score(ALICE) == 10  # (300 - 290) x 3/3

    defeated = g.propose(BOB)
    g.votes(defeated, alice="FOR", bob="FOR", carol="AGAINST")
    assert g.score(BOB) == -3  # -10, and round(11 x 2/3) = 7 Heavens

    missing = g.propose(CAROL)
    g.votes(missing, alice="FOR", carol="FOR")
    g.later(7 * DAY)  # Bob never votes: not favourable
    assert g.score(CAROL) == -2  # -10 + round(12 x 2/3) = 8

    # No immutability at all.
    g.refused(c.Propose(ALICE, "Lock it", "", (transmute(100),)), "nothing can be transmuted")
    g.refused(c.Propose(ALICE, "Locked", "", (enact("Fixed.", immutable=True),)),
              "no immutable rules")
    amended = g.propose(ALICE, amend(208, "The winner is the first player to have 150 Heavens."))
    g.votes(amended, alice="FOR", bob="FOR", carol="FOR")
    assert 208 not in g.state.rules and amended in g.state.rules  # renumbered (107)
    assert g.last(e.MechanicsMayHaveChanged).mechanics == ("win_points",)

    # The named Judge judges everything, and play resumes only after.
    g.ok(c.CallForJudgement(CAROL, "Bob cheated."))
    assert g.state.cfjs[1].judge == JUDGE
    assert g.state.turn is not None and g.state.turn.mover == BOB
    g.refused(c.Propose(BOB, "Next", "text"), "CFJ 1 is undecided", "the Judge has settled it")
    g.ok(c.DeliverJudgement(JUDGE, 1, Judgement.FALSE, "He did not."))

    for _ in range(60):
        play_turn(g)
        if g.state.ended:
            break
    won = g.last(e.GameWon)
    assert g.score(won.winners[0]) >= 200  # 150 in the amended text: the Speaker is warned


def test_rurru_heavens_round_halves_up() -> None:
    g = Game("rurru", [ALICE, BOB], judge=JUDGE)
    g.votes(g.propose(ALICE), alice="FOR", bob="FOR")  # 300: 10
    g.votes(g.propose(BOB), alice="AGAINST", bob="FOR")  # 301: 11 x 1/2 = 5.5 -> 6, -10
    assert (g.score(ALICE), g.score(BOB)) == (Decimal(10), Decimal(-4))


def test_rurru_paradox_makes_the_mover_the_winner() -> None:
    g = rurru()
    g.ok(c.CallForJudgement(CAROL, "Play is impossible.", paradox=True))
    g.ok(c.DeliverJudgement(JUDGE, 1, Judgement.TRUE))
    assert g.last(e.GameEnded).winners == (ALICE,)
