"""The GameService on a real SQLite store, fed raw email: what is answered, how, and to whom.

Mail that must never be answered is recorded and skipped; replies go to the sender only, with
the right headers, never quoting the message; a message with an error is applied not at all,
and otherwise each command on its own; the
daily reply limit ends with one notice; public mail goes to the list or to every player;
STATUS, RULES and HELP answer privately; a message is applied once; a message that keeps
failing is set aside and the Speaker is told.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine.model import Choice
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.outbound.compose import Renderer
from speakerbot.service import GameService, applying
from tests.support.mailgame import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GAME,
    LIST,
    NAMES,
    PASSWORD,
    SPEAKER,
    TAG,
    Mail,
    MailGame,
    MakeMailGame,
    ballot_leaks,
    mail_games,
)

MakeGame = MakeMailGame


@pytest.fixture
def make_game(tmp_path: Path) -> Iterator[MakeGame]:
    with mail_games(tmp_path) as make:
        yield make


@pytest.fixture
def game(make_game: MakeGame) -> MailGame:
    """A nomicam game with Alice, Bob and Carol, and Alice's proposal 301 open."""
    game = make_game()
    game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
    assert 301 in game.service.state().proposals
    return game


def ballot(game: MailGame, voter: str, proposal: int = 301) -> str | None:
    found = game.service.state().proposals[proposal].ballots.get(voter)
    return None if found is None else found.choice.value


def only_reply(game: MailGame, message_id: str) -> Mail:
    replies = game.replies_to(message_id)
    assert len(replies) == 1, [mail.subject for mail in replies]
    return replies[0]


# --- Mail that is never answered ------------------------------------------------------------

NEVER_ANSWERED = {
    "auto-reply": (ALICE, [("Auto-Submitted", "auto-replied")]),
    "vacation": (ALICE, [("X-Autoreply", "yes")]),
    "bounce": (ALICE, [("Return-Path", "<>")]),
    "mailer-daemon": ("MAILER-DAEMON@mx.example.org", []),
    "bulk": (ALICE, [("Precedence", "bulk")]),
    "list": (ALICE, [("List-Id", "Tea lovers <tea.lists.example.org>")]),
    "loop": (ALICE, [("X-Loop", GAME)]),
}


@pytest.mark.parametrize("case", NEVER_ANSWERED)
def test_mail_never_answered_is_recorded_skipped_and_changes_nothing(
        game: MailGame, case: str) -> None:
    sender, headers = NEVER_ANSWERED[case]
    seq = game.store.last_event_seq()
    queued = len(game.outbox())
    received = game.send(sender, "Re: Tea", "VOTE 301 AGAINST\nSTATUS\n", headers=headers)
    row = game.store.inbound(received.inbound_id)
    assert row.status == "skipped"
    assert row.raw == received.raw  # recorded as received
    assert game.store.last_event_seq() == seq
    assert ballot(game, ALICE) is None
    assert len(game.outbox()) == queued, "mail that is never answered got an answer"


# --- Replies: to whom, with which headers, saying what --------------------------------------


def test_a_reply_goes_to_the_sender_only_with_the_threading_headers(game: MailGame) -> None:
    top_posted = (
        "VOTE 301 FOR\n"
        "See you at the meeting.\n"
        "\n"
        "On Monday, Alice wrote:\n"
        "> secret-quote-word\n"
        "> VOTE 301 AGAINST\n"
    )
    received = game.send(BOB, "my votes", top_posted, headers=[
        ("References", "<older@example.org>"), ("In-Reply-To", "<older@example.org>")])
    reply = only_reply(game, received.message_id)
    assert reply.row.kind == "reply"
    assert reply.recipients == (BOB,)
    assert [a.addr_spec for a in reply.message["To"].addresses] == [BOB]
    assert reply.message["Cc"] is None and reply.message["Bcc"] is None
    assert reply.subject == f"{TAG} Re: my votes"
    assert reply.header("In-Reply-To") == received.message_id
    references = str(reply.header("References")).split()
    assert references[-1] == received.message_id
    assert "<older@example.org>" in references
    assert reply.header("Auto-Submitted") == "auto-replied"
    assert reply.header("X-Loop") == GAME
    assert reply.header("Reply-To") == GAME
    assert reply.header("List-Id") is None
    message_id = reply.header("Message-ID")
    assert message_id and message_id != received.message_id
    # The outcome, and the prose it ignored; never the quoted text.
    assert "line 1: VOTE 301 FOR" in reply.body
    assert "Your ballot on proposal 301 is FOR" in reply.body
    assert "See you at the meeting." in reply.body  # ignored lines are listed, by contract
    assert "secret-quote-word" not in reply.body
    assert "VOTE 301 AGAINST" not in reply.body
    assert ballot(game, BOB) == "FOR"


