"""The daemon is crash-safe and recovers by itself, on SQLite and on PostgreSQL.

Killed with SIGKILL at each step, down across a deadline, fed the same mail twice, cut off
from its IMAP and SMTP servers, fed mail it must not answer: every message is applied exactly
once, every result is delivered, and the inbox ends empty.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import make_msgid

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from speakerbot.adapters.store import Inbound, Outbox, Store, message_id_of
from speakerbot.service.crashpoints import CRASHPOINTS
from tests.integration.game_harness import GAME, SPEAKER, MakeGame, RunningGame, body_of
from tests.support.patience import patience, period
from tests.support.smtp_sink import CapturedMessage

ALICE, BOB, CAROL, DAVE = ("alice@nomic.test", "bob@nomic.test", "carol@nomic.test",
                           "dave@nomic.test")
QUIET = {"reminder_before": "none"}


# --- what the record and the servers hold -------------------------------------------------


@dataclass(frozen=True)
class InboundSeen:
    message_id: str
    status: str
    note: str
    reason: str | None = None


@dataclass(frozen=True)
class OutboxSeen:
    message_id: str
    kind: str
    status: str
    recipients: tuple[str, ...]
    attempts: int


def inbound_rows(game: RunningGame) -> list[InboundSeen]:
    """Every row of the inbound table, in the order stored."""
    with Store(game.db_url) as store, Session(store.engine) as session:
        return [InboundSeen(row.message_id, row.status, row.note, row.reason)
                for row in session.scalars(select(Inbound).order_by(Inbound.id))]


def outbox_rows(game: RunningGame) -> list[OutboxSeen]:
    """Every row of the outbox, in the order queued."""
    with Store(game.db_url) as store, Session(store.engine) as session:
        return [OutboxSeen(row.message_id, row.kind, row.status, tuple(row.recipients),
                           row.attempts)
                for row in session.scalars(select(Outbox).order_by(Outbox.id))]


def event_types(game: RunningGame) -> Counter[str]:
    return Counter(str(data["type"]) for data in game.events())


def events_of(game: RunningGame, kind: str) -> list[dict[str, object]]:
    return [data for data in game.events() if data["type"] == kind]


def ids_of(raws: Sequence[bytes]) -> list[str]:
    ids = [message_id_of(raw) for raw in raws]
    assert all(ids)
    return [i for i in ids if i]


def message_id(message: CapturedMessage) -> str:
    return str(message.parsed()["Message-ID"])


def wait_until(game: RunningGame, what: str, predicate: Callable[[], bool],
               timeout: float = patience(30)) -> None:
    """Poll ``predicate`` (a look at the servers or the record) until it holds; bounded."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}\n--- daemon log ---\n"
                                 f"{game.log_text()[-4000:]}")
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def settle(game: RunningGame, in_processed_folder: int,
           timeout: float = patience(30)) -> None:
    """Wait until every message is taken in, moved to the processed folder, and answered."""
    def settled() -> bool:
        rows = inbound_rows(game)
        return (bool(rows) and all(row.status not in ("new", "retry") for row in rows)
                and all(row.status != "pending" for row in outbox_rows(game))
                and game.inbox() == [] and len(game.processed()) == in_processed_folder)
    wait_until(game, f"inbox empty, {in_processed_folder} messages in the processed folder, "
                     "nothing pending in the inbound table or the outbox", settled, timeout)


def assert_all_delivered(game: RunningGame, *, exactly_once: bool) -> None:
    """Every queued message reached the sink; copies of one message share its Message-ID.

    Each recipient gets a copy of their own (from their own return path).
    ``exactly_once``: no recipient got a message twice (no crash could have caused a resend).
    """
    outbox = outbox_rows(game)
    assert outbox and all(row.status == "sent" for row in outbox), outbox
    captured = copies_of(game)
    assert {sent for sent, _ in captured} == {row.message_id for row in outbox}
    if exactly_once:
        assert set(captured.values()) == {1}, captured
    # The same message seen twice (resent after a crash) never comes with a new Message-ID.
    ids_by_content: dict[tuple[str, tuple[str, ...], str], set[str]] = {}
    for message in game.sink.messages:
        key = (message.subject, message.rcpt_tos, body_of(message))
        ids_by_content.setdefault(key, set()).add(message_id(message))
    assert all(len(ids) == 1 for ids in ids_by_content.values()), ids_by_content


def copies_of(game: RunningGame) -> Counter[tuple[str, str]]:
    """Count the copies of each message (by Message-ID) each recipient got."""
    return Counter((message_id(m), recipient) for m in game.sink.messages
                   for recipient in m.rcpt_tos)


