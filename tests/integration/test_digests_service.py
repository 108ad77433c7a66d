"""Digests by choice through the real GameService on SQLite, the clock moved by the test.

A player or observer in digest mode (DIGEST ON) is sent no public message as it goes: at
``[game] digest_time`` the tick queues one MIME digest of the day's public mail, in order,
and nothing else. The daemon's own test (``test_digests_daemon.py``) plays it over IMAP and
SMTP.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from speakerbot.adapters.store.schema import FOR_DIGEST
from speakerbot.config import parse_settings
from speakerbot.engine import commands as c
from speakerbot.service import ServiceError
from speakerbot.service.digests import choose_at_desk, last_moment, next_moment
from tests.support.digests import enclosed as enclosed_in
from tests.support.mailgame import ALICE, BOB, CAROL, SPEAKER, T0, Mail, MailGame

OLIVE = "olive@watchers.example"
# An observer's answer is never larger than the message that asked (the stranger's rule).
PADDING = "\n-- \n" + "> the quoted lines of an earlier message, as clients keep them\n" * 30
_CODE = re.compile(r"CONFIRM ([0-9a-f]{32})\b")
EVENING = T0.replace(hour=18)
# Proposals in words leave hand work to the host, whose daily reminder is not at issue here.
QUIET = {"handwork_reminder": ""}  # the default digest time, 18:00 UTC, on T0's day


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB, CAROL), game_keys=QUIET)
    yield game
    game.close()


def to(game: MailGame, address: str, start: int = 0) -> list[Mail]:
    return [mail for mail in game.outbox()[start:] if address in mail.recipients]


def enclosed(mail: Mail) -> list[EmailMessage]:
    """Return the messages a digest holds, in order (each a message/rfc822 part)."""
    return enclosed_in(mail.message)


def subjects(messages: list[EmailMessage]) -> list[str]:
    return [" ".join(str(message["Subject"]).split()) for message in messages]


def play_a_day(game: MailGame) -> None:
    """A distribution and, once every player has voted, its result."""
    game.send(BOB, "PROPOSE: Tea", "Tea is served at four.\n")
    for voter in (ALICE, BOB, CAROL):
        game.send(voter, "vote", "VOTE 301 FOR\n")
    game.clock.now += timedelta(minutes=5)
    game.service.speaker_command(c.CloseVote(SPEAKER, 301))


def at_evening(game: MailGame) -> list[Mail]:
    """Move to the digest time and tick; return what the tick queued."""
    start = len(game.outbox())
    game.clock.now = EVENING
    game.service.tick()
    return game.outbox()[start:]


def test_a_reader_gets_one_digest_of_the_days_public_mail_and_no_copies(
        game: MailGame) -> None:
    sent = game.send(ALICE, "digest please", "DIGEST ON\n")
    [reply] = game.replies_to(sent.message_id)
    assert "Digest mode is on" in reply.body and "18:00 (UTC)" in reply.body
    start = len(game.outbox())
    play_a_day(game)
    public = [mail for mail in game.outbox()[start:] if mail.row.kind == "announcement"]
    assert public[0].subject == "[Camford Nomic] Proposal 301: Tea"
    assert any("ADOPTED" in mail.subject for mail in public)
    assert all(ALICE not in mail.recipients and BOB in mail.recipients for mail in public)
    # Her own replies (a ballot's receipt) still come at once.
    assert [mail.row.kind for mail in to(game, ALICE, start)] == ["reply"]
    # The daemon wakes at the digest time (a wake of its own: "digest" is the cron job of
    # [game] digest, the Speaker's digest for the list, which it must not replace).
    wakes = game.service.next_wakes()
    assert wakes["daily-digests"] == EVENING and "digest" not in wakes
    [digest] = at_evening(game)
    assert game.service.next_wakes()["daily-digests"] is None
    assert digest.recipients == (ALICE,) and digest.row.kind == "digest"
    assert digest.subject == ("[Camford Nomic] Digest for Monday 5 January 2026: "
                              f"{len(public)} messages")
    inner = enclosed(digest)
    assert subjects(inner) == [m.subject for m in public]
    assert [message["Message-ID"] for message in inner] == [m.row.message_id for m in public]
    assert "1. Proposal 301: Tea" in digest.body
    assert digest.header("List-Id") is not None
    # Once only: a later tick, the next day with nothing, sends nothing more.
    game.service.tick()
    game.clock.now += timedelta(days=1)
    game.service.tick()
    assert [mail.row.message_id for mail in to(game, ALICE)
            if mail.row.kind == "digest"] == [digest.row.message_id]


def test_digest_off_brings_single_mails_again_and_keeps_what_was_kept(
        game: MailGame) -> None:
    game.send(ALICE, "digest please", "DIGEST ON\n")
    game.send(BOB, "PROPOSE: Tea", "Tea is served at four.\n")
    sent = game.send(ALICE, "no more", "DIGEST OFF\n")
    [reply] = game.replies_to(sent.message_id)
    assert "Digest mode is off" in reply.body
    start = len(game.outbox())
    game.send(CAROL, "PROPOSE: Cake", "Cake is served at five.\n")
    [distribution] = [mail for mail in game.outbox()[start:] if mail.row.kind == "announcement"]
    assert ALICE in distribution.recipients
    [digest] = at_evening(game)
    assert subjects(enclosed(digest)) == ["[Camford Nomic] Proposal 301: Tea"]


def test_no_public_mail_no_digest_and_private_mail_is_never_kept(game: MailGame) -> None:
    game.send(ALICE, "digest please", "DIGEST ON\n")
    start = len(game.outbox())
    sent = game.send(ALICE, "how is it", "STATUS\n")
    assert [mail.row.kind for mail in to(game, ALICE, start)] == ["reply"]
    assert game.replies_to(sent.message_id)
    assert at_evening(game) == []


def test_a_message_every_addressee_of_which_reads_digests_is_kept_not_sent(
        tmp_path: Path) -> None:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB), game_keys=QUIET)
    try:
        for address in (ALICE, BOB, SPEAKER):
            assert choose_at_desk(game.service.deps, address, True)
        assert not choose_at_desk(game.service.deps, ALICE, True)  # already
        start = len(game.outbox())
        game.send(BOB, "PROPOSE: Tea", "Tea is served at four.\n")
        assert [mail.row.kind for mail in game.outbox()[start:]] == ["reply"]
        with game.store.reading() as session:
            statuses = [status for (status,) in session.execute(
                __import__("sqlalchemy").text("SELECT status FROM outbox"))]
        assert FOR_DIGEST in statuses
        digests = at_evening(game)
        assert sorted(mail.recipients[0] for mail in digests) == sorted((ALICE, BOB, SPEAKER))
    finally:
        game.close()


def test_the_desk_refuses_an_address_that_is_neither_player_nor_observer(
        game: MailGame) -> None:
    with pytest.raises(ServiceError, match="no player or observer"):
        choose_at_desk(game.service.deps, OLIVE, True)


def observe(game: MailGame, address: str = OLIVE) -> None:
    start = len(game.outbox())
    game.send(address, "watching", "OBSERVE\n")
    [request] = [mail for mail in to(game, address, start) if mail.row.kind == "confirm"]
    [code] = _CODE.findall(request.body)
    game.send(address, "yes", f"CONFIRM {code}\n", after=timedelta(days=1))


def test_an_observer_may_choose_digests_and_loses_them_when_it_stops(
        game: MailGame) -> None:
    observe(game)
    start = len(game.outbox())
    game.send(OLIVE, "digest", "DIGEST ON\n" + PADDING, after=timedelta(days=1))
    [answer] = to(game, OLIVE, start)
    assert "Digest mode is on" in answer.body
    game.send(BOB, "PROPOSE: Tea", "Tea is served at four.\n")
    assert all(OLIVE not in mail.recipients for mail in game.outbox()[start + 1:])
    game.clock.now = last_moment(game.settings.game, game.clock.now) + timedelta(days=1)
    start = len(game.outbox())
    game.service.tick()
    [digest] = to(game, OLIVE, start)
    assert digest.row.observers == (OLIVE,)
    game.send(BOB, "PROPOSE: Cake", "Cake is served at five.\n")
    game.send(OLIVE, "bye", "UNOBSERVE\n", after=timedelta(hours=1))
    start = len(game.outbox())
    game.clock.now += timedelta(days=1)
    game.service.tick()
    assert to(game, OLIVE, start) == []
    assert game.store.next_digest_copy() is None


def test_a_forged_digest_choice_changes_nothing_for_an_observer(game: MailGame) -> None:
    observe(game)
    game.send(OLIVE, "digest", "DIGEST ON\n", authenticated=False, after=timedelta(days=1))
    assert game.store.digest_readers() == {}


def test_a_digest_queued_in_a_transaction_that_failed_is_queued_once_later(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    game.send(ALICE, "digest please", "DIGEST ON\n")
    play_a_day(game)
    store = game.store
    real = store.drop_digest_copies

    def crash(*args: object) -> None:
        raise RuntimeError("the power went")

    monkeypatch.setattr(store, "drop_digest_copies", crash)
    game.clock.now = EVENING
    with pytest.raises(RuntimeError):
        game.service.tick()
    assert [mail for mail in to(game, ALICE) if mail.row.kind == "digest"] == []
    monkeypatch.setattr(store, "drop_digest_copies", real)
    game.service.tick()
    game.service.tick()
    [digest] = [mail for mail in to(game, ALICE) if mail.row.kind == "digest"]
    assert len(enclosed(digest)) >= 2


def test_a_gathering_reaches_a_reader_as_its_parts_only(tmp_path: Path) -> None:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB), limits={"public_per_hour": 1},
                    game_keys=QUIET)
    try:
        game.clock.now += timedelta(hours=2)
        game.service.tick()
        game.send(ALICE, "digest please", "DIGEST ON\n")
        for title in ("Tea", "Cake", "Jam"):
            game.send(BOB, f"PROPOSE: {title}", f"{title} at four.\n")
        game.clock.now += timedelta(hours=1)
        game.service.tick()  # the gathering of Cake and Jam, to Bob and the Speaker
        gathering = [mail for mail in game.outbox() if "gathered" in mail.subject]
        assert gathering and all(ALICE not in mail.recipients for mail in gathering)
        [digest] = at_evening(game)
        assert [s.split("] ")[1] for s in subjects(enclosed(digest))] == [
            "Proposal 301: Tea", "Proposal 302: Cake", "Proposal 303: Jam"]
    finally:
        game.close()


def test_the_digest_time_is_the_games_in_its_time_zone(tmp_path: Path) -> None:
    settings = parse_settings({
        "game": {"name": "G", "ruleset": "nomicam", "address": "g@x.example",
                 "speaker": "s@x.example", "speaker_name": "S", "digest_time": "09:30",
                 "timezone": "America/New_York"},
        "database": {"url": "sqlite://"}}, path=tmp_path / "c.toml", environ={})
    game = settings.game
    assert (game.digest_time, game.timezone) == ((9, 30, 0), "America/New_York")
    winter = datetime(2026, 1, 5, 14, 29, tzinfo=UTC)  # 09:29 in New York
    assert next_moment(game, winter) == datetime(2026, 1, 5, 14, 30, tzinfo=UTC)
    assert last_moment(game, winter) == datetime(2026, 1, 4, 14, 30, tzinfo=UTC)
    summer = datetime(2026, 7, 6, 13, 30, tzinfo=UTC)  # 09:30 EDT: due now
    assert last_moment(game, summer) == summer


@pytest.mark.parametrize(("key", "value", "said"), [
    ("digest_time", "6pm", "expected a time of day"),
    ("digest_time", "24:00", "expected a time of day"),
    ("digest_time", "18:00:60", "expected a time of day"),
    ("timezone", "Mars/Olympus", "IANA"),
    ("timezone", "Europe", "IANA"),
])
def test_a_wrong_digest_time_or_time_zone_is_refused(tmp_path: Path, key: str, value: str,
                                                     said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_settings({
            "game": {"name": "G", "ruleset": "nomicam", "address": "g@x.example",
                     "speaker": "s@x.example", "speaker_name": "S", key: value},
            "database": {"url": "sqlite://"}}, path=tmp_path / "c.toml", environ={})
