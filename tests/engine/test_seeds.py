"""Draws made with committed seeds: each draw's proof, and when seeds are committed and revealed."""

from __future__ import annotations

import hashlib
from decimal import Decimal

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.draw_events import Draw, RecordLine
from speakerbot.engine.luck import SeededDraws, derive_index
from speakerbot.engine.model import GameState
from speakerbot.engine.seeds import CLOSED_VOTE, GAME_OVER, HOST_ASKED, NEW_GAME
from tests.engine.cast import ALICE, BOB, CAROL, DAY, SPEAKER
from tests.engine.harness import Game, RecordedDraws, draws_of, enact, nomicam, record_lines


def anchor_of(g: Game, after: int) -> str:
    """The hash of the public record's line numbered ``after``."""
    lines = record_lines(g.events)
    return str(lines[after - 1]["hash"])


def recomputed(g: Game, draw: Draw) -> str:
    """The outcome the draw's seed, anchor and label give, as anyone may compute it."""
    seed = draws_of(g).seeds[draw.commitment]
    index = derive_index(seed, anchor_of(g, draw.after), draw.label, len(draw.candidates))
    return draw.candidates[index]


def test_a_die_is_drawn_from_the_committed_seed_and_the_seed_revealed_with_the_results() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    first_commitment = g.state.commitment
    assert first_commitment and g.events[0].commitment == first_commitment  # type: ignore[attr-defined]
    number = g.propose(ALICE, enact("Players may sing."))
    g.votes(number, alice="FOR", bob="FOR")
    closing = g.votes(number, carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    draw = thrown.draw
    assert draw is not None and draw.label == f"die:{number}"
    assert draw.candidates == ("1", "2", "3", "4", "5", "6") and draw.outcome == str(thrown.value)
    assert draw.commitment == first_commitment and recomputed(g, draw) == draw.outcome
    # Anchored before the decision: the last public line before the ballot that closed it.
    public_before = [ev for ev in g.events[: g.events.index(thrown)] if ev.public]
    assert 0 < draw.after <= len(public_before)
    # The seed is revealed as the decision's last event, and the next one committed.
    revealed = closing[-1]
    assert isinstance(revealed, e.SeedRevealed) and revealed.reason == CLOSED_VOTE
    assert revealed.commitment == first_commitment
    assert hashlib.sha256(bytes.fromhex(revealed.seed)).hexdigest() == first_commitment
    assert revealed.next_commitment and g.state.commitment == revealed.next_commitment
    assert g.state.seed_draws == 0
    # The next die uses the next seed.
    second = g.propose(BOB, title="Another")
    closing = g.votes(second, bob="FOR", alice="FOR", carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    assert thrown.draw is not None and thrown.draw.commitment == revealed.next_commitment
    assert recomputed(g, thrown.draw) == thrown.draw.outcome


def test_a_vote_closed_with_no_draw_reveals_nothing() -> None:
    g = nomicam(provable=True)
    number = g.propose(ALICE, enact("Quiet."))
    g.votes(number, alice="FOR", bob="FOR", carol="FOR")
    closed = g.later(7 * DAY)
    assert g.of(e.VoteClosed, closed) and not g.of(e.SeedRevealed)


def test_random_judges_are_labelled_per_cfj_and_revealed_when_a_vote_closes() -> None:
    g = nomicam(provable=True)
    number = g.propose(ALICE, enact("Something."))
    g.ok(c.CallForJudgement(SPEAKER, "Proposal 301 is legal."))
    first = g.last(e.JudgeAssigned)
    assert first.draw is not None and first.draw.label == "judge:cfj-1"
    assert first.draw.candidates == first.drawn_from and first.draw.outcome == first.judge
    assert recomputed(g, first.draw) == first.judge
    assert g.state.seed_draws == 1 and not g.of(e.SeedRevealed)  # no voting period ended yet
    g.later(7 * DAY)  # the Judge misses the deadline; a vote closes in the same tick
    second = g.last(e.JudgeAssigned)
    assert second.draw is not None and second.draw.label == "judge:cfj-1/2"
    assert recomputed(g, second.draw) == second.judge
    [revealed] = g.of(e.SeedRevealed)
    assert revealed.reason == CLOSED_VOTE and revealed.commitment == first.draw.commitment
    assert second.draw.commitment == first.draw.commitment  # drawn before the reveal
    assert g.events[-1] is revealed and number in g.state.proposals


def test_the_new_speaker_among_winners_is_drawn_and_the_seed_revealed_for_the_new_game() -> None:
    g = nomicam(provable=True)
    g.ok(c.AdjustScore(SPEAKER, "Alice", Decimal(90), "head start"))
    g.ok(c.AdjustScore(SPEAKER, "bob@example.org", Decimal(95), "head start"))
    number = g.propose(ALICE)
    g.votes(number, alice="FOR", bob="AGAINST", carol="FOR")
    g.later(7 * DAY)
    begun = g.last(e.NewGameBegun)
    assert begun.draw is not None and begun.draw.label == "speaker:game-2"
    assert begun.draw.candidates == (ALICE, BOB) and begun.draw.outcome == begun.new_speaker
    assert recomputed(g, begun.draw) == begun.new_speaker
    revealed = g.last(e.SeedRevealed)
    assert revealed.reason == NEW_GAME and revealed.next_commitment == g.state.commitment


def test_the_end_of_the_game_reveals_its_seed_and_commits_none() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    ended = g.ok(c.EndGame(SPEAKER, "time to stop"))
    revealed = ended[-1]
    assert isinstance(revealed, e.SeedRevealed) and revealed.reason == GAME_OVER
    assert revealed.next_commitment == "" and g.state.commitment == ""


def test_admin_reveal_reveals_and_commits_the_next_and_is_refused_without_a_seed() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    before = g.state.commitment
    events = g.ok(c.RevealSeed(SPEAKER))
    assert isinstance(events[0], e.SpeakerOverride)
    revealed = events[-1]
    assert isinstance(revealed, e.SeedRevealed) and revealed.reason == HOST_ASKED
    assert revealed.commitment == before and g.state.commitment == revealed.next_commitment
    g.refused(c.RevealSeed(ALICE), "only the Speaker")
    scripted = Game("suber", [ALICE, BOB, CAROL])
    scripted.refused(c.RevealSeed(SPEAKER), "no seed to reveal")


def test_a_game_recorded_before_seeds_commits_one_at_its_next_decision() -> None:
    g = Game("suber", [ALICE, BOB, CAROL])  # started with no commitment, as older games were
    g.provable = RecordedDraws(g.events)  # then played on by a service that keeps seeds
    events = g.ok(c.Propose(ALICE, "First", "Text."))
    committed = events[-1]
    assert isinstance(committed, e.SeedCommitted) and committed.replaces == ""
    assert g.state.commitment == committed.commitment
    closing = g.votes(301, alice="FOR", bob="FOR", carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    assert thrown.draw is not None and recomputed(g, thrown.draw) == thrown.draw.outcome


def test_a_seed_the_service_lost_is_replaced_and_its_draws_carry_no_proof() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    lost = g.state.commitment
    draws_of(g).lost.add(lost)
    events = g.ok(c.Propose(ALICE, "First", "Text."))
    committed = events[-1]
    assert isinstance(committed, e.SeedCommitted) and committed.replaces == lost
    assert g.state.commitment == committed.commitment


def test_a_source_by_chance_proves_nothing_and_records_no_seed() -> None:
    picks: list[int] = []

    def chance(count: int) -> int:
        picks.append(count)
        return 0

    source = SeededDraws.by_chance(chance)
    assert source.after == 0 and not source.holds("")
    assert source.pick("die:1", 6, "", RecordLine(3, "ab" * 32)) == 0 and picks == [6]
    g = Game("suber", [ALICE, BOB, CAROL])
    g.provable = source
    closing = g.votes(g.propose(ALICE, enact("x")), alice="FOR", bob="FOR", carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    assert thrown.draw is None and thrown.value == 1 and not g.of(e.SeedRevealed)


def test_records_from_before_seeds_decode_with_no_proof_and_encode_as_they_were() -> None:
    older = {"type": "DieThrown", "at": "2026-01-05T12:00:00+00:00",
             "player": ALICE, "sides": 6, "value": 4}
    thrown = event_from_json(older)
    assert isinstance(thrown, e.DieThrown) and thrown.draw is None
    assert event_to_json(thrown) == older
    judge = {"type": "JudgeAssigned", "at": "2026-01-05T12:00:00+00:00", "cfj": 1,
             "judge": BOB, "how": "a random Voter", "deadline": None,
             "drawn_from": [BOB, CAROL]}
    assert event_to_json(event_from_json(judge)) == judge
    assert GameState().commitment == "" and GameState().seed_draws == 0


def test_a_draw_and_a_reveal_survive_storage() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    closing = g.votes(g.propose(ALICE, enact("x")), alice="FOR", bob="FOR", carol="FOR")
    for event in closing:
        assert event_from_json(event_to_json(event)) == event
    [thrown] = g.of(e.DieThrown, closing)
    stored = event_to_json(thrown)
    assert stored["draw"]["label"] == "die:301" and stored["draw"]["after"] == thrown.draw.after  # type: ignore[union-attr]
