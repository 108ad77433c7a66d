"""Draws a host could choose, from the attack review of issue 27: the check must refuse them.

Each test shows a way the host, who holds the seed and writes the record, could pick an
outcome and publish a record that verifies, and asserts what the check of draws
(``draw_check.check_draws``) or the engine does about it. Each forgery is a record linked
afresh (its chain holds), so ``record verify`` would report nothing but the draws' lines.

A draw anchored to an older line than the one the record gives it (the last before its
moment) fails too: it once verified, which let a die be changed after its seed's reveal
(issue 37; through ``record verify``: tests/record/test_forged_draws.py). The last two
tests are the engine's side: a seed lost (its die drawn by chance, which the check fails)
and an older game's first seed (committed only beside public news). A transaction tried
again is tested through the service (tests/integration/test_draw_retry.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from speakerbot.engine import chain
from speakerbot.engine import events as e
from speakerbot.engine.draw_check import check_draws
from speakerbot.engine.luck import SeededDraws, commitment_of
from tests.engine.cast import ALICE, BOB, CAROL
from tests.engine.harness import Game, RecordedDraws, enact, record_lines
from tests.support.draw_record import (
    ADDRESSES,
    COMMITMENT_1,
    COMMITMENT_2,
    FACES,
    SEED_1,
    SEED_2,
    RecordBuilder,
    made,
)

Lines = list[dict[str, Any]]


def _reveal(record: RecordBuilder, seed: bytes, following: str = "") -> None:
    record.add({"type": "SeedRevealed", "commitment": commitment_of(seed), "seed": seed.hex(),
                "next_commitment": following, "reason": "a voting period closed"})


def _assert_rejected(lines: Lines, problem: str) -> None:
    """The chain holds, and the check fails the one forged draw for ``problem``."""
    assert chain.verify(lines) is None  # the forger linked every line again
    report = check_draws(lines)
    assert [failure.problem for failure in report.failures if problem in failure.problem], \
        f"a chosen draw verified, or failed for another reason: {report}"
    assert len(report.failures) == 1, report


def _unlike_honest(record: RecordBuilder, forgeries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The first of ``forgeries`` whose face is not the honest die's: the one a host keeps."""
    honest = made(SEED_1, record.lines[-1], "die:301", FACES)
    return next(draw for draw in forgeries if draw["outcome"] != honest["outcome"])


def _assert_die_rejected(record: RecordBuilder, chosen: dict[str, Any], problem: str) -> None:
    """The ``chosen`` die thrown and seed 1 revealed: the check fails the die for ``problem``."""
    record.die(chosen)
    _reveal(record, SEED_1)
    _assert_rejected(record.lines, problem)


def _honest(lines: Lines) -> Lines:
    """The record as the honest Speaker would have written it: it verifies."""
    assert chain.verify(lines) is None
    report = check_draws(lines)
    assert not report.failures and report.verified, report
    return lines


def test_a_die_label_chosen_among_many_fails() -> None:
    """The label is the record's: die:301/1, die:301/2... tried until the die suits fail."""
    record = RecordBuilder()
    record.opening()
    chosen = _unlike_honest(record, (made(SEED_1, record.lines[-1], f"die:301/{k}", FACES)
                                     for k in range(1, 200)))
    _assert_die_rejected(record, chosen, "its label is not 'die:301'")


def test_the_honest_die_of_the_attacks_record_verifies() -> None:
    """The records above and below differ from an honest one by the forgery alone."""
    record = RecordBuilder()
    record.opening()
    record.die(made(SEED_1, record.lines[-1], "die:301", FACES))
    _reveal(record, SEED_1)
    assert check_draws(_honest(record.lines)).verified == 1


def test_a_die_anchored_to_an_older_line_fails() -> None:
    """``after`` names an earlier line than the record's anchor, one that gives another face."""
    record = RecordBuilder()
    record.opening()
    chosen = _unlike_honest(record, (made(SEED_1, line, "die:301", FACES)
                                     for line in record.lines[:-1]))
    assert chosen["after"] < record.lines[-1]["seq"]
    _assert_die_rejected(record, chosen, f"not to event {record.lines[-1]['seq']}, the last "
                                         "line recorded before its moment")


def test_a_draw_with_a_superseded_seed_fails() -> None:
    """Two seeds committed: the draw uses the replaced one, whichever suits, and verifies."""
    record = RecordBuilder()
    record.opening()
    record.add({"type": "SeedCommitted", "commitment": COMMITMENT_2, "replaces": COMMITMENT_1})
    # The game draws with seed 2 from here on; the host draws with seed 1 instead.
    record.die(made(SEED_1, record.lines[-1], "die:301", FACES))
    record.add({"type": "SeedRevealed", "commitment": COMMITMENT_1, "seed": SEED_1.hex(),
                "next_commitment": "", "reason": "the host asked"})
    # The reveal of the replaced seed fails too: it is not the game's current one.
    report = check_draws(record.lines)
    assert [(failure.label, failure.problem) for failure in report.failures] == [
        (f"seed {COMMITMENT_1[:12]}",
         "its commitment is not the one the game had committed before it"),
        ("die:301", f"its seed's commitment {COMMITMENT_1[:12]} is not the game's current "
                    f"one ({COMMITMENT_2[:12]})")]


