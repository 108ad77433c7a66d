"""ATTACK (issue 27 review): draws a host could choose that the check of draws still accepts.

Every test here FAILS on main as merged (8acd6d8..4233243): each asserts what the check of
draws (``draw_check.check_draws``) or the engine should do, and shows a way round it. The
threat is the one issue 27 names: the host, who holds the seed and writes the record, picks
an outcome and publishes a record that verifies. Each forgery is a record linked afresh
(its chain holds), so ``record verify`` would report nothing but the draws' lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from speakerbot.engine import chain
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_to_json
from speakerbot.engine.draw_check import check_draws
from speakerbot.engine.luck import SeededDraws, commitment_of, derive_index
from tests.engine.harness import (
    ALICE,
    BOB,
    CAROL,
    Game,
    RecordedDraws,
    enact,
)
from tests.support.draw_record import (
    ADDRESSES,
    COMMITMENT_1,
    COMMITMENT_2,
    IDS,
    SEED_1,
    SEED_2,
    RecordBuilder,
)

FACES = [str(face) for face in range(1, 7)]
Lines = list[dict[str, Any]]


def _opening(record: RecordBuilder, commitment: str = COMMITMENT_1) -> None:
    """Lines 1-5: the game (committing ``commitment``), three players, a proposal."""
    record.add({"type": "GameStarted", "host": ADDRESSES[0], "host_name": "Host",
                "named_judge": "", "named_judge_name": "", "record_version": 1,
                "commitment": commitment})
    for name, address in zip(IDS[1:], ADDRESSES[1:], strict=True):
        record.add({"type": "PlayerJoined", "address": address, "name": name})
    record.add({"type": "ProposalSubmitted", "number": 301, "author": ADDRESSES[1]})


def _die(record: RecordBuilder, draw: dict[str, Any]) -> None:
    record.add({"type": "DieThrown", "player": ADDRESSES[1], "sides": 6,
                "value": int(draw["outcome"]), "draw": draw})


def _reveal(record: RecordBuilder, seed: bytes, following: str = "") -> None:
    record.add({"type": "VoteClosed", "number": 301})
    record.add({"type": "SeedRevealed", "commitment": commitment_of(seed), "seed": seed.hex(),
                "next_commitment": following, "reason": "a voting period closed"})


def _made(seed: bytes, anchor: dict[str, Any], label: str,
          candidates: Sequence[str]) -> dict[str, Any]:
    """A draw as the derivation makes it from ``seed``, anchored to the line ``anchor``."""
    index = derive_index(seed, anchor["hash"], label, len(candidates))
    return {"label": label, "candidates": list(candidates), "outcome": candidates[index],
            "after": anchor["seq"], "commitment": commitment_of(seed)}


def _assert_rejected(lines: Lines) -> None:
    assert chain.verify(lines) is None  # the forger linked every line again
    report = check_draws(lines)
    assert report.failures, f"a chosen draw verified: {report}"


def test_attack_a_die_label_chosen_among_many_verifies() -> None:
    """The label is never checked: try die:301/1, die:301/2... until the die shows a 1."""
    record = RecordBuilder()
    _opening(record)
    honest = _made(SEED_1, record.lines[-1], "die:301", FACES)
    chosen = next(draw for draw in (_made(SEED_1, record.lines[-1], f"die:301/{k}", FACES)
                                    for k in range(1, 200)) if draw["outcome"] == "1")
    assert honest["outcome"] != "1"  # the seed's own die:301 is not a one
    _die(record, chosen)
    _reveal(record, SEED_1)
    _assert_rejected(record.lines)


def test_attack_a_die_anchored_to_an_older_line_verifies() -> None:
    """``after`` may be any line after the commitment: pick the one that gives another face."""
    record = RecordBuilder()
    _opening(record)
    honest = _made(SEED_1, record.lines[-1], "die:301", FACES)
    chosen = next(draw for draw in (_made(SEED_1, line, "die:301", FACES)
                                    for line in record.lines[:-1])
                  if draw["outcome"] != honest["outcome"])
    assert chosen["after"] < record.lines[-1]["seq"]
    _die(record, chosen)
    _reveal(record, SEED_1)
    _assert_rejected(record.lines)


def test_attack_a_draw_with_a_superseded_seed_verifies() -> None:
    """Two seeds committed: the draw uses the replaced one, whichever suits, and verifies."""
    record = RecordBuilder()
    _opening(record)
    record.add({"type": "SeedCommitted", "commitment": COMMITMENT_2, "replaces": COMMITMENT_1})
    # The game draws with seed 2 from here on; the host draws with seed 1 instead.
    _die(record, _made(SEED_1, record.lines[-1], "die:301", FACES))
    _reveal(record, SEED_1)
    _assert_rejected(record.lines)


def test_attack_a_judge_drawn_among_the_judge_alone_verifies() -> None:
    """The candidates are never compared with the event's drawn_from: one candidate, no luck."""
    record = RecordBuilder()
    _opening(record)
    wanted = ADDRESSES[3]
    draw = _made(SEED_1, record.lines[-1], "judge:cfj-1", [wanted])
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": wanted, "how": "a random Voter",
                "deadline": None, "drawn_from": list(ADDRESSES[2:]), "draw": draw})
    _reveal(record, SEED_1)
    _assert_rejected(record.lines)


