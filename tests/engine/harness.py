"""A small driver for scripted games: commands in, events checked, replay verified at teardown."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from speakerbot.engine import GameState, apply, chain, evolve, replay, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.draw_events import RecordLine
from speakerbot.engine.luck import RandomSource, SeededDraws, commitment_of, derive_index
from speakerbot.engine.model import Choice, Clause, ClauseKind
from speakerbot.engine.snapshot import decode_state, encode_state
from speakerbot.mail.outbound.wording import refusal_text
from speakerbot.presets import load_preset
from tests.engine.cast import NAMES, SPEAKER, T0, VOTERS

# The mechanics of newer features that would change what tests of other behaviour see (a
# debate before every vote in the turn-based presets): games keep them off unless a test
# names them in ``mechanics``.
OTHER_BEHAVIOUR: dict[str, str] = {"debate": "none", "turn_period": "none"}

ALL_GAMES: list[Game] = []  # every game made in the current test, for the replay check

EventT = TypeVar("EventT", bound=e.Event)


class Dice:
    """A scripted random source: hands out queued values and fails on any unexpected draw."""

    after = 0  # its draws prove nothing: a scripted game records no seed

    def __init__(self) -> None:
        self.queue: list[int] = []
        self.asked: list[tuple[int, int]] = []

    def load(self, *values: int) -> None:
        self.queue.extend(values)

    def holds(self, commitment: str) -> bool:
        return False

    def pick(self, label: str, count: int, commitment: str, anchor: RecordLine) -> int:
        """Hand out the next value: a die's face for a die (``die:...``), else an index."""
        a = 1 if label.startswith("die:") else 0
        return self.randint(a, a + count - 1) - a

    def randint(self, a: int, b: int) -> int:
        """The next scripted value, from ``a`` to ``b``."""
        self.asked.append((a, b))
        if not self.queue:
            raise AssertionError(f"unexpected random draw from {a} to {b}")
        value = self.queue.pop(0)
        assert a <= value <= b, f"scripted {value} outside {a}..{b}"
        return value

    def reveal(self, commitment: str) -> str:
        raise AssertionError("a scripted game has no seed to reveal")

    def commit(self, following: str) -> str:
        raise AssertionError("a scripted game commits no seed")


class RecordedDraws:
    """A provable source for a scripted game: its draws anchored to the game's own record.

    ``after`` is the head of the public record the events so far make, linked as the store
    links it (chain.py); seeds are drawn from a counter, so that a test knows them. Each
    draw's anchor, which the engine finds in its state, must be a line of that record with
    the hash the record gives it.
    """

    def __init__(self, events: list[e.Event]) -> None:
        self.events = events  # the game's record, read at each draw (a decision adds later)
        self.seeds: dict[str, bytes] = {}
        self.lost: set[str] = set()  # seeds the test has the game forget

    def head(self) -> chain.Head:
        lines = record_lines(self.events)
        return chain.Head.of(lines[-1]) if lines else chain.Head()

    @property
    def after(self) -> int:
        return self.head().seq

    def holds(self, commitment: str) -> bool:
        return commitment in self.seeds and commitment not in self.lost

    def pick(self, label: str, count: int, commitment: str, anchor: RecordLine) -> int:
        assert self.holds(commitment), "a draw no seed proves, in a provable game"
        lines = record_lines(self.events)
        assert 0 <= anchor.seq <= len(lines), f"a draw anchored to line {anchor.seq}"
        assert anchor.hash == (lines[anchor.seq - 1]["hash"] if anchor.seq else chain.GENESIS)
        return derive_index(self.seeds[commitment], anchor.hash, label, count)

    def reveal(self, commitment: str) -> str:
        return self.seeds[commitment].hex()

    def commit(self, following: str) -> str:
        seed = hashlib.sha256(f"seed {len(self.seeds)}".encode()).digest()
        self.seeds[commitment_of(seed)] = seed
        return commitment_of(seed)


class Played:
    """What every game here keeps: a state, its record (``events``) and a clock."""

    state: GameState
    events: list[e.Event]
    now: datetime

    @property
    def source(self) -> RandomSource:
        """Where the game's draws come from."""
        raise NotImplementedError

    def later(self, delta: timedelta) -> list[e.Event]:
        """Let ``delta`` pass, then tick; the tick's events join the record and are returned."""
        self.now += delta
        self.state, events = tick(self.state, self.now, self.source)
        self.events.extend(events)
        return events