def test_a_reply_to_a_reply_keeps_the_original_subject(game: MailGame) -> None:
    original = f"Re: {TAG} Proposal 301: Tea"
    received = game.send(BOB, original, "VOTE 301 FOR\n")
    reply = only_reply(game, received.message_id)
    # Folded as a mailing list folds it: the game's tag once, then one "Re:".
    assert reply.subject == f"{TAG} Re: Proposal 301: Tea"


def test_every_message_gets_its_own_message_id(game: MailGame) -> None:
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    ids = [mail.header("Message-ID") for mail in game.outbox()]
    assert all(ids) and len(set(ids)) == len(ids)


def _bobs_votes_undone(game: MailGame, body: str) -> Mail:
    """Bob sends ``body``; nothing is recorded, his ballot stays empty, and the one reply says
    nothing was done. Returns the reply."""
    seq = game.store.last_event_seq()
    received = game.send(BOB, "votes", body)
    assert game.store.last_event_seq() == seq
    assert ballot(game, BOB) is None
    reply = only_reply(game, received.message_id)
    assert "Nothing in your message was done" in reply.body
    return reply


def test_a_message_with_a_bad_line_changes_nothing_and_names_the_line_and_the_fix(
        game: MailGame) -> None:
    reply = _bobs_votes_undone(game, "VOTE 301 FOR\nVOET 301 AGAINST\n")
    assert "line 2: VOET 301 AGAINST" in reply.body
    assert "did you mean VOTE?" in reply.body
    assert "Your ballot" not in reply.body


def test_a_refused_command_leaves_the_others_of_its_message_done(game: MailGame) -> None:
    received = game.send(BOB, "votes", "VOTE 301 FOR\nVOTE 999 AGAINST\n")
    assert ballot(game, BOB) is not None  # the ballot on 301 stands
    reply = only_reply(game, received.message_id)
    flat = " ".join(reply.body.split())
    assert ("Each command was applied on its own; 1 was refused and changed nothing, the "
            "others were done") in flat
    assert "line 1: VOTE 301 FOR Your ballot on proposal 301 is FOR" in flat
    assert "line 2: VOTE 999 AGAINST Refused: there is no proposal 999." in flat
    assert "STATUS lists the open proposals" in flat


def test_a_message_whose_only_command_is_refused_says_nothing_was_done(
        game: MailGame) -> None:
    seq = game.store.last_event_seq()
    received = game.send(BOB, "votes", "VOTE 999 AGAINST\n")
    assert game.store.last_event_seq() == seq
    reply = only_reply(game, received.message_id)
    assert "Nothing in your message was done: its command was refused." in reply.body


def test_a_message_that_is_too_large_gets_a_clear_reply_and_changes_nothing(
        make_game: MakeGame) -> None:
    game = make_game(limits={"max_message_size": 1024})
    game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
    seq = game.store.last_event_seq()
    prose = "\n".join(f"Line {n} of a long story about tea and biscuits." for n in range(60))
    received = game.send(BOB, "votes", f"VOTE 301 FOR\n{prose}\n")
    assert len(received.raw) > 1024
    assert game.store.last_event_seq() == seq
    assert ballot(game, BOB) is None
    assert game.store.inbound(received.inbound_id).status == "processed"
    reply = only_reply(game, received.message_id)
    assert reply.recipients == (BOB,)
    flat = " ".join(reply.body.split())
    assert "could not be read, so nothing in it was done" in flat
    assert "more than the 1 KB the Speaker reads" in flat
    assert "Line 7 of a long story" not in reply.body