def joined(game: RunningGame) -> Counter[str]:
    return Counter(str(data["address"]) for data in events_of(game, "PlayerJoined"))


def votes_of(game: RunningGame) -> Counter[tuple[str, str]]:
    return Counter((str(data["voter"]), str(data["choice"]))
                   for data in events_of(game, "BallotCast"))


# --- 1. crash safety ----------------------------------------------------------------------


# after-store is LMTP's (between the commit and the 250): test_group_commit.py.
@pytest.mark.parametrize("point", [point for point in CRASHPOINTS if point != "after-store"])
def test_a_daemon_killed_at_any_step_applies_every_message_once_after_a_restart(
    make_game: MakeGame, point: str,
) -> None:
    game = make_game("nomicam", QUIET)
    game.cli("init")
    marker = game.tmp / "crashed"
    game.start(SPEAKERBOT_CRASHPOINT=point, SPEAKERBOT_CRASHPOINT_MARKER=str(marker))
    sent = [
        game.send(ALICE, "alice joins", "JOIN Alice\n"),
        game.send(BOB, "bob joins", "JOIN Bob\n"),
        game.send(ALICE, "PROPOSE: Sing", "Players may sing.\n"),
        game.send(ALICE, "alice votes", "VOTE 301 FOR\n"),
        game.send(BOB, "bob votes", "VOTE 301 AGAINST\n"),
    ]
    assert game.wait_exit(patience(30)) == -9, game.log_text()
    assert marker.read_text() == point

    # Where it died: nothing moved out of the inbox before the commit was acknowledged...
    if point in ("after-fetch", "after-commit"):
        assert len(game.inbox()) == len(sent)
        statuses = [row.status for row in inbound_rows(game)]
        assert statuses, "the crash came before anything was stored"
        if point == "after-commit":
            assert "processed" in statuses
    # ...and a message the relay accepted is still waiting to be marked sent.
    before_restart = [message_id(m) for m in game.sink.messages]
    if point == "after-smtp":
        # The relay took one message (a copy to each recipient of its first chunk).
        assert len(set(before_restart)) == 1
        pending = {row.message_id for row in outbox_rows(game) if row.status == "pending"}
        assert before_restart[0] in pending

    game.start()
    game.wait_subject("Re: bob votes", to=BOB)
    settle(game, in_processed_folder=len(sent))
    assert game.stop() == 0

    # Every message applied exactly once...
    inbound = inbound_rows(game)
    assert [row.message_id for row in inbound] == ids_of(sent)
    assert [row.status for row in inbound] == ["processed"] * len(sent)
    kinds = event_types(game)
    assert joined(game) == Counter({SPEAKER: 1, ALICE: 1, BOB: 1})
    assert kinds["ProposalSubmitted"] == 1
    assert votes_of(game) == Counter({(ALICE, "FOR"): 1, (BOB, "AGAINST"): 1})
    assert "CommandRejected" not in kinds
    # ...every result delivered (a resend keeping its Message-ID)...
    assert_all_delivered(game, exactly_once=False)
    for subject, to in (("Re: alice joins", ALICE), ("Re: bob joins", BOB),
                        ("Re: PROPOSE: Sing", ALICE), ("Re: alice votes", ALICE),
                        ("Re: bob votes", BOB), ("Proposal 301: Sing", SPEAKER)):
        assert game.sent(subject, to=to), f"no {subject!r} to {to}"
    if point == "after-smtp":
        resent = [pair for pair, count in copies_of(game).items()
                  if pair[0] == before_restart[0] and count >= 2]
        assert resent, "the message sent before the crash was not resent"
    # ...and the inbox empty.
    assert game.inbox() == [] and len(game.processed()) == len(sent)


# --- 2. down across a deadline ------------------------------------------------------------