def test_attack_a_judge_drawn_among_candidates_reordered_verifies() -> None:
    """The index is the seed's, the order the host's: put the wanted Judge at that index."""
    record = RecordBuilder()
    _opening(record)
    voters = list(ADDRESSES[1:])
    honest = _made(SEED_1, record.lines[-1], "judge:cfj-1", voters)
    wanted = next(voter for voter in voters if voter != honest["outcome"])
    index = voters.index(honest["outcome"])
    order = [v for v in voters if v != wanted]
    order.insert(index, wanted)
    draw = _made(SEED_1, record.lines[-1], "judge:cfj-1", order)
    assert draw["outcome"] == wanted
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": wanted, "how": "a random Voter",
                "deadline": None, "drawn_from": voters, "draw": draw})
    _reveal(record, SEED_1)
    _assert_rejected(record.lines)


def test_attack_one_label_drawn_twice_with_two_outcomes_verifies() -> None:
    """"Once in a game" is never checked: die:301 thrown twice, each from its own anchor."""
    record = RecordBuilder()
    _opening(record)
    first = _made(SEED_1, record.lines[-1], "die:301", FACES)
    _die(record, first)
    record.add({"type": "ProposalSubmitted", "number": 302, "author": ADDRESSES[2]})
    second = _made(SEED_1, record.lines[-1], "die:301", FACES)
    _die(record, second)
    _reveal(record, SEED_1)
    assert check_draws(record.lines).verified == 2
    _assert_rejected(record.lines)


def test_attack_a_draw_on_an_event_no_draw_decides_verifies() -> None:
    """A ScoreChanged carrying a draw counts as one more draw verified."""
    record = RecordBuilder()
    _opening(record)
    record.add({"type": "ScoreChanged", "player": ADDRESSES[1], "delta": "6",
                "reason": "luck", "draw": _made(SEED_1, record.lines[-1], "die:999", FACES)})
    _reveal(record, SEED_1)
    _assert_rejected(record.lines)


def test_attack_a_lost_seed_lets_the_die_fall_by_chance_and_still_verifies() -> None:
    """The service's seed gone from the store (a row deleted): the die is drawn by chance
    (``SeededDraws.chance``, drawable again until it suits) and carries no draw. The check
    counts it as "recorded before draws were provable" and reports no failure, though the
    game committed a seed at its first line."""
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    number = g.propose(ALICE, enact("Players may sing."))
    g.votes(number, alice="FOR", bob="FOR")
    head = list(chain.public_lines_after(chain.Links(), (event_to_json(ev) for ev in g.events)))
    g.provable = SeededDraws(head[-1]["seq"], head[-1]["hash"], lambda _: None,
                             lambda _: SEED_2, lambda count: count - 1)  # "a six, please"
    closing = g.votes(number, carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    assert thrown.value == 6 and thrown.draw is None
    lines = list(chain.public_lines_after(chain.Links(), (event_to_json(ev) for ev in g.events)))
    assert lines[0]["commitment"]  # the game was provable from its start
    report = check_draws(lines)
    assert report.failures, f"a die thrown by chance in a seeded game verified: {report}"


def test_attack_an_older_game_s_first_seed_is_committed_publicly_by_a_sealed_ballot() -> None:
    """A game recorded before seeds commits one at the end of its next decision, whatever it
    is: a sealed ballot's decision then adds a public line stamped with the ballot's time,
    though "sealed ballots are not in the public record while their vote is open (not even
    as a count)" (docs/verifying.md)."""
    g = Game("suber", [ALICE, BOB, CAROL])  # scripted dice: no seed, as before seeds
    number = g.propose(ALICE, enact("Players may sing."))
    g.provable = RecordedDraws(g.events)  # the service upgraded: it can commit seeds now
    decided = g.votes(number, alice="FOR")
    assert any(isinstance(ev, e.BallotCast) for ev in decided)
    shown = [ev for ev in decided if ev.public]
    assert shown == [], f"a sealed ballot's decision added public lines: {shown}"


def draws_of(g: Game) -> RecordedDraws:
    assert isinstance(g.provable, RecordedDraws)
    return g.provable


def _lines(events: Sequence[e.Event]) -> Lines:
    return list(chain.public_lines_after(chain.Links(), (event_to_json(ev) for ev in events)))
