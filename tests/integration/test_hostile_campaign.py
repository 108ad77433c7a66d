"""A hostile-mail campaign interleaved with a real game, through the running daemon.

More than 200 hostile messages (forged senders, forged and misplaced Authentication-Results,
broken MIME, charset traps, huge lines, deep multiparts, NUL bytes, encoded-word tricks,
copied Message-IDs, floods from one and from many, mail from the game's own address) go
into the game's mailbox between the players' real mail. Every real ballot counts; every
hostile message is stored (or set aside), none stalls intake; an address that is no player
gets at most one message a day, never larger than what it sent. The figures are printed for
docs/operations.md.
"""

from __future__ import annotations

import time
from collections import Counter
from email.utils import make_msgid
from typing import cast

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from speakerbot.adapters.store import Inbound, Outbox, Store
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, admin_mail, body_of
from tests.integration.hostile import campaign
from tests.support.patience import patience

pytestmark = pytest.mark.integration

ALICE, BOB, CAROL, DAVE = (f"{n}@nomic.test" for n in ("alice", "bob", "carol", "dave"))
PLAYERS = [ALICE, BOB, CAROL, DAVE]


def wait_until(game: RunningGame, what: str, done: object,
               timeout: float = patience(120)) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.05
    assert callable(done)
    while not done():
        assert game.process is not None and game.process.poll() is None, game.log_text()[-4000:]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def test_a_hostile_campaign_changes_no_ballot_and_stalls_nothing(make_game: MakeGame) -> None:
    game = make_game("nomicam", {"reminder_before": "none", "voting_period": "1d"})
    game.begin(*((address, address.split("@")[0].title()) for address in PLAYERS))
    game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
    game.send(BOB, "PROPOSE: Cake", "Cake is served on Sundays.\n")
    game.wait_subject("Proposal 302:")

    # The real players' votes, some changed later; their Message-IDs leak to the forger.
    legit: list[tuple[str, str, str]] = [
        (ALICE, "VOTE 301 FOR\nVOTE 302 FOR\n", make_msgid(domain="nomic.test")),
        (BOB, "VOTE 301 FOR\nVOTE 302 AGAINST\n", make_msgid(domain="nomic.test")),
        (CAROL, "VOTE 301 AGAINST\nVOTE 302 FOR\n", make_msgid(domain="nomic.test")),
        (DAVE, "VOTE 301 FOR\n", make_msgid(domain="nomic.test")),
        (CAROL, "VOTE 301 FOR\n", make_msgid(domain="nomic.test")),  # Carol changes her mind
        (DAVE, "VOTE 302 AGAINST\n", make_msgid(domain="nomic.test")),
    ]
    hostile = campaign(PLAYERS, [message_id for _, _, message_id in legit])
    assert len(hostile) >= 200
    bytes_in = sum(len(h.raw) for h in hostile)
    started = time.monotonic()
    step = len(hostile) // (len(legit) + 1)
    for n, item in enumerate(hostile):
        game.append(item.raw)
        if n % step == step - 1 and legit:
            sender, body, message_id = legit.pop(0)
            game.send(sender, "my votes", body, message_id=message_id)
    for sender, body, message_id in legit:
        game.send(sender, "my votes", body, message_id=message_id)
    appended = len(hostile) + 6 + 2

    def taken_in() -> bool:
        with Store(game.db_url) as store, Session(store.engine) as session:
            rows = list(session.scalars(select(Inbound)))
        return len(rows) >= appended and all(
            row.status not in ("new", "retry") for row in rows) and not game.inbox()

    wait_until(game, "every message taken in", taken_in)
    took = time.monotonic() - started
    # The host closes the votes; the results reveal every counted ballot.
    game.send(SPEAKER, "close", admin_mail("ADMIN CLOSE 301\nADMIN CLOSE 302"))
    first = game.wait_subject("Proposal 301 ADOPTED", timeout=patience(60))
    second = game.wait_subject("Proposal 302 ", timeout=patience(60))
    game.wait_subject("Re: close", to=SPEAKER)
    assert game.stop() == 0

    # Every real ballot counts, as last cast; no forged one does.
    results_301, results_302 = body_of(first), body_of(second)
    state = game.state()
    ballots = {number: {voter: b.choice.value for voter, b in
                        dict(state.proposals[number].ballots).items()}
               for number in (301, 302)}
    closed = {e["proposal"]: dict(cast(list[tuple[str, str]], e["ballots"]))
              for e in game.events() if e["type"] == "VoteClosed"}
    assert closed[301] == {ALICE: "FOR", BOB: "FOR", CAROL: "FOR", DAVE: "FOR"}, ballots
    assert closed[302] == {ALICE: "FOR", BOB: "AGAINST", CAROL: "FOR", DAVE: "AGAINST"}
    assert "4 for, 0 against" in results_301 and "2 for, 2 against" in results_302
    assert all(state.players[p].active for p in PLAYERS)
    overrides = [e["action"] for e in game.events() if e["type"] == "SpeakerOverride"]
    # The CLI added the players; the host closed the votes; no forged ADMIN ran.
    assert overrides == ["AddPlayer"] * 4 + ["CloseVote", "CloseVote"]
    assert not [e for e in game.events() if e["type"] in ("CfjCalled", "ConsentDeclared")]

    with Store(game.db_url) as store, Session(store.engine) as session:
        inbound = list(session.scalars(select(Inbound)))
        outbox = list(session.scalars(select(Outbox)))
    statuses = Counter(row.status for row in inbound)
    # Nothing lost: every message appended (and the host's close) is stored, once; nothing
    # is left to do.
    assert len(inbound) == appended + 1, statuses
    assert not statuses["new"] and not statuses["retry"], statuses
    by_id = {row.id: row for row in inbound}
    players = {*PLAYERS, SPEAKER}
    to_strangers = [row for row in outbox if not set(row.recipients) <= players]
    per_address = Counter(r for row in to_strangers for r in row.recipients)
    assert all(count <= 1 for count in per_address.values()), per_address
    for row in to_strangers:
        cause = by_id[row.inbound_id] if row.inbound_id else None
        assert cause is not None, row.kind
        assert len(row.raw) <= max(len(cause.raw), cause.oversized or 0), row.kind
    bytes_out = sum(len(row.raw) * len(row.recipients) for row in to_strangers)
    replies = [row for row in outbox if row.kind in ("reply", "limit", "stranger", "confirm")]
    print(f"\nhostile campaign: {len(hostile)} hostile + {appended - len(hostile)} real "
          f"messages in {took:.1f} s; stored {len(inbound)}; statuses {dict(statuses)}; "
          f"set aside {statuses['set_aside']}; lost {appended + 1 - len(inbound)}; "
          f"replies and requests {len(replies)}; to non-players {len(to_strangers)} "
          f"({bytes_out} bytes out for {bytes_in} hostile bytes in: "
          f"{bytes_out / bytes_in:.4f} per byte)")
