"""Who may act, through the real GameService on SQLite: confirmation, strangers, ADMIN.

Fast and exact where the daemon tests are end to end: each rule of docs/security.md, with
the clock moved by the test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json
from speakerbot.service import processing
from tests.support.mailgame import (
    ALICE,
    BOB,
    CAROL,
    PASSWORD,
    SPEAKER,
    Mail,
    MailGame,
    MakeMailGame,
    mail_games,
    raw_mail,
)

MakeGame = MakeMailGame
STRANGER = "zed@elsewhere.example"
_CODE = re.compile(r"^CONFIRM ([0-9a-f]{32})$", re.MULTILINE)


@pytest.fixture
def make_game(tmp_path: Path) -> Iterator[MakeGame]:
    """Nomicam games with Alice, Bob and Carol, each with Alice's proposal 301 open."""
    with mail_games(tmp_path) as make_one:

        def make(**options: Any) -> MailGame:
            game = make_one(**options)
            game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
            return game

        yield make


@pytest.fixture
def game(make_game: MakeGame) -> MailGame:
    return make_game()


def new_mail(game: MailGame, start: int) -> list[Mail]:
    return game.outbox()[start:]


def requests_to(game: MailGame, address: str) -> list[Mail]:
    return [m for m in game.outbox() if m.row.kind == "confirm" and m.recipients == (address,)]


def code_of(request: Mail) -> str:
    found = _CODE.search(request.body)
    assert found is not None, request.body
    return found.group(1)


def ballot(game: MailGame, voter: str) -> str | None:
    found = game.service.state().proposals[301].ballots.get(voter)
    return None if found is None else found.choice.value


def record(game: MailGame) -> list[e.Event]:
    return [event_from_json(row.data) for row in game.store.load_events()]


def test_unauthenticated_mail_is_held_and_the_code_applies_it_at_the_confirmation(
        game: MailGame) -> None:
    held = game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    assert ballot(game, BOB) is None
    assert game.store.inbound(held.inbound_id).status == "held"
    [request] = requests_to(game, BOB)
    assert "VOTE 301 FOR" in request.body and "Voting on proposal 301 closes" in request.body
    assert game.replies_to(held.message_id) == []  # no ordinary reply to the held message
    confirm = game.send(BOB, "yes", f"CONFIRM {code_of(request)}\n", authenticated=False,
                        after=timedelta(hours=2))
    assert ballot(game, BOB) == "FOR"
    cast = [ev for ev in record(game) if isinstance(ev, e.BallotCast)]
    assert cast[-1].at == game.store.inbound(confirm.inbound_id).received_at
    assert game.store.inbound(held.inbound_id).status == "processed"
    assert len(game.replies_to(held.message_id)) == 1  # its reply, once it was applied
    # Single use.
    again = game.send(BOB, "again", f"CONFIRM {code_of(request)}\n", authenticated=False)
    assert "expired or was used" in game.replies_to(again.message_id)[0].body


def test_a_code_releases_only_what_its_request_listed(game: MailGame) -> None:
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [first] = requests_to(game, BOB)
    # A forger writes as Bob while his request is open: held, not listed in that request.
    forged = game.send(BOB, "bye", "FORFEIT\n", authenticated=False)
    assert game.store.inbound(forged.inbound_id).status == "held"
    assert len(requests_to(game, BOB)) == 1
    game.send(BOB, "yes", f"CONFIRM {code_of(first)}\n")
    state = game.service.state()
    assert ballot(game, BOB) == "FOR" and state.players[BOB].active
    assert game.store.inbound(forged.inbound_id).status == "held"
    # When the limit allows, what was held gets a request of its own, for Bob to see.
    game.clock.now += timedelta(minutes=10)
    game.service.tick()
    second = requests_to(game, BOB)[-1]
    assert second is not first and "FORFEIT" in second.body and "VOTE" not in second.body


