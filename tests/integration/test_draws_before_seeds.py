"""A game recorded before draws were provable, played on by the service that proves them.

Its record replays unchanged: its die stays as recorded, counted as drawn before draws were
provable. At its next move the service commits a seed (``SeedCommitted``), and the next die
is drawn with it and verified once revealed with the results.
"""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

from speakerbot.adapters.store import Store
from speakerbot.engine import apply, replay
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.chain import lines
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.draw_check import check_draws
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset
from speakerbot.service import GameService
from tests.support.mailgame import (
    ALICE,
    BOB,
    CAROL,
    NAMES,
    SPEAKER,
    T0,
    Clock,
    make_settings,
    raw_mail,
)

PLAYERS = (ALICE, BOB, CAROL)


def _older_record() -> list[e.Event]:
    """A suber game as speakerbot recorded it before seeds: no commitment, a die unproved."""
    chance = SeededDraws.by_chance(random.Random(3).randrange)
    events: list[e.Event] = []
    state = replay([])

    def run(command: c.Command) -> None:
        nonlocal state
        state, produced = apply(state, command, T0, chance)
        assert not any(isinstance(ev, e.CommandRejected) for ev in produced), produced
        events.extend(produced)

    run(c.StartGame(SPEAKER, load_preset("suber"), "Chuck",
                    mechanics={"debate": "none", "turn_period": "none"}, game_id="0" * 16))
    for player in PLAYERS:
        run(c.AddPlayer(SPEAKER, player, NAMES[player]))
    run(c.Propose(ALICE, "Singing", "Players may sing."))
    for player in PLAYERS:
        run(c.CastBallot(player, 301, Choice.FOR, salt="ab" * 16))
    assert any(isinstance(ev, e.DieThrown) and ev.draw is None for ev in events)
    return events


def test_an_older_game_keeps_its_draws_and_proves_the_next(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, "suber", mechanics={"debate": "none",
                                                            "turn_period": "none"})
    older = [event_to_json(ev) for ev in _older_record()]
    with Store(settings.database.url) as store:
        store.upgrade()
        with store.transaction() as session:
            store.append_events(session, older, now=T0)
        clock = Clock(T0 + timedelta(hours=1))
        service = GameService(store, settings, rng=random.Random(1), clock=clock)
        assert service.state() == replay([event_from_json(data) for data in older])

        def mail(sender: str, body: str) -> None:
            clock.now += timedelta(minutes=1)
            service.receive(raw_mail(sender, "move", body, date=clock.now), clock.now,
                            source="test")
            service.process_pending()

        mail(BOB, "PROPOSE: Dancing\nPlayers may dance.\nEND PROPOSE\n")
        recorded = [row.data for row in store.load_events()]
        assert recorded[: len(older)] == older  # the older record is kept as it was
        committed = [data for data in recorded if data["type"] == "SeedCommitted"]
        assert len(committed) == 1 and service.state().commitment == committed[0]["commitment"]
        for player in PLAYERS:
            mail(player, "VOTE 302 FOR\n")
        types = [row.data["type"] for row in store.load_events()]
        assert types.count("DieThrown") == 2 and types[-1] == "SeedRevealed"
        report = check_draws(lines(service.stored_record(), public=True))
    assert (report.verified, report.awaiting, report.unprovable) == (1, 0, 1)
    assert report.failures == []