def test_ballots_received_while_the_daemon_was_down_count_by_their_arrival_time(
    make_game: MakeGame,
) -> None:
    # A period long enough for the daemon to stop before it ends, on a busy machine too.
    game = make_game("nomicam", {"voting_period": period(4), **QUIET})
    game.cli("init")
    game.start()
    game.wait_log("running the game")
    for address, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        game.send(address, f"{name} joins", f"JOIN {name}\n")
    game.send(ALICE, "PROPOSE: Dance", "Players may dance.\n")
    game.wait_subject("Proposal 301: Dance")
    assert game.stop() == 0
    (submitted,) = events_of(game, "ProposalSubmitted")
    closes_at = datetime.fromisoformat(str(submitted["closes_at"]))
    assert "VoteClosed" not in event_types(game), "the vote closed before the daemon stopped"

    # Mail that arrives while the daemon is down: two ballots in time, one too late.
    game.send(ALICE, "alice votes", "VOTE 301 FOR\n", at=closes_at - timedelta(seconds=2))
    game.send(BOB, "bob votes", "VOTE 301 FOR\n", at=closes_at - timedelta(seconds=1))
    late_at = closes_at + timedelta(seconds=1)
    game.send(CAROL, "carol votes", "VOTE 301 AGAINST\n", at=late_at)
    # The daemon comes back only once the deadline (and the late ballot) are in the past:
    # a wait for the clock, not for a result.
    pause = (late_at - datetime.now(UTC)).total_seconds() + 0.1
    assert pause < patience(10), f"the deadline {closes_at} is not a few seconds away"
    time.sleep(max(0.0, pause))
    game.start()

    results = game.wait_subject("Proposal 301 ADOPTED")
    late = game.wait_subject("Re: carol votes", to=CAROL)
    settle(game, in_processed_folder=7)
    assert game.stop() == 0

    # The ballots in time count, the late one does not; the results go out once.
    assert votes_of(game) == Counter({(ALICE, "FOR"): 1, (BOB, "FOR"): 1})
    (closed,) = events_of(game, "VoteClosed")
    assert closed["adopted"] is True
    assert (closed["for_votes"], closed["against_votes"]) == (2, 0)
    assert closed["ballots"] == [[ALICE, "FOR"], [BOB, "FOR"]]
    non_voters = closed["non_voters"]
    assert isinstance(non_voters, list) and CAROL in non_voters
    assert "Tally: 2 FOR, 0 AGAINST" in body_of(results)
    assert "Did not vote: Carol" in body_of(results)
    assert len({message_id(m) for m in game.sent("Proposal 301 ADOPTED")}) == 1
    assert not game.sent("Proposal 301 REJECTED")
    assert_all_delivered(game, exactly_once=True)
    assert "Nothing in your message was done" in body_of(late)
    assert "VOTE 301 AGAINST" in body_of(late)
    # The late ballot is read after the close (the service settles deadlines up to its
    # arrival first); its voter still hears that it came too late.
    assert "after the voting period" in " ".join(body_of(late).split())


# --- 3. duplicate delivery ----------------------------------------------------------------


def test_the_same_message_delivered_twice_is_applied_once(make_game: MakeGame) -> None:
    game = make_game("nomicam", QUIET)
    game.cli("init")
    game.start()
    game.send(ALICE, "alice joins", "JOIN Alice\n")
    game.send(BOB, "bob joins", "JOIN Bob\n")
    proposal = game.message(ALICE, "PROPOSE: Whistle", "Players may whistle.\n")
    game.append(proposal)
    game.wait_subject("Re: PROPOSE: Whistle", to=ALICE)
    game.append(proposal)  # the very same bytes, delivered again after the first was handled
    # The same message by another route: other bytes, the same sender, Message-ID and body.
    game.append(b"Received: from relay2.players.test by mx.nomic.test\r\n" + proposal)
    # Two different messages with one Message-ID: anyone can copy a Message-ID, so both count.
    shared_id = make_msgid(domain="players.test")
    game.send(BOB, "bob votes", "VOTE 301 FOR\n", message_id=shared_id)
    game.send(BOB, "bob votes again", "VOTE 301 AGAINST\n", message_id=shared_id)

    game.wait_subject("Re: bob votes again", to=BOB)
    settle(game, in_processed_folder=7)
    assert game.stop() == 0

    inbound = inbound_rows(game)
    assert len(inbound) == 5 and {row.status for row in inbound} == {"processed"}
    assert [row.message_id for row in inbound].count(shared_id) == 2
    assert joined(game) == Counter({SPEAKER: 1, ALICE: 1, BOB: 1})
    assert event_types(game)["ProposalSubmitted"] == 1
    assert votes_of(game) == Counter({(BOB, "FOR"): 1, (BOB, "AGAINST"): 1})
    assert game.state().proposals[301].ballots[BOB].choice.value == "AGAINST"
    assert len(game.sent("Re: PROPOSE: Whistle", to=ALICE)) == 1
    assert len(game.sent("Re: bob votes", to=BOB)) == 2  # "bob votes" and "bob votes again"
    assert len(game.sent("Re: bob votes again", to=BOB)) == 1
    assert_all_delivered(game, exactly_once=True)


# --- 4. the servers go away and come back -------------------------------------------------