def test_a_forgery_does_not_lock_out_a_player_whose_mail_is_not_authenticated(
        game: MailGame) -> None:
    forged = game.send(BOB, "bye", "FORFEIT\n", authenticated=False)
    [forged_request] = requests_to(game, BOB)
    real = game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    game.clock.now += timedelta(minutes=10)
    game.service.tick()
    real_request = requests_to(game, BOB)[-1]
    assert real_request is not forged_request and "VOTE 301 FOR" in real_request.body
    assert "FORFEIT" not in real_request.body
    game.send(BOB, "yes", f"CONFIRM {code_of(real_request)}\n", authenticated=False)
    assert ballot(game, BOB) == "FOR" and game.service.state().players[BOB].active
    assert game.store.inbound(real.inbound_id).status == "processed"
    assert game.store.inbound(forged.inbound_id).status == "held"


def test_a_reply_confirms_only_with_the_code_in_it(game: MailGame) -> None:
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [request] = requests_to(game, BOB)
    thread = [("In-Reply-To", str(request.header("Message-ID")))]
    # "That was not me", without the code: nothing is confirmed.
    game.send(BOB, "Re: confirm", "I did NOT send this!\n", authenticated=False,
              headers=thread)
    assert ballot(game, BOB) is None
    # A reply that quotes the request, code and all, confirms it; its own command follows.
    quoted = "\n".join("> " + line for line in request.body.splitlines())
    game.send(BOB, "Re: confirm", f"VOTE 301 AGAINST\n\n{quoted}\n", authenticated=False,
              headers=thread)
    assert ballot(game, BOB) == "AGAINST"  # the held FOR, then this AGAINST


def test_a_request_quoted_without_marks_applies_nothing_twice(game: MailGame) -> None:
    game.send(ALICE, "PROPOSE: Cake", "Cake on Sundays.\n", authenticated=False)
    [request] = requests_to(game, ALICE)
    game.send(ALICE, "Re: confirm", request.body, authenticated=False)
    titles = [p.title for p in game.service.state().proposals.values()]
    assert titles.count("Cake") == 1


def test_a_players_mail_over_the_rate_limit_waits_for_a_request(game: MailGame) -> None:
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    game.send(BOB, "yes", f"CONFIRM {code_of(requests_to(game, BOB)[0])}\n")
    later = game.send(BOB, "changed", "VOTE 301 AGAINST\n", authenticated=False)
    assert game.store.inbound(later.inbound_id).status == "held"
    assert len(requests_to(game, BOB)) == 1, "a second request within ten minutes"
    game.clock.now += timedelta(minutes=10)
    game.service.tick()
    [_, second] = requests_to(game, BOB)
    assert "VOTE 301 AGAINST" in second.body
    game.send(BOB, "yes", f"CONFIRM {code_of(second)}\n")
    assert ballot(game, BOB) == "AGAINST"


def test_a_vote_confirmed_after_the_close_is_refused(make_game: MakeGame) -> None:
    game = make_game(mechanics={"voting_period": "1d", "reminder_before": "none"})
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [request] = requests_to(game, BOB)
    confirm = game.send(BOB, "yes", f"CONFIRM {code_of(request)}\n", after=timedelta(days=2))
    assert ballot_after_close(game, BOB) is None
    replies = [m.body for m in game.outbox() if m.recipients == (BOB,) and m.row.kind == "reply"]
    assert any("Refused" in body for body in replies), replies
    assert game.store.inbound(confirm.inbound_id).status == "processed"


def ballot_after_close(game: MailGame, voter: str) -> str | None:
    proposal = game.service.state().proposals[301]
    found = proposal.ballots.get(voter)
    return None if found is None else found.choice.value


def test_an_expired_request_releases_nothing(game: MailGame) -> None:
    held = game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [request] = requests_to(game, BOB)
    game.clock.now += timedelta(days=3, minutes=1)
    game.service.tick()
    assert game.store.inbound(held.inbound_id).status == "unconfirmed"
    late = game.send(BOB, "yes", f"CONFIRM {code_of(request)}\n")
    assert ballot(game, BOB) is None
    assert "expired" in game.replies_to(late.message_id)[0].body


def test_a_forged_join_is_double_opt_in_and_a_stranger_gets_one_short_reply_a_day(
        game: MailGame) -> None:
    start = len(game.outbox())
    padding = "I would love to play. " * 60
    game.send(STRANGER, "join", f"JOIN Zed\n{padding}\n", authenticated=False)
    assert STRANGER not in game.service.state().players
    [request] = requests_to(game, STRANGER)
    # More mail from that address today: nothing more is sent to it.
    game.send(STRANGER, "hello", f"STATUS\n{padding}\n")
    game.send(STRANGER, "hello", f"VOTE 301 FOR\n{padding}\n")
    assert [m.recipients for m in new_mail(game, start)] == [(STRANGER,)]
    game.send(STRANGER, "yes", f"CONFIRM {code_of(request)}\n", authenticated=False)
    assert game.service.state().players[STRANGER].active