class Game(Played):
    """One game, driven command by command, keeping the whole record."""

    def __init__(
        self,
        preset: str,
        players: Iterable[str] = (),
        *,
        mechanics: dict[str, str] | None = None,
        judge: str = "",
        judge_name: str = "",
        open_registration: bool = True,
        phrases: bool = False,
        provable: bool = False,
    ) -> None:
        """``phrases``: the game reads its mechanics again when their rules change (off in the
        scripted games of other behaviour, whose records are pinned: see test_codec_fixture).
        ``provable``: the game draws with committed seeds (``RecordedDraws``), not scripted
        dice."""
        self.state = GameState()
        self.events: list[e.Event] = []
        self.now = T0
        self.dice = Dice()
        # A provable source, when the game draws with committed seeds rather than dice.
        self.provable: RandomSource | None = RecordedDraws(self.events) if provable else None
        ALL_GAMES.append(self)
        ruleset = load_preset(preset)
        # The test's mechanics are the ruleset's own: as overrides, each game's first event
        # would name them (GameStarted.overridden), and the pinned records would change.
        ruleset = dataclasses.replace(
            ruleset, mechanics={**ruleset.mechanics, **OTHER_BEHAVIOUR, **(mechanics or {})},
            phrases=ruleset.phrases if phrases else {})
        commitment = self.provable.commit("") if self.provable is not None else ""
        self.ok(c.StartGame(SPEAKER, ruleset, "Chuck", judge, judge_name, {},
                            open_registration, commitment=commitment))
        for address in players:
            self.ok(c.AddPlayer(SPEAKER, address, NAMES[address]))

    # --- driving ---

    @property
    def source(self) -> RandomSource:
        """Where the game's draws come from: its provable source, else its scripted dice."""
        return self.provable if self.provable is not None else self.dice

    def send(self, command: c.Command) -> list[e.Event]:
        if self.provable is not None:
            # As mail arrives, a second after the last: a draw is anchored to the record as
            # it stood before its moment (every line of which bears that moment's time).
            self.now += timedelta(seconds=1)
        before = self.state
        self.state, events = apply(self.state, command, self.now, self.source)
        if any(isinstance(event, e.CommandRejected) for event in events):
            assert self.state is before, "a refused command must not change the state"
        else:
            self.events.extend(events)
        return events

    def ok(self, command: c.Command) -> list[e.Event]:
        events = self.send(command)
        refused = [event for event in events if isinstance(event, e.CommandRejected)]
        assert not refused, f"{command} was refused: {refusal_text(refused[0])[0]}"
        return events

    def refused(self, command: c.Command, *fragments: str) -> e.CommandRejected:
        snapshot = replay(self.events)
        events = self.send(command)
        assert len(events) == 1 and isinstance(events[0], e.CommandRejected), events
        rejection = events[0]
        reason, remedy = refusal_text(rejection)
        for fragment in fragments:
            assert fragment in reason + " / " + remedy, rejection
        assert snapshot == self.state, "a refused command changed the state"
        return rejection

    def step(self, delta: timedelta = timedelta(minutes=1)) -> None:
        """Let a little time pass without expecting anything to fall due."""
        assert self.later(delta) == []

    # --- shortcuts ---

    def propose(self, actor: str, *clauses: Clause, title: str = "A proposal",
                text: str = "Text of the proposal.") -> int:
        events = self.ok(c.Propose(actor, title, text, tuple(clauses)))
        submitted = [event for event in events if isinstance(event, e.ProposalSubmitted)]
        assert len(submitted) == 1
        return submitted[0].number

    def vote(self, actor: str, number: int, choice: Choice | str) -> list[e.Event]:
        return self.ok(c.CastBallot(actor, number, Choice(choice)))

    def votes(self, number: int, **choices: str) -> list[e.Event]:
        """Cast ballots by first name: votes(301, alice="FOR", bob="AGAINST")."""
        out: list[e.Event] = []
        for name, choice in choices.items():
            out += self.vote(f"{name}@example.org", number, choice)
        return out

    def score(self, address: str) -> Decimal:
        return self.state.players[address].score

    def scores(self) -> dict[str, Decimal]:
        return {a: p.score for a, p in self.state.players.items()}

    def of(self, kind: type[EventT], events: Iterable[e.Event] | None = None) -> list[EventT]:
        return [event for event in (self.events if events is None else events)
                if isinstance(event, kind)]

    def reminded(self, events: Iterable[e.Event] | None = None) -> set[tuple[int, str]]:
        """Return (proposal or CFJ number, player) for everything the reminders listed.

        Checks that each player got at most one reminder, and each thing was listed once.
        """
        reminders = self.of(pe.Reminded, events)
        assert len({r.player for r in reminders}) == len(reminders), "two reminders to one"
        found = [(owed.number, r.player) for r in reminders for owed in r.owed]
        assert len(set(found)) == len(found)
        return set(found)

    def last(self, kind: type[EventT]) -> EventT:
        found = self.of(kind)
        assert found, f"no {kind.__name__} yet"
        return found[-1]

    def check_replay(self) -> None:
        assert replay(self.events) == self.state, "replaying the record gave another state"
        # The record the state folds, where draws are anchored, is the one the store links.
        lines = record_lines(self.events)
        head = self.state.record.head
        assert (head.seq, head.hash) == ((lines[-1]["seq"], lines[-1]["hash"]) if lines
                                         else (0, chain.GENESIS))
        stored = [event_from_json(event_to_json(event)) for event in self.events]
        assert stored == self.events, "events do not survive storage as JSON"
        assert replay(stored) == self.state
        self.check_snapshots()

    def check_snapshots(self) -> None:
        """A snapshot after any event, plus the events after it, gives the state replay does."""
        state = GameState()
        for taken, event in enumerate([*self.events, None]):
            resumed = decode_state(encode_state(state))
            assert resumed == state, f"the snapshot after event {taken} reads back otherwise"
            for later in self.events[taken:]:
                evolve(resumed, later)
            assert resumed == self.state, f"a snapshot after event {taken} and the tail differ"
            if event is not None:
                evolve(state, event)