# --- The daily reply limit ------------------------------------------------------------------


@pytest.mark.parametrize("limit", [3, None], ids=["limit-3", "default-20"])
def test_replies_stop_after_the_daily_limit_with_one_notice(
        make_game: MakeGame, limit: int | None) -> None:
    game = make_game(limits={"replies_per_day": limit} if limit else None)
    allowed = limit or 20
    game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
    choices = [Choice.FOR, Choice.AGAINST]
    sent = [game.send(BOB, f"vote {n}", f"VOTE 301 {choices[n % 2].value}\n")
            for n in range(allowed + 2)]
    answers = [game.replies_to(received.message_id) for received in sent]
    for n in range(allowed):
        assert [mail.row.kind for mail in answers[n]] == ["reply"], n
    notice = answers[allowed]
    assert [mail.row.kind for mail in notice] == ["limit"]
    assert notice[0].recipients == (BOB,)
    assert notice[0].subject.startswith(TAG)
    assert "no more replies until tomorrow" in " ".join(notice[0].body.split())
    assert answers[allowed + 1] == [], "a second notice, or a reply, past the limit"
    # Every message was still recorded and applied.
    statuses = {game.store.inbound(received.inbound_id).status for received in sent}
    assert statuses == {"processed"}
    assert ballot(game, BOB) == choices[(allowed + 1) % 2].value
    # The next day the sender gets replies again.
    again = game.send(BOB, "vote", "VOTE 301 FOR\n", after=timedelta(days=1))
    assert [mail.row.kind for mail in game.replies_to(again.message_id)] == ["reply"]


# --- Public mail: the list, or every player -------------------------------------------------


def test_public_mail_goes_to_the_list_when_there_is_one(make_game: MakeGame) -> None:
    game = make_game(list_address=LIST)
    received = game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
    public = [mail for mail in game.outbox() if mail.row.kind == "announcement"]
    assert public
    for mail in public:
        assert mail.recipients == (LIST,)
        assert [a.addr_spec for a in mail.message["To"].addresses] == [LIST]
        assert mail.header("List-Id") is not None
        assert mail.header("Auto-Submitted") == "auto-generated"
        assert mail.header("X-Loop") == GAME
        assert mail.header("Reply-To") == GAME
    proposal = [mail for mail in public if mail.subject == f"{TAG} Proposal 301: Tea"]
    assert len(proposal) == 1
    reply = only_reply(game, received.message_id)
    assert reply.recipients == (ALICE,)
    assert reply.header("List-Id") is None


def test_public_mail_goes_to_every_player_without_a_list(game: MailGame) -> None:
    proposal = [mail for mail in game.outbox() if mail.subject == f"{TAG} Proposal 301: Tea"]
    assert len(proposal) == 1
    mail = proposal[0]
    assert sorted(mail.recipients) == sorted([SPEAKER, ALICE, BOB, CAROL])
    assert len(mail.recipients) == len(set(mail.recipients))
    # A mailing list's headers all the same: mail clients file the game's mail by them.
    assert mail.header("List-Id") == "Camford Nomic <camford-nomic.camford.example>"
    assert mail.header("Auto-Submitted") == "auto-generated"


# --- Private answers ------------------------------------------------------------------------


def test_status_shows_only_the_senders_own_ballots(game: MailGame) -> None:
    game.send(ALICE, "vote", "VOTE 301 FOR\n")
    game.send(BOB, "vote", "VOTE 301 AGAINST\n")
    carol = only_reply(game, game.send(CAROL, "status", "STATUS\n").message_id)
    assert "Your ballots:\n  none on the open proposals" in carol.body
    bob = only_reply(game, game.send(BOB, "status", "STATUS\n").message_id)
    assert "Your ballots:\n  301 Tea: AGAINST" in bob.body
    voters = {address: NAMES[address] for address in (ALICE, BOB, CAROL)}
    for mail in (carol, bob):
        assert mail.recipients in ((CAROL,), (BOB,))
        assert not ballot_leaks(mail.body, mail.recipients, voters, {BOB: {"AGAINST"}})
    assert not re.search(r"\bFOR\b", bob.body.partition("Your ballots:")[2])