def test_a_stranger_gets_nothing_larger_than_what_it_sent(game: MailGame) -> None:
    start = len(game.outbox())
    tiny = game.send(STRANGER, "x", "hi\n")
    assert new_mail(game, start) == []
    assert game.store.inbound(tiny.inbound_id).status == "processed"
    big = "Hello there. " * 100
    game.clock.now += timedelta(days=1)
    sent = game.send(STRANGER, "x", big)
    [reply] = new_mail(game, start)
    assert reply.row.kind == "stranger" and "Hello there" not in reply.body
    assert len(reply.row.raw) <= len(game.store.inbound(sent.inbound_id).raw)
    # A stranger's JOIN with mistakes gets no more than that.
    game.clock.now += timedelta(days=1)
    errors = "".join(f"VOTE {n} MAYBE\n" for n in range(150))
    game.send(STRANGER, "x", f"JOIN Zed\n{errors}", authenticated=False)
    latest = new_mail(game, start)[-1]
    assert latest.row.kind == "stranger" and len(latest.row.raw) < 1000


def test_a_stranger_whose_join_is_refused_gets_no_answers_to_questions(
        make_game: MakeGame) -> None:
    """Registration closed: JOIN with RULES and STATUS answers no question (nor the rules)."""
    game = make_game(open_registration=False)
    start = len(game.outbox())
    sent = game.send(STRANGER, "hello", "RULES\nSTATUS\nSCORES\nHELP\nJOIN Zed\n")
    replies = new_mail(game, start)
    assert STRANGER not in game.service.state().players
    for reply in replies:
        assert "Rule 101" not in reply.body and "Scores" not in reply.body
        assert len(reply.row.raw) <= 4 * len(sent.raw)


def test_refuse_mode_says_nothing_was_done_but_join_still_asks(make_game: MakeGame) -> None:
    game = make_game(auth={"unauthenticated": "refuse"})
    sent = game.send(BOB, "vote", "VOTE 301 FOR\n", authenticated=False)
    assert ballot(game, BOB) is None
    [reply] = game.replies_to(sent.message_id)
    assert "could not be authenticated, so nothing in it was done" in " ".join(
        reply.body.split())
    assert requests_to(game, BOB) == []
    game.send(STRANGER, "join", "JOIN Zed\n" + "Let me in please. " * 60, authenticated=False)
    assert len(requests_to(game, STRANGER)) == 1


def admin(game: MailGame, command: str, *, password: str = PASSWORD,
          authenticated: bool = True, **options: Any) -> str:
    sent = game.send(SPEAKER, "admin", f"PASSWORD {password}\n{command}\n",
                     authenticated=authenticated, **options)
    replies = game.replies_to(sent.message_id)
    return replies[0].body if replies else ""


def score(game: MailGame, address: str) -> Any:
    return game.service.state().players[address].score


def test_admin_needs_the_host_the_password_authentication_and_a_fresh_date(
        game: MailGame) -> None:
    assert "Done" in admin(game, f"ADMIN SCORE {BOB} +1 fair")
    assert score(game, BOB) == 1
    # Unauthenticated: held, and the host confirms it from the real mailbox.
    assert admin(game, f"ADMIN SCORE {BOB} +1 held", authenticated=False) == ""
    assert score(game, BOB) == 1
    [request] = requests_to(game, SPEAKER)
    assert "ADMIN SCORE" in request.body and PASSWORD not in request.body
    game.send(SPEAKER, "yes", f"CONFIRM {code_of(request)}\n", authenticated=False)
    assert score(game, BOB) == 2
    # A copy of an old signed message, sent again: its Date is two days old, so its
    # signature vouches for nothing now; it is held like any unauthenticated mail.
    stale = raw_mail(SPEAKER, "admin", f"PASSWORD {PASSWORD}\nADMIN SCORE {BOB} +1 replay\n",
                     date=game.clock.now - timedelta(days=2))
    replayed = game.service.receive(stale, game.clock.now, source="test")
    game.process()
    assert score(game, BOB) == 2
    assert game.store.inbound(replayed.id).status == "held"
    # Another player, with the right password, is refused.
    sent = game.send(ALICE, "admin", f"PASSWORD {PASSWORD}\nADMIN SCORE {ALICE} +5 me\n")
    assert "Nothing in your message was done" in game.replies_to(sent.message_id)[0].body
    assert score(game, ALICE) == 0