def test_a_judge_drawn_among_the_judge_alone_fails() -> None:
    """The candidates are the event's drawn_from: one candidate, no luck, fails."""
    record = RecordBuilder()
    record.opening()
    wanted = ADDRESSES[3]
    draw = made(SEED_1, record.lines[-1], "judge:cfj-1", [wanted])
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": wanted, "how": "a random Voter",
                "deadline": None, "drawn_from": list(ADDRESSES[2:]), "draw": draw})
    _reveal(record, SEED_1)
    _assert_rejected(record.lines, "not the event's drawn_from")


def test_a_judge_drawn_among_candidates_reordered_fails() -> None:
    """The index is the seed's, the order the event's: the wanted Judge put there fails."""
    record = RecordBuilder()
    record.opening()
    voters = list(ADDRESSES[1:])
    honest = made(SEED_1, record.lines[-1], "judge:cfj-1", voters)
    wanted = next(voter for voter in voters if voter != honest["outcome"])
    index = voters.index(honest["outcome"])
    order = [v for v in voters if v != wanted]
    order.insert(index, wanted)
    draw = made(SEED_1, record.lines[-1], "judge:cfj-1", order)
    assert draw["outcome"] == wanted
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": wanted, "how": "a random Voter",
                "deadline": None, "drawn_from": voters, "draw": draw})
    _reveal(record, SEED_1)
    _assert_rejected(record.lines, "not the event's drawn_from")


def test_one_label_drawn_twice_with_two_outcomes_fails_the_second() -> None:
    """A label is drawn once in a game: die:301 thrown twice, each from its own anchor."""
    record = RecordBuilder()
    record.opening()
    first = made(SEED_1, record.lines[-1], "die:301", FACES)
    record.die(first)
    record.add({"type": "ProposalSubmitted", "number": 302, "author": ADDRESSES[2]})
    second = made(SEED_1, record.lines[-1], "die:301", FACES)
    record.die(second)
    _reveal(record, SEED_1)
    assert check_draws(record.lines).verified == 1  # the first throw
    _assert_rejected(record.lines, "die:301 was drawn before in this game")
    assert check_draws(record.lines).failures[0].seq == record.lines[-2]["seq"]


def test_a_draw_on_an_event_no_draw_decides_fails() -> None:
    """A ScoreChanged carrying a draw is no draw verified but a failure."""
    record = RecordBuilder()
    record.opening()
    record.add({"type": "ScoreChanged", "player": ADDRESSES[1], "delta": "6",
                "reason": "luck", "draw": made(SEED_1, record.lines[-1], "die:999", FACES)})
    _reveal(record, SEED_1)
    _assert_rejected(record.lines, "a ScoreChanged decides no draw")


def test_a_die_a_lost_seed_left_to_chance_fails_the_check() -> None:
    """The service's seed gone from the store (a row deleted): the die is drawn by chance
    (``SeededDraws.chance``, drawable again until it suits) and carries no draw. The game
    committed a seed at its first line, so the check fails it (it once counted it as
    "recorded before draws were provable")."""
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    number = g.propose(ALICE, enact("Players may sing."))
    g.votes(number, alice="FOR", bob="FOR")
    head = record_lines(g.events)
    g.provable = SeededDraws(head[-1]["seq"], head[-1]["hash"], lambda _: None,
                             lambda _: SEED_2, lambda count: count - 1)  # "a six, please"
    closing = g.votes(number, carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    assert thrown.value == 6 and thrown.draw is None
    lines = record_lines(g.events)
    assert lines[0]["commitment"]  # the game was provable from its start
    report = check_draws(lines)
    assert report.failures, f"a die thrown by chance in a seeded game verified: {report}"


def test_an_older_game_s_first_seed_is_not_committed_beside_a_lone_sealed_ballot() -> None:
    """A game recorded before seeds commits one at the end of its next decision with public
    news, never of a lone sealed ballot's: that would add a public line stamped with the
    ballot's time, and "sealed ballots are not in the public record while their vote is
    open (not even as a count)" (docs/verifying.md)."""
    g = Game("suber", [ALICE, BOB, CAROL])  # scripted dice: no seed, as before seeds
    number = g.propose(ALICE, enact("Players may sing."))
    g.provable = RecordedDraws(g.events)  # the service upgraded: it can commit seeds now
    decided = g.votes(number, alice="FOR")
    assert any(isinstance(ev, e.BallotCast) for ev in decided)
    shown = [ev for ev in decided if ev.public]
    assert shown == [], f"a sealed ballot's decision added public lines: {shown}"