def test_rules_lists_every_current_rule(game: MailGame) -> None:
    reply = only_reply(game, game.send(BOB, "rules", "RULES\n").message_id)
    flat = " ".join(reply.body.split())
    rules = game.service.state().rules
    assert len(rules) > 20
    for number, rule in rules.items():
        status = "mutable" if rule.mutable else "immutable"
        assert f"\n{number} ({status})\n" in reply.body, number
        assert " ".join(rule.text.split()) in flat, number
    listed = re.findall(r"^(\d+) \((?:im)?mutable\)$", reply.body, re.MULTILINE)
    assert [int(n) for n in listed] == list(rules)


def test_help_is_the_help_text(game: MailGame) -> None:
    reply = only_reply(game, game.send(BOB, "help", "HELP\n").message_id)
    assert lang.help_text() in reply.body
    assert reply.body.startswith("Hello Bob,\n")


def test_scores_are_private(game: MailGame) -> None:
    reply = only_reply(game, game.send(BOB, "scores", "SCORES\n").message_id)
    assert reply.recipients == (BOB,)
    assert "Scores:" in reply.body


# --- The digest -----------------------------------------------------------------------------


def close_proposal_301(game: MailGame) -> None:
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    assert game.service.state().proposals[301].status.value == "adopted"


def digests(game: MailGame) -> list[Mail]:
    return [mail for mail in game.outbox() if mail.subject == f"{TAG} Digest"]


def test_the_scheduled_digest_lists_what_was_decided_since_the_last_one(
        game: MailGame) -> None:
    game.service.send_digest()
    close_proposal_301(game)
    game.service.send_digest()
    game.service.send_digest()  # at the same minute: the same digest, queued once
    game.clock.now += timedelta(days=1)
    game.service.send_digest()
    first, second, third = (mail.body for mail in digests(game))
    assert "Open proposals:\n  301 Tea (by Alice), closes 2026-01-12 12:01 UTC" in first
    assert "Since the last digest:\n  nothing was decided" in first
    assert "Since the last digest:\n- Proposal 301 ADOPTED\n" in second
    assert "Open proposals:\n  none" in second
    assert "Since the last digest:\n  nothing was decided" in third
    for mail in digests(game):
        assert sorted(mail.recipients) == sorted([SPEAKER, ALICE, BOB, CAROL])


def test_the_digest_asked_for_by_mail_lists_what_was_decided(game: MailGame) -> None:
    close_proposal_301(game)
    game.send(SPEAKER, "digest", f"PASSWORD {PASSWORD}\nADMIN DIGEST\n")
    [digest] = digests(game)
    assert "- Proposal 301 ADOPTED" in digest.body


# --- Exactly once, retries, setting aside ---------------------------------------------------


def test_a_message_is_applied_once(game: MailGame) -> None:
    received = game.receive(BOB, "vote", "VOTE 301 FOR\n")
    rows = game.store.pending_inbound()
    assert [row.id for row in rows] == [received.inbound_id]
    assert [p.status for p in game.process()] == ["processed"]
    seq, queued = game.store.last_event_seq(), len(game.outbox())
    assert game.process() == []
    # The same row handed in again (by a second worker, say) changes nothing either.
    game.service.process(rows[0])
    # And the same bytes received again are a duplicate.
    again = game.service.receive(received.raw, game.clock.now, source="test")
    assert again.duplicate and again.id == received.inbound_id
    assert game.process() == []
    assert game.store.last_event_seq() == seq
    assert len(game.outbox()) == queued
    assert len(game.replies_to(received.message_id)) == 1
    assert game.store.inbound(received.inbound_id).status == "processed"


