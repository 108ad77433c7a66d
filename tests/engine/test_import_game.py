"""A game imported where a hand-run one stands plays on from there, in the pure engine.

The worked example (config/example-import.toml: six players under suber, at proposal
457) is read as ``speakerbot import`` reads it and applied: GameStarted comes first and
names its source, the next proposal takes 457, scores count on from the imported ones,
the open proposal goes to its vote with no ballots and closes on time. A second import
is refused, and what the engine must refuse of a snapshot it refuses. The record survives
JSON (the harness replays every game through the codec), and a game started afresh is
encoded exactly as before.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine import apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.edits import MAX_RULE_BYTES
from speakerbot.engine.model import Choice, GameState, Role, RuleSpec
from speakerbot.engine.refusals import Refusal
from speakerbot.engine.starting import IMPORTED_SCORE, ruleset_digest
from speakerbot.presets import load_preset
from speakerbot.presets.located import read_located
from speakerbot.presets.snapshot import Importer, Snapshot, read_snapshot
from tests.engine.cast import SPEAKER, T0
from tests.engine.harness import ALL_GAMES, OTHER_BEHAVIOUR, Dice, Game
from tests.support.file_edits import edited

EXAMPLE = (Path(__file__).resolve().parents[2] / "config" / "example-import.toml").read_text(
    encoding="utf-8")
FIXTURE = Path(__file__).parent / "fixtures" / "events.jsonl"
ANN, BEA, CYD, DORA, ELI, FAY = (f"{n}@example.org" for n in
                                 ("ann", "bea", "cyd", "dora", "eli", "fay"))
SCORES = {ANN: Decimal(57), BEA: Decimal(112), CYD: Decimal(-5), DORA: Decimal(88),
          ELI: Decimal(31), FAY: Decimal(0)}
CLOSES = datetime(2030, 12, 1, 18, 0, tzinfo=UTC)


def snapshot(*changes: tuple[str, str]) -> Snapshot:
    text = edited(EXAMPLE, *changes)
    importer = Importer(load_preset("suber"), SPEAKER, T0, {}, lambda address: None,
                        MAX_RULE_BYTES)
    return read_snapshot(read_located(text.encode(), "game.toml"), "game.toml", importer)


def command(taken: Snapshot) -> c.ImportGame:
    start = c.StartGame(SPEAKER, taken.ruleset, "Chuck", mechanics=dict(OTHER_BEHAVIOUR),
                        game_id="pine", record_version=2)
    return c.ImportGame(SPEAKER, start, taken.source, taken.title, taken.next_proposal,
                        taken.players, taken.mover, taken.proposals)


class ImportedGame(Game):
    """A harness game whose first command is an import (none yet: ``cmd`` None)."""

    def __init__(self, cmd: c.ImportGame | None) -> None:
        self.state = GameState()
        self.events: list[e.Event] = []
        self.now = T0
        self.dice = Dice()
        self.provable = None
        ALL_GAMES.append(self)  # replayed, and through JSON, after the test
        self.imported = self.ok(cmd) if cmd is not None else []


def without_open_proposals() -> Snapshot:
    text_start = EXAMPLE.index("[[proposals]]")
    text_end = EXAMPLE.index("# The rules as they are now")
    return snapshot((EXAMPLE[text_start:text_end], ""))


def test_the_import_is_the_first_event_and_names_its_source() -> None:
    taken = snapshot()
    game = ImportedGame(command(taken))
    started = game.events[0]
    assert isinstance(started, e.GameStarted) and started.public
    assert (started.title, started.imported_from, started.next_proposal) == (
        "Pine Street Nomic", taken.source, 457)
    assert started.rules == taken.ruleset.rules
    assert started.mechanics.win_points == 200
    assert dict(started.sources)["win_points"] == 412
    joined = game.of(e.PlayerJoined)
    assert [(p.address, p.name) for p in joined] == [
        (p.address, p.name) for p in taken.players]
    assert game.of(e.TurnPassed)[0].mover == DORA
    changed = game.of(e.ScoreChanged)
    assert {(s.player, s.delta, s.reason) for s in changed} == {
        (address, score, IMPORTED_SCORE) for address, score in SCORES.items() if score}
    assert game.scores() == SCORES
    assert game.state.next_proposal == 457


def test_the_open_proposal_goes_to_its_vote_with_no_ballots_and_closes_on_time() -> None:
    game = ImportedGame(command(snapshot()))
    [submitted] = game.of(e.ProposalSubmitted)
    assert (submitted.number, submitted.proposer, submitted.closes_at) == (456, DORA, CLOSES)
    proposal = game.state.proposals[456]
    assert proposal.ballots == {}
    assert proposal.closes_at == CLOSES
    game.vote(ANN, 456, Choice.FOR)
    game.dice.load(3)
    before = game.later(CLOSES - game.now - timedelta(minutes=1))  # reminders, no close
    assert game.of(e.VoteClosed, before) == []
    assert [p.number for p in game.state.open_proposals()] == [456]
    [closed] = game.of(e.VoteClosed, game.later(timedelta(minutes=1)))
    assert (closed.proposal, closed.adopted, closed.ballots) == (456, False, ((ANN, Choice.FOR),))
    assert game.state.open_proposals() == []
    assert game.state.turn is not None and game.state.turn.mover == ELI
    # Unanimity not reached (one of six voted): defeated, and Dora pays 5 from her 88.
    assert game.score(DORA) == Decimal(88) - 5 + 3


def test_the_next_proposal_takes_the_imported_number_and_scores_count_on() -> None:
    game = ImportedGame(command(without_open_proposals()))
    assert game.state.turn is not None and game.state.turn.mover == DORA
    assert game.propose(DORA, title="Shorter terms") == 457
    for player in (ANN, BEA, CYD, ELI, FAY):
        game.vote(player, 457, Choice.FOR)
    game.dice.load(4)
    game.vote(DORA, 457, Choice.AGAINST)
    assert game.score(DORA) == Decimal(88) - 5 + 4
    assert {a: s for a, s in game.scores().items() if a != DORA} == {
        a: s for a, s in SCORES.items() if a != DORA}
    assert game.state.turn is not None and game.state.turn.mover == ELI
    assert game.propose(ELI) == 458


def test_without_a_turn_the_first_player_moves() -> None:
    taken = dataclasses.replace(without_open_proposals(), mover="")
    game = ImportedGame(command(taken))
    assert game.state.turn is not None and game.state.turn.mover == ANN


def test_a_second_import_over_a_running_game_is_refused() -> None:
    cmd = command(snapshot())
    game = ImportedGame(cmd)
    game.refused(cmd, "already running")
    game.refused(cmd.start, "already running")


def _player(address: str) -> c.ImportedPlayer:
    return c.ImportedPlayer(address, address.split("@")[0].title(), Decimal(0))


BAD = {
    "no players": lambda cmd: dataclasses.replace(cmd, players=()),
    "a player twice": lambda cmd: dataclasses.replace(
        cmd, players=(*cmd.players, _player(ANN))),
    "a mover not a player": lambda cmd: dataclasses.replace(cmd, mover="zed@example.org"),
    "a proposal numbered at the next": lambda cmd: dataclasses.replace(
        cmd, proposals=(dataclasses.replace(cmd.proposals[0], number=457),)),
    "a proposal given twice": lambda cmd: dataclasses.replace(
        cmd, proposals=cmd.proposals * 2),
    "a proposer not a player": lambda cmd: dataclasses.replace(
        cmd, proposals=(dataclasses.replace(cmd.proposals[0], proposal=dataclasses.replace(
            cmd.proposals[0].proposal, actor="zed@example.org")),)),
    "the next number not above the rules": lambda cmd: dataclasses.replace(
        cmd, next_proposal=412, proposals=()),
}


@pytest.mark.parametrize("spoil", BAD.values(), ids=BAD.keys())
def test_what_the_engine_refuses_of_a_snapshot(spoil: Any) -> None:
    game = ImportedGame(None)
    game.refused(spoil(command(snapshot())), "cannot be imported")
    assert game.events == [] and not game.state.started


def test_an_imported_record_survives_json_with_its_new_fields() -> None:
    game = ImportedGame(command(snapshot()))
    stored = event_to_json(game.events[0])
    assert stored["imported_from"] == snapshot().source and stored["next_proposal"] == 457
    last = stored["rules"][-1]
    assert (last["number"], last["title"], last["history"][0]) == (
        412, "Winning", "Rule 208 in the initial set (100 points)")
    assert event_from_json(json.loads(json.dumps(stored))) == game.events[0]


def test_a_game_started_afresh_encodes_exactly_as_before() -> None:
    game = Game("suber")
    stored = event_to_json(game.events[0])
    assert not {"imported_from", "next_proposal"} & set(stored)
    assert all(set(rule) == {"number", "text", "mutable"} for rule in stored["rules"])
    pinned = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    first = next(event for event in pinned if event["type"] == "GameStarted")
    assert set(stored) == set(first)
    assert all(set(rule) == {"number", "text", "mutable"} for rule in first["rules"])


# --- The ruleset's digest ---

_RULES = st.dictionaries(
    st.integers(1, 999),
    st.tuples(st.text(max_size=20), st.booleans(), st.text(max_size=8)),
    min_size=1, max_size=6,
).map(lambda found: [RuleSpec(n, text, mutable, title)
                     for n, (text, mutable, title) in found.items()])


@settings(max_examples=200, deadline=None)
@given(_RULES, st.randoms(use_true_random=False), st.data())
def test_the_digest_changes_with_any_rule_and_not_with_their_order(
        rules: list[RuleSpec], order: Any, data: st.DataObject) -> None:
    digest = ruleset_digest(rules)
    shuffled = list(rules)
    order.shuffle(shuffled)
    assert ruleset_digest(shuffled) == digest
    index = data.draw(st.integers(0, len(rules) - 1))
    rule = rules[index]
    numbers = {r.number for r in rules}
    changes = [
        dataclasses.replace(rule, text=rule.text + data.draw(st.text(min_size=1, max_size=3))),
        dataclasses.replace(rule, title=rule.title + "x"),
        dataclasses.replace(rule, mutable=not rule.mutable),
        dataclasses.replace(rule, number=data.draw(st.integers(1, 2000).filter(
            lambda n: n not in numbers))),
    ]
    for changed in changes:
        assert ruleset_digest([*rules[:index], changed, *rules[index + 1:]]) != digest


def test_the_digest_is_the_sha256_of_the_rules_as_written() -> None:
    rules = [RuleSpec(2, "Second.", True), RuleSpec(1, "Fïrst.", False, "One")]
    written = '[[1,"immutable","One","Fïrst."],[2,"mutable","","Second."]]'
    assert ruleset_digest(rules) == hashlib.sha256(written.encode()).hexdigest()


def test_no_rules_text_passes_for_a_rule_boundary() -> None:
    # Written as lines, rule 1 whose text held a blank line, "2" and "mutable" digested as
    # rules 1 and 2.
    one = [RuleSpec(1, "a\n\n2\nmutable\n\nb", False)]
    two = [RuleSpec(1, "a", False), RuleSpec(2, "b", True)]
    assert ruleset_digest(one) != ruleset_digest(two)


def test_an_open_proposal_far_below_the_next_number_leaves_the_next_number() -> None:
    # 450 open with 457 next: the record alone must say 457, as the state does.
    game = ImportedGame(command(snapshot(("number = 456", "number = 450"))))
    assert game.state.next_proposal == 457
    game.check_replay()
    game.vote(ANN, 450, Choice.AGAINST)
    game.dice.load(1)
    [closed] = game.of(e.VoteClosed, game.later(CLOSES - game.now))
    assert (closed.proposal, closed.adopted) == (450, False)
    assert game.state.turn is not None and game.state.turn.mover == ELI
    assert game.propose(ELI) == 457


def test_an_open_flow_import_has_no_turns_and_anyone_proposes() -> None:
    taken = snapshot(('turn = "dora@example.org"\n', ""),
                     ("proposer_rejected_points = 5\n",
                      'proposer_rejected_points = 5\nflow = "open"\n'))
    game = ImportedGame(command(taken))
    assert game.of(e.TurnPassed) == [] and game.state.turn is None
    assert {p.role for p in game.of(e.PlayerJoined)} == {Role.VOTER}
    assert game.propose(FAY) == 457 and game.propose(ANN) == 458
    assert [p.number for p in game.state.open_proposals()] == [456, 457, 458]


def test_a_ruleset_rule_longer_than_the_hosts_limit_starts_no_game() -> None:
    # A group's own file may hold a rule the host's [limits] would never let a change make.
    preset = load_preset("suber")
    command = c.StartGame(SPEAKER, preset, "Chuck")
    longest = max(len(rule.text.encode()) for rule in preset.rules)
    state, events = apply(GameState(), command, T0, max_rule_bytes=longest - 1)
    [rejected] = events
    assert isinstance(rejected, e.CommandRejected)
    assert rejected.refusal is Refusal.RULE_TOO_LONG and not state.started
    state, events = apply(GameState(), command, T0, max_rule_bytes=longest)
    assert state.started