def test_the_daemon_rides_out_an_imap_restart_and_an_smtp_outage(make_game: MakeGame) -> None:
    game = make_game("nomicam", QUIET, extra_env={"SPEAKERBOT_RETRY_BASE": "0.5"})
    game.cli("init")
    game.start()
    game.send(ALICE, "alice joins", "JOIN Alice\n")
    game.wait_subject("Re: alice joins", to=ALICE)

    # The IMAP server goes down and comes back while the daemon IDLEs.
    try:
        game.dovecot.restart()
    finally:
        game.dovecot.start()  # a no-op when it is up: never leave the shared server down
    game.wait_log("reconnecting to IMAP")
    game.send(BOB, "bob joins", "JOIN Bob\n")
    game.wait_subject("Re: bob joins", to=BOB)

    # The SMTP server refuses everything for a while: mail is queued, then delivered.
    game.sink.refuse_temporarily(451, at="rcpt")
    try:
        game.send(ALICE, "PROPOSE: Hum", "Players may hum.\n")
        wait_until(game, "a message refused twice, so retried",
                   lambda: any(row.attempts >= 2 for row in outbox_rows(game)))
        assert not game.sent("Re: PROPOSE: Hum") and not game.sent("Proposal 301:")
    finally:
        game.sink.accept()
    game.wait_subject("Re: PROPOSE: Hum", to=ALICE)
    game.wait_subject("Proposal 301: Hum", to=BOB)
    settle(game, in_processed_folder=3)
    assert game.stop() == 0

    assert [row.status for row in inbound_rows(game)] == ["processed"] * 3
    assert joined(game) == Counter({SPEAKER: 1, ALICE: 1, BOB: 1})
    assert event_types(game)["ProposalSubmitted"] == 1
    assert_all_delivered(game, exactly_once=True)


# --- 5. mail that must not be answered, and mail that is wrong ----------------------------


def _bounce() -> bytes:
    return (b"Return-Path: <>\r\n"
            b"From: Mail Delivery System <MAILER-DAEMON@players.test>\r\n"
            b"To: game@nomic.test\r\n"
            b"Subject: Undelivered Mail Returned to Sender\r\n"
            b"Message-ID: <bounce.1@players.test>\r\n"
            b"MIME-Version: 1.0\r\n"
            b"Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n"
            b"\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
            b"Your message could not be delivered.\r\nJOIN Mailer\r\n--b--\r\n")


def test_mail_that_must_not_be_answered_is_recorded_and_moved_without_a_reply(
    make_game: MakeGame,
) -> None:
    game = make_game("nomicam", QUIET)
    game.cli("init")
    events_before = list(game.events())
    game.start()

    garbage = random.Random(20).randbytes(3000)
    game.append(garbage)
    auto_reply = game.message(ALICE, "Out of office", "I am away.\nJOIN Alice\n").replace(
        b"Subject:", b"Auto-Submitted: auto-replied\nSubject:", 1)
    game.append(auto_reply)
    game.append(_bounce())
    looped = game.message(CAROL, "[Test Nomic] Re: hello", "JOIN Carol\n").replace(
        b"Subject:", f"X-Loop: {GAME}\nSubject:".encode(), 1)
    game.append(looped)
    wrong = game.send(DAVE, "joining", "JOIN Dave\nVOTE 301 SIDEWAYS\n")

    reply = game.wait_subject("Re: joining", to=DAVE)
    settle(game, in_processed_folder=5)
    assert game.stop() == 0

    inbound = inbound_rows(game)
    assert [(row.status, row.reason) for row in inbound] == [
        ("skipped", "no-sender"), ("skipped", "auto-reply"), ("skipped", "bounce"),
        ("skipped", "loop"), ("processed", None),
    ]
    assert [row.note for row in inbound] == [
        "no usable From address", "an auto-reply: never answered",
        "a bounce or delivery report: never answered",
        "speakerbot's own mail (X-Loop): never answered", ""]
    assert inbound[-1].message_id == message_id_of(wrong)
    # Nothing answered but the mail with the bad command, and nothing changed.
    assert [m.rcpt_tos for m in game.sink.messages] == [(DAVE,)]
    assert [row.recipients for row in outbox_rows(game)] == [(DAVE,)]
    assert_all_delivered(game, exactly_once=True)
    assert list(game.events()) == events_before
    text = body_of(reply)
    assert "VOTE 301 SIDEWAYS" in text and "FOR, AGAINST or ABSTAIN" in text
    assert "Nothing in your message was done" in text
    assert game.state().players.keys() == {SPEAKER}