def test_five_wrong_passwords_close_admin_by_mail_for_an_hour(game: MailGame) -> None:
    for _ in range(4):
        admin(game, "ADMIN DIGEST", password="guess")
    # Forged wrong passwords (not from the host's own mailbox) do not count.
    for _ in range(3):
        admin(game, "ADMIN DIGEST", password="guess", authenticated=False)
    assert "Done" in admin(game, f"ADMIN SCORE {BOB} +1 still open")
    admin(game, "ADMIN DIGEST", password="guess")
    notices = [m for m in game.outbox() if m.subject.endswith("ADMIN by mail closed for an hour")]
    assert len(notices) == 1 and notices[0].recipients == (SPEAKER,)
    assert "closed until" in admin(game, f"ADMIN SCORE {BOB} +1 now closed")
    assert score(game, BOB) == 1
    game.clock.now += timedelta(hours=1)
    assert "Done" in admin(game, f"ADMIN SCORE {BOB} +1 open again")
    assert score(game, BOB) == 2


def test_proposals_per_message_and_per_day(make_game: MakeGame) -> None:
    game = make_game(limits={"proposals_per_message": 2, "proposals_per_day": 3})
    blocks = "".join(f"PROPOSE P{n}\nText {n}.\nEND PROPOSE\n" for n in range(3))
    sent = game.send(CAROL, "many", blocks)
    assert "at most 2 proposals in one message" in game.replies_to(sent.message_id)[0].body
    assert len(game.service.state().proposals) == 1
    for n in range(3):
        game.send(CAROL, f"PROPOSE: Q{n}", f"Text {n}.\n")
    assert len(game.service.state().proposals) == 4
    over = game.send(CAROL, "PROPOSE: Q3", "Text.\n")
    assert "at most 3 proposals a day" in game.replies_to(over.message_id)[0].body
    game.clock.now += timedelta(days=1)
    game.send(CAROL, "PROPOSE: Q4", "Text.\n")
    assert len(game.service.state().proposals) == 5


def test_a_too_large_message_gets_a_player_one_short_reply_and_a_stranger_none(
        game: MailGame) -> None:
    start = len(game.outbox())
    for sender in (BOB, STRANGER):
        head = raw_mail(sender, "photos", "").split(b"\n\n", 1)[0] + b"\n\n"
        game.service.receive(head, game.clock.now, source="test", oversized=30_000_000)
    game.process()
    [reply] = new_mail(game, start)
    assert reply.recipients == (BOB,) and "not read" in reply.body and len(reply.row.raw) < 1500


def test_the_outbox_sends_the_games_public_mail_before_replies(game: MailGame) -> None:
    for n in range(3):
        game.send(BOB, f"status {n}", "STATUS\n")
    game.send(CAROL, "PROPOSE: Cake", "Cake on Sundays.\n")
    due = game.store.due_outbox(game.clock.now + timedelta(days=1), limit=1000)
    kinds = [row.kind for row in due]
    first_reply = min(i for i, kind in enumerate(kinds) if kind == "reply")
    assert all(kind not in ("reply", "confirm", "stranger", "notice", "limit")
               for kind in kinds[:first_reply])
    assert max(i for i, kind in enumerate(kinds) if kind == "announcement") < first_reply


def test_hostile_headers_from_a_forger_neither_fail_nor_delay_the_owners_mail(
        game: MailGame) -> None:
    shapes = [
        raw_mail(BOB, "x", "STATUS\n", authenticated=False).replace(
            b"Subject: x", b"Subject: =?utf-7?q?+2AA-?="),
        raw_mail(BOB, "x", "STATUS\n", authenticated=False,
                 message_id="<x@evil.example>").replace(
            b"Message-ID: <x@evil.example>", b"Message-ID: <x@e>\r <y@z>"),
        raw_mail(BOB, "x", "VOTE 301 AGAINST\n", authenticated=False).replace(
            b"Subject: x", b"Subject: =?utf-7?q?+2AA-?="),
    ]
    for raw in shapes:
        game.service.receive(raw, game.clock.now, source="test")
    assert {p.status for p in game.process()} <= {"processed", "held"}
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    assert ballot(game, BOB) == "FOR"