def nomicam(preset: str = "nomicam", *, phrases: bool = False, provable: bool = False) -> Game:
    """A game of ``preset`` (nomicam's unless named) with the five ``VOTERS`` as players."""
    return Game(preset, VOTERS, phrases=phrases, provable=provable)


def draws_of(g: Game) -> RecordedDraws:
    """The seeds and draws of a provable game (``provable=True``)."""
    assert isinstance(g.provable, RecordedDraws)
    return g.provable


class DirectGame(Played):
    """A game played on the engine directly, with none of ``Game``'s checks: quick at scale.

    Its draws are by chance from ``rng`` (they prove nothing); ``rng`` is a test's to use too.
    """

    def __init__(self, seed: int) -> None:
        """An empty game at ``T0`` whose chance is ``random.Random(seed)``."""
        self.rng = random.Random(seed)
        self.draws = SeededDraws.by_chance(self.rng.randrange)
        self.now = T0
        self.state = GameState()
        self.events = []

    @property
    def source(self) -> RandomSource:
        """Chance, from ``rng``."""
        return self.draws

    def run(self, command: c.Command) -> list[e.Event]:
        """Apply ``command`` now; its events join the record and are returned."""
        self.state, events = apply(self.state, command, self.now, self.draws)
        self.events.extend(events)
        return events


def enact(text: str, immutable: bool = False) -> Clause:
    return Clause(ClauseKind.ENACT, None, text, immutable)


def amend(rule: int, text: str) -> Clause:
    return Clause(ClauseKind.AMEND, rule, text)


def repeal(rule: int) -> Clause:
    return Clause(ClauseKind.REPEAL, rule)


def transmute(rule: int) -> Clause:
    return Clause(ClauseKind.TRANSMUTE, rule)


def set_(parameter: str, value: str) -> Clause:
    return Clause(ClauseKind.SET, None, value, parameter=parameter)


def public_events(events: Iterable[e.Event]) -> list[dict[str, Any]]:
    return [event_to_json(event) for event in events if event.public]


def record_lines(events: Iterable[e.Event]) -> list[dict[str, Any]]:
    """The lines of the public record ``events`` make, linked as the store links them."""
    return list(chain.public_lines_after(chain.Links(), (event_to_json(ev) for ev in events)))