def test_a_failing_message_is_retried_then_set_aside_and_the_speaker_is_told(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> Any:
        raise RuntimeError("the kettle boiled over")

    received = game.receive(BOB, "vote", "VOTE 301 FOR\n")
    seq, queued = game.store.last_event_seq(), len(game.outbox())
    monkeypatch.setattr(applying, "apply_mail", broken)
    started = game.clock.now
    statuses = [[p.status for p in game.process()]]
    for delay in game.service.retry_delays:
        game.clock.now += timedelta(seconds=delay - 1)
        assert game.process() == [], "retried before its backoff"
        game.clock.now += timedelta(seconds=1)
        statuses.append([p.status for p in game.process()])
    assert statuses == [["retry"]] * len(game.service.retry_delays) + [["set_aside"]]
    # Retried with backoff over at least ten minutes before it is set aside.
    assert game.clock.now - started >= timedelta(minutes=10)
    row = game.store.inbound(received.inbound_id)
    assert row.status == "set_aside" and row.attempts == len(game.service.retry_delays) + 1
    assert "the kettle boiled over" in (row.error or "")
    assert game.store.last_event_seq() == seq
    assert ballot(game, BOB) is None
    new = game.outbox()[queued:]
    assert [mail.recipients for mail in new] == [(SPEAKER,)]
    notice = new[0]
    assert notice.row.kind == "notice"
    assert notice.subject.startswith(TAG)
    assert received.message_id in notice.body
    assert "the kettle boiled over" in notice.body
    monkeypatch.undo()
    assert game.process() == [], "a message set aside was tried again"
    assert game.replies_to(received.message_id) == []
    # The operator puts it back: it is processed afresh, once.
    game.service.requeue(received.inbound_id)
    assert [p.status for p in game.process()] == ["processed"]
    assert ballot(game, BOB) == "FOR"
    assert len(game.replies_to(received.message_id)) == 1



def test_the_host_hears_of_mail_set_aside_at_most_once_an_hour(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> Any:
        raise RuntimeError("the kettle boiled over")

    def set_aside(sender: str, subject: str) -> str:
        received = game.receive(sender, subject, "VOTE 301 FOR\n")
        game.process()
        for delay in game.service.retry_delays:
            game.clock.now += timedelta(seconds=delay)
            game.process()
        assert game.store.inbound(received.inbound_id).status == "set_aside"
        return received.message_id

    def notices() -> list[str]:
        return [mail.body for mail in game.outbox()[queued:] if mail.row.kind == "notice"]

    queued = len(game.outbox())
    monkeypatch.setattr(applying, "apply_mail", broken)
    first = set_aside(BOB, "vote one")
    told = game.clock.now
    second = set_aside(CAROL, "vote two")  # some fifteen minutes later
    assert game.clock.now - told < timedelta(hours=1)
    [notice] = notices()
    assert first in notice and second not in notice
    # Within the hour, a tick tells nothing more; once it is over, the next one does.
    game.clock.now = told + timedelta(minutes=59)
    game.service.tick(game.clock.now)
    assert len(notices()) == 1
    game.clock.now = told + timedelta(hours=1, seconds=1)
    game.service.tick(game.clock.now)
    assert len(notices()) == 2
    assert second in notices()[1] and first not in notices()[1]


# --- Every message from a template ----------------------------------------------------------


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the templates rendered during the test."""
    texts: list[str] = []
    original = Renderer.render

    def recording(self: Renderer, template: str, **context: Any) -> str:
        text = original(self, template, **context)
        texts.append(text)
        return text

    monkeypatch.setattr(Renderer, "render", recording)
    return texts


def test_replies_and_announcements_are_rendered_from_templates(
        game: MailGame, rendered: list[str]) -> None:
    start = len(game.outbox())
    game.send(BOB, "vote", "VOTE 301 FOR\nSTATUS\n")
    game.send(CAROL, "cfj", "CFJ Tea is hot\n")
    for mail in game.outbox()[start:]:
        assert any(mail.body == text or mail.body.endswith(text) for text in rendered), (
            mail.subject)
        # Lines that must be copied whole (a receipt, a record head) are the only long ones.
        assert all(len(line) <= 72 or _COPIED_WHOLE.match(line)
                   for line in mail.body.splitlines()), mail.subject


_COPIED_WHOLE = re.compile(r"^(Receipt: [0-9a-f]{64}|Record: \d+ [0-9a-f]{64}|"
                           r"[0-9a-f]{64} \S+ (FOR|AGAINST) [0-9a-f]{32})$")


def test_the_reply_limit_notice_is_rendered_from_a_template(
        make_game: MakeGame, rendered: list[str]) -> None:
    game = make_game(limits={"replies_per_day": 1})
    game.send(BOB, "hello", "SCORES\n")
    received = game.send(BOB, "hello", "SCORES\n")
    notices = game.replies_to(received.message_id)
    assert [mail.row.kind for mail in notices] == ["limit"]
    assert notices[0].body in rendered
    assert all(len(line) <= 72 for line in notices[0].body.splitlines())


def test_the_set_aside_notice_is_rendered_from_a_template(
        game: MailGame, rendered: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> Any:
        raise RuntimeError("the kettle boiled over")

    game.receive(BOB, "vote", "VOTE 301 FOR\n")
    queued = len(game.outbox())
    monkeypatch.setattr(applying, "apply_mail", broken)
    for delay in (0, *game.service.retry_delays):
        game.clock.now += timedelta(seconds=delay)
        game.process()
    new = game.outbox()[queued:]
    assert len(new) == 1 and new[0].recipients == (SPEAKER,)
    assert new[0].body in rendered
    assert all(len(line) <= 72 for line in new[0].body.splitlines())



def test_time_never_settles_past_a_message_received_but_not_yet_read(game: MailGame) -> None:
    deadline = game.service.state().proposals[301].closes_at
    assert deadline is not None
    game.clock.now = deadline - timedelta(seconds=1)
    game.receive(BOB, "just in time", "VOTE 301 FOR\n", after=timedelta(0))  # stored only
    game.clock.now = deadline + timedelta(hours=1)
    game.service.tick()  # the daemon's clock passed the deadline before the ballot was read
    assert game.service.state().proposals[301].status.value == "open"
    game.process()
    game.service.tick()
    closed = game.service.state().proposals[301]
    assert closed.status.value == "adopted" and BOB in closed.ballots


def test_a_message_waiting_for_a_retry_holds_back_its_senders_later_mail_only(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    first = game.receive(BOB, "first", "VOTE 301 FOR\n")
    game.receive(CAROL, "second", "VOTE 301 AGAINST\n")
    game.receive(BOB, "third", "VOTE 301 AGAINST\n")
    real = applying.apply_mail
    calls: list[str] = []

    def flaky(deps: Any, mail: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(mail.subject)
        # Bob's first fails twice: in the batch of the three (which then rolls back), and
        # again in its own transaction, so that it waits for a retry.
        if calls.count("first") <= 2 and mail.subject == "first":
            raise RuntimeError("database is locked")
        return real(deps, mail, *args, **kwargs)

    monkeypatch.setattr(applying, "apply_mail", flaky)
    # Carol's mail goes on; Bob's third waits behind his first, to keep his order.
    assert [p.status for p in game.process()] == ["retry", "processed"]
    assert calls == ["first", "first", "second"]
    assert game.process() == [], "retried before its backoff"
    game.clock.now += timedelta(seconds=game.service.retry_delays[0])
    assert [p.status for p in game.process()] == ["processed", "processed"]
    assert calls == ["first", "first", "second", "first", "third"]
    assert game.store.inbound(first.inbound_id).attempts == 1
    assert ballot(game, BOB) == "AGAINST" and ballot(game, CAROL) == "AGAINST"


def test_two_games_on_one_address_never_share_a_message_id(make_game: MakeGame) -> None:
    ids = []
    for _ in range(2):  # the same script, the same clock: only the game differs
        game = make_game()
        game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
        [distributed] = [m for m in game.outbox() if "Proposal 301:" in m.subject]
        ids.append(distributed.header("Message-ID"))
    assert ids[0] != ids[1]


def test_what_follows_a_cfj_in_the_same_message_is_announced_too(game: MailGame) -> None:
    game.send(BOB, "leaving", "CFJ Tea is compulsory.\nFORFEIT\n")
    public = [m for m in game.outbox() if m.row.kind == "announcement"]
    assert any("CFJ 1:" in m.subject for m in public)
    assert any("Bob forfeited" in m.body for m in public if "CFJ" not in m.subject)


def test_results_quote_each_rule_as_its_own_proposal_left_it(game: MailGame) -> None:
    for text in ("Voting lasts five days.", "Voting lasts three days."):
        game.send(ALICE, "PROPOSE: Shorter", f"AMEND RULE 205:\n{text}\n")
        number = game.service.state().next_proposal - 1
        game.send(BOB, "vote", f"VOTE {number} FOR\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()  # 302 and 303 close together
    results = {m.subject: m.body for m in game.outbox() if "ADOPTED" in m.subject}
    [first] = [body for subject, body in results.items() if "Proposal 302 " in subject]
    [second] = [body for subject, body in results.items() if "Proposal 303 " in subject]
    assert "five days" in first and "three days" not in first
    assert "three days" in second


def test_notices_to_the_speaker_do_not_use_up_the_speakers_replies(
        make_game: MakeGame) -> None:
    game = make_game(limits={"replies_per_day": 2})
    for n in range(3):  # informal proposals: each adoption asks the Speaker to act
        game.send(ALICE, f"PROPOSE: Idea {n}", "Do something nice.\n")
        game.send(BOB, "vote", f"VOTE {301 + n} FOR\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    assert len([m for m in game.outbox() if m.recipients == (SPEAKER,)
                and m.row.kind == "notice"]) >= 3
    received = game.send(SPEAKER, "status", "STATUS\n")
    assert [m.row.kind for m in game.replies_to(received.message_id)] == ["reply"]


def test_a_rolled_back_message_never_leaves_its_state_in_the_cache(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(game.store, "mark_inbound", fail)
    game.send(DAVE, "join and vote", "JOIN Dave\nVOTE 301 FOR\n")  # two events, rolled back
    monkeypatch.undo()
    # Another writer (the command line, say) commits two events of its own meanwhile.
    other = GameService(game.store, game.settings, rng=random.Random(2), clock=game.clock)
    other.speaker_command(c.AddPlayer(SPEAKER, "erin@example.org", "Erin"))
    state = game.service.state()
    assert "erin@example.org" in state.players and DAVE not in state.players


def test_the_backlog_counts_a_votes_results_and_a_new_proposal_by_their_stored_topic(
        game: MailGame) -> None:
    def waiting() -> dict[str, int]:
        backlog = game.service.outbox_backlog(game.service.outbox_summary())
        return {kind: backlog.total(kind) for kind in ("results", "distributions")}

    before = waiting()
    game.send(BOB, "an idea", "PROPOSE Cake\nCake is served.\nEND PROPOSAL\n")
    assert waiting() == {**before, "distributions": before["distributions"] + 1}
    deadline = game.service.state().proposals[301].closes_at
    assert deadline is not None
    game.clock.now = deadline + timedelta(seconds=1)
    game.service.tick()
    assert waiting()["results"] == before["results"] + 1


def test_a_command_on_a_proposal_a_refused_propose_was_to_make_names_that_line(
        make_game: MakeGame) -> None:
    # Suber: proposals come in turn, Alice's first; Bob's PROPOSE is refused, and the VOTE on
    # the proposal it was to make names it.
    game = make_game("suber")
    received = game.send(BOB, "mine", "PROPOSE Tea\nENACT RULE:\nTea.\nEND PROPOSE\n"
                                      "VOTE 301 FOR\n")
    assert 301 not in game.service.state().proposals
    flat = " ".join(only_reply(game, received.message_id).body.split())
    assert "Nothing in your message was done: each of its commands was refused." in flat
    assert ("Refused: there is no proposal 301. STATUS lists the open proposals. It may "
            "depend on line 1 (PROPOSE Tea), which was refused.") in flat


def test_every_message_processed_gets_one_log_line_with_who_what_outcome_and_time(
        game: MailGame, caplog: pytest.LogCaptureFixture) -> None:
    # Issue 40: a message processed without trouble got no log line at all.
    with caplog.at_level(logging.INFO, logger="speakerbot.service"):
        received = game.send(BOB, "votes", "VOTE 301 FOR\nSTATUS\n")
    lines = [record.getMessage() for record in caplog.records
             if record.getMessage().startswith(f"inbound message {received.inbound_id} ")]
    assert len(lines) == 1
    assert re.fullmatch(rf"inbound message {received.inbound_id} from <{re.escape(BOB)}>: "
                        r"VOTE, STATUS; processed in \d+ ms", lines[0]), lines
