"""Names are public, addresses are not: public mail names players, never their addresses.

A player who joins, or whom the host adds, removes or rescores by address, is announced by
name; only the receipts in the results (which a rule needs) carry voters' addresses.
"""

from __future__ import annotations

import time
from decimal import Decimal

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import replay
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer
from speakerbot.mail.outbound.lookups import describe_event
from speakerbot.mail.outbound.naming import without_addresses
from speakerbot.resources import templates_dir
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game

CAMFORD = GameIdentity("Camford Nomic", "nomic@camford.example")
NAMES = {"bob@example.org": "Bob"}


@pytest.mark.parametrize(("summary", "shown"), [
    ("added player Bob <bob@example.org>", "added player Bob"),
    ("removed player bob@example.org: left", "removed player Bob: left"),
    ("changed bob@example.org's score by +5", "changed Bob's score by +5"),
    ("removed player BOB@Example.org.", "removed player Bob."),
    ("removed player eve@example.org", "removed player (an address)"),
    ("set quorum = 2/3", "set quorum = 2/3"),
    ("voided proposal 301: see mail to x@y.z, please", "voided proposal 301: see mail to "
     "(an address), please"),
    ("removed player <bob@example.org>", "removed player Bob"),
    ("removed player <eve@example.org>: spam", "removed player (an address): spam"),
    ("removed player o'brien@example.org", "removed player (an address)"),
    ("removed bob@example.org!", "removed Bob!"),
    ("removed [bob@example.org]", "removed [Bob]"),
    ("removed player \"a b\"@example.org", "removed player (an address)"),
])
def test_an_override_summary_names_players_and_withholds_addresses(summary: str,
                                                                   shown: str) -> None:
    assert without_addresses(summary, lambda a: NAMES.get(a, a)) == shown


def _announced(g: Game, command: c.Command) -> list[Outgoing]:
    before = replay(g.events)
    events = g.ok(command)
    return Announcer(CAMFORD, Renderer(templates_dir())).messages(events, g.state, "1", before)


def test_joining_adding_removing_and_rescoring_are_announced_by_name_only() -> None:
    g = Game("nomicam", [ALICE, BOB])
    addresses = {ALICE, BOB, CAROL, SPEAKER}
    sent = [*_announced(g, c.Join(CAROL, "Carol")),
            *_announced(g, c.AddPlayer(SPEAKER, "dave@example.org", "Dave")),
            *_announced(g, c.AdjustScore(SPEAKER, "bob@example.org", Decimal(5), "tea")),
            *_announced(g, c.RemovePlayer(SPEAKER, "carol@example.org", "moved away"))]
    # Carol and Dave are each welcomed privately too (to their own address alone).
    welcomes = [message for message in sent if message.kind == "welcome"]
    assert [message.recipients for message in welcomes] == [(CAROL,), ("dave@example.org",)]
    sent = [message for message in sent if message.public]
    assert len(sent) == 4
    for message in sent:
        text = message.subject + "\n" + message.body
        assert not [a for a in (*addresses, "dave@example.org") if a in text], text
    assert "Speaker's override: added player Dave" in sent[1].subject
    assert "removed player Carol: moved away" in sent[3].body
    overrides = [ev for ev in g.events if ev.public and type(ev).__name__ == "SpeakerOverride"]
    names = {address: player.name for address, player in g.state.players.items()}
    assert all("@" not in describe_event(ev, names) for ev in overrides)


@pytest.mark.parametrize("text", ["a" * 100_000, " " * 100_000 + "<a@b", "a@" * 50_000,
                                  '"a' * 50_000 + "@x", "<a@" * 30_000])
def test_a_pathological_summary_is_written_in_linear_time(text: str) -> None:
    # The host's reason can be one long line; a backtracking pattern took 28 s for 100 KB.
    started = time.perf_counter()
    without_addresses(text, lambda address: address)
    assert time.perf_counter() - started < 2