def test_an_unauthenticated_message_that_keeps_failing_holds_back_nothing(
        make_game: MakeGame, monkeypatch: pytest.MonkeyPatch) -> None:
    game = make_game(mechanics={"voting_period": "1d", "reminder_before": "none"})
    game.send(BOB, "my vote", "VOTE 301 FOR\n")

    def broken(*args: object, **kwargs: object) -> Any:
        raise RuntimeError("the forger found a bug")

    monkeypatch.setattr(processing, "hold", broken)
    forged = game.send(CAROL, "x", "VOTE 301 AGAINST\n", authenticated=False)
    assert game.store.inbound(forged.inbound_id).status == "retry"
    # Carol's own authenticated mail is not held behind the forgery...
    game.send(CAROL, "my vote", "VOTE 301 FOR\n")
    assert ballot(game, CAROL) == "FOR"
    # ...and the vote closes on time.
    game.clock.now += timedelta(days=1, minutes=1)
    game.service.tick()
    assert game.service.state().proposals[301].closed_at is not None


def test_a_copy_with_the_same_message_id_and_body_shadows_nothing_real(game: MailGame) -> None:
    shared = "<shared@example.org>"
    # The forger's copy, unauthenticated, reaches the game first; then the real one.
    copy = raw_mail(BOB, "my vote", "VOTE 301 AGAINST\n", message_id=shared,
                    authenticated=False)
    game.service.receive(copy, game.clock.now, source="test")
    game.process()
    real = game.send(BOB, "my vote", "VOTE 301 AGAINST\n", message_id=shared)
    assert game.store.inbound(real.inbound_id).status != "held"
    assert ballot(game, BOB) == "AGAINST"
    # Another subject over the same body and Message-ID is another message too.
    other = game.send(BOB, "JUDGEMENT 12: maybe", "VOTE 301 AGAINST\n", message_id=shared)
    assert other.inbound_id != real.inbound_id
    # The same message delivered again by another route is still a duplicate.
    again = game.service.receive(b"Received: by relay2\r\n" + real.raw, game.clock.now,
                                 source="test")
    assert again.duplicate and again.id == real.inbound_id


def test_a_confirmation_received_in_time_counts_though_read_after_the_expiry(
        game: MailGame) -> None:
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [request] = requests_to(game, BOB)
    game.clock.now += timedelta(days=3) - timedelta(minutes=5)
    game.receive(BOB, "yes", f"CONFIRM {code_of(request)}\n", authenticated=False,
                 after=timedelta(0))
    game.clock.now += timedelta(minutes=10)  # read only now, after the request's expiry
    game.service.tick()
    game.process()
    assert ballot(game, BOB) == "FOR"


def test_mail_from_the_games_own_address_or_list_is_never_a_player(make_game: MakeGame) -> None:
    from tests.support.mailgame import GAME, LIST

    game = make_game(list_address=LIST)
    start = len(game.outbox())
    for address in (GAME, LIST):
        sent = game.send(address, "join", "JOIN Us\n" + "Let us in. " * 100,
                         authenticated=False)
        assert game.store.inbound(sent.inbound_id).status == "skipped"
    assert new_mail(game, start) == []
    assert GAME not in game.service.state().players and LIST not in game.service.state().players


def test_signed_mail_to_someone_else_or_long_ago_is_not_believed(game: MailGame) -> None:
    to_bob = game.send(ALICE, "for your eyes", "VOTE 301 FOR\n", to=BOB)
    assert game.store.inbound(to_bob.inbound_id).status == "held"
    old = raw_mail(ALICE, "vote", "VOTE 301 FOR\n", date=game.clock.now - timedelta(days=30))
    stored = game.service.receive(old, game.clock.now, source="test")
    game.process()
    assert game.store.inbound(stored.id).status == "held"
    assert ballot(game, ALICE) is None
