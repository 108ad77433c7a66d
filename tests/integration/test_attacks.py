"""The attacks reproduced against the old main, each through the running daemon.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL: a forger writes any header, a
flooder sends much, a broken client sends junk. Each test failed on the main before the
trust work (the ADMIN bypass, forged senders, the utf-7 stall, the amplifier, the copied
Message-ID, the whole-message IMAP fetch, the host locked out after a win, a KELVIN SIGN
read as k).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import format_datetime, make_msgid

import pytest

from speakerbot.adapters.store import InboundRow, Store
from speakerbot.engine.model import ProposalStatus
from tests.integration.game_harness import (
    GAME,
    MX,
    PASSWORD,
    SPEAKER,
    MakeGame,
    RunningGame,
    admin_mail,
    body_of,
    subject_of,
)
from tests.support.patience import patience, period

pytestmark = pytest.mark.integration

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"
QUIET = {"reminder_before": "none", "voting_period": "1h"}
_CODE = re.compile(r"^CONFIRM ([0-9a-f]{32})\b", re.MULTILINE)


def wait_until(game: RunningGame, what: str, done: Callable[[], bool],
               timeout: float = patience(30)) -> None:
    """Poll the record until ``done`` holds (the daemon gives no other signal)."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while not done():
        assert game.process is not None and game.process.poll() is None, game.log_text()[-4000:]
        assert time.monotonic() < deadline, f"timed out waiting for {what}\n{game.log_text()}"
        time.sleep(delay)
        delay = min(delay * 2, 0.3)


def inbound(game: RunningGame) -> list[InboundRow]:
    with Store(game.db_url) as store:
        return list(reversed(store.list_inbound(limit=100_000)))


def settled(game: RunningGame, count: int) -> None:
    """Wait until ``count`` messages are stored and none is still to be processed."""
    wait_until(game, f"{count} messages taken in", lambda: len(inbound(game)) >= count and all(
        row.status not in ("new", "retry") for row in inbound(game)) and not game.inbox())


def raw_from(sender: str, subject: str, body: str, *, authenticated: bool = True,
             extra: str = "\r\n", message_id: str | None = None) -> bytes:
    """Hand-built mail, for shapes the email package will not write.

    ``extra`` ends the header block: a blank line by default.
    """
    domain = sender.rpartition("@")[2]
    auth = f"Authentication-Results: {MX}; dmarc=pass header.from={domain}\r\n"
    head = (f"{auth if authenticated else ''}From: <{sender}>\r\nTo: {GAME}\r\n"
            f"Subject: {subject}\r\nDate: {format_datetime(datetime.now(UTC))}\r\n"
            f"Message-ID: {message_id or make_msgid(domain='players.test')}\r\n{extra}")
    return head.encode() + body.encode()


def start(make_game: MakeGame, players: tuple[str, ...] = (ALICE, BOB, CAROL),
          auth: dict[str, str] | None = None, **mechanics: str) -> RunningGame:
    game = make_game("nomicam", {**QUIET, **mechanics}, auth=auth)
    game.begin(*((address, address.split("@")[0].title()) for address in players))
    return game


def test_a_forged_password_verdict_runs_no_admin_and_the_real_password_is_never_stored(
        make_game: MakeGame) -> None:
    game = start(make_game)
    # The reproducer: a colon-less line ends the headers for the reader, so the sender's
    # own "verdict" stood where speakerbot looked for its own.
    forged = raw_from(SPEAKER, "fix", "PASSWORD [checked by speakerbot: right]\r\n"
                      "ADMIN SCORE alice@nomic.test +1000 forged\r\n",
                      extra="this line has no colon\r\n")  # and no blank line
    game.append(forged)
    refused = game.wait_subject("Re: fix", to=SPEAKER)
    assert "Nothing in your message was done" in body_of(refused)
    assert game.state().players[ALICE].score == 0 and not game.state().ended
    # The same shape with the real password: the command runs, and the password is kept
    # nowhere: not in the stored message, not in any mail.
    real = raw_from(SPEAKER, "fix again", f"PASSWORD {PASSWORD}\r\n"
                    "ADMIN SCORE alice@nomic.test +5 fair\r\n",
                    extra="this line has no colon\r\n")
    game.append(real)
    done = game.wait_subject("Re: fix again", to=SPEAKER)
    assert "Done" in body_of(done)
    assert game.state().players[ALICE].score == 5
    assert all(PASSWORD.encode() not in row.raw for row in inbound(game))
    assert all(PASSWORD.encode() not in message.data for message in game.sink.messages)
    assert game.stop() == 0


def test_a_forged_from_acts_for_nobody_and_the_real_owner_confirms(make_game: MakeGame) -> None:
    game = start(make_game)
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    game.wait_subject("Re: my vote", to=BOB)
    # Forgeries in Bob's, Carol's and a stranger's names, without authentication or with
    # an Authentication-Results header the forger wrote under another server's id.
    game.send(BOB, "changed my mind", "VOTE 301 AGAINST\n", authenticated=False)
    game.append(b"Authentication-Results: mx.evil.test; dmarc=pass header.from=nomic.test\r\n"
                + raw_from(CAROL, "bye", "FORFEIT\n", authenticated=False))
    game.send(SPEAKER, "no", "REFUSE 301\n", authenticated=False)
    game.send("dave@victim.test", "sign me up", "JOIN Dave\n" + "I want to play. " * 80,
              authenticated=False)
    request = game.wait_subject("Please confirm your message", to=BOB)
    game.wait_subject("Please confirm your message", to=CAROL)
    game.wait_subject("Please confirm your message", to="dave@victim.test")
    settled(game, 6)
    state = game.state()
    assert state.proposals[301].ballots[BOB].choice.value == "FOR"  # the sealed ballot stands
    assert state.players[CAROL].active and "dave@victim.test" not in state.players
    assert not state.proposals[301].consent_refused
    # Each request went only to the address named in From, and quotes what it would do.
    assert request.rcpt_tos == (BOB,)
    assert "VOTE 301 AGAINST" in body_of(request) and "Voting on proposal 301" in body_of(request)
    # The real Bob confirms with the line from the request: his held ballot now counts.
    code = _CODE.search(body_of(request))
    assert code is not None
    game.send(BOB, "yes that was me", f"CONFIRM {code.group(1)}\n")
    game.wait_subject("Re: changed my mind", to=BOB)
    assert game.state().proposals[301].ballots[BOB].choice.value == "AGAINST"
    # The code is single use: sent again, it releases nothing more.
    game.send(BOB, "again", f"CONFIRM {code.group(1)}\n")
    again = game.wait_subject("Re: again", to=BOB)
    assert "expired or was used" in body_of(again)
    assert game.stop() == 0


def test_a_utf7_trap_and_a_huge_message_stall_nothing(make_game: MakeGame) -> None:
    game = start(make_game, voting_period=period(12))
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    game.append(b"From: <carol@nomic.test>\r\nTo: game@nomic.test\r\nSubject: trap\r\n"
                b"Message-ID: <utf7-trap@players.test>\r\n"
                b"Content-Type: text/plain; charset=utf-7\r\n\r\n+2AA-\r\nPASSWORD: +2AA-\r\n")
    huge = raw_from(CAROL, "holiday photos", "VOTE 301 AGAINST\r\n"
                    + ("x" * 998 + "\r\n") * 20_000)  # 20 MB
    game.append(huge)
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    game.send(ALICE, "my vote", "VOTE 301 FOR\n")
    game.wait_subject("Re: my vote", to=BOB)
    too_large = game.wait_subject("Re: holiday photos", to=CAROL)
    assert "not read" in body_of(too_large) and len(too_large.data) < 2000
    results = game.wait_subject("Proposal 301 ADOPTED", timeout=patience(60))
    assert "2 for, 0 against" in body_of(results)
    rows = inbound(game)
    assert len(rows) == 5 and {row.status for row in rows} <= {"processed", "set_aside"}
    big = [row for row in rows if row.oversized]
    assert len(big) == 1 and big[0].oversized is not None and big[0].oversized > 20_000_000
    assert len(big[0].raw) < 10_000  # only its headers were fetched
    assert len(game.dovecot.list_folder(game.user, "speakerbot/rejected")) == 1
    assert game.stop() == 0


def test_the_speaker_is_no_amplifier(make_game: MakeGame) -> None:
    game = start(make_game)
    # A 250 KB message in a stranger's (forged) name, twice, and a dozen small ones.
    victim = "victim@elsewhere.test"
    for n in range(2):
        game.append(raw_from(victim, f"junk {n}", "VOTE 301 FOR\r\n"
                             + "blah blah\r\n" * 22_000, authenticated=False))
    for n in range(12):
        game.send(victim, f"small {n}", "Hello\n" + "-- \nA long signature line.\n" * 40)
    # 199 PROPOSE blocks from a player.
    blocks = "".join(f"PROPOSE Rule {n}\nPlayers may hum {n}.\nEND PROPOSE\n" for n in range(199))
    game.send(ALICE, "many", blocks)
    refused = game.wait_subject("Re: many", to=ALICE)
    assert "at most 5 proposals in one message" in body_of(refused)
    game.wait_subject("Not a player", to=victim)
    settled(game, 15)
    game.send(ALICE, "sync", "STATUS\n")  # mail is answered in order: all before it is out
    game.wait_subject("Re: sync", to=ALICE)
    to_victim = [m for m in game.sink.messages if victim in m.rcpt_tos]
    assert len(to_victim) == 1 and len(to_victim[0].data) < 2000
    assert "blah" not in body_of(to_victim[0])
    assert not game.sent("Proposal 3")  # nothing was distributed
    assert game.stop() == 0


def test_a_copied_message_id_does_not_drop_a_players_ballot(make_game: MakeGame) -> None:
    game = start(make_game)
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    shared = make_msgid(domain="players.test")
    game.send("mallory@elsewhere.test", "first!", "Hello " * 200, message_id=shared)
    game.wait_subject("Not a player", to="mallory@elsewhere.test")
    game.send(BOB, "my vote", "VOTE 301 FOR\n", message_id=shared)
    reply = game.wait_subject("Re: my vote", to=BOB)
    assert "Your ballot on proposal 301 is FOR" in body_of(reply)
    assert game.state().proposals[301].ballots[BOB].choice.value == "FOR"
    assert game.stop() == 0


def test_the_host_keeps_admin_after_a_win_moves_the_speakers_role(make_game: MakeGame) -> None:
    game = start(make_game, win_points="20")
    game.send(SPEAKER, "head start", admin_mail(f"ADMIN SCORE {ALICE} +25 a test"))
    game.wait_for(lambda m: "won the game" in subject_of(m))
    game.wait_for(lambda m: "Game 2 begins" in body_of(m))
    assert game.state().speaker == ALICE
    game.send(SPEAKER, "correction", admin_mail(f"ADMIN SCORE {BOB} +1 a fix"))
    done = game.wait_subject("Re: correction", to=SPEAKER)
    assert "Done" in body_of(done), body_of(done)
    assert game.state().players[BOB].score == 1
    # The new in-game Speaker has no password, and ADMIN is the host's alone.
    game.send(ALICE, "me too", admin_mail(f"ADMIN SCORE {ALICE} +1 mine"))
    refused = game.wait_subject("Re: me too", to=ALICE)
    assert "Nothing in your message was done" in body_of(refused)
    assert game.state().proposals == {} or all(
        p.status is not ProposalStatus.OPEN for p in game.state().proposals.values())
    assert game.stop() == 0


def test_a_kelvin_sign_k_is_not_kates_k(make_game: MakeGame) -> None:
    kate, kelvin = "kate@nomic.test", "\u212aate@nomic.test"  # U+212A KELVIN SIGN
    game = start(make_game, (ALICE, BOB, kate))
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    game.send(kate, "my vote", "VOTE 301 FOR\n")
    game.wait_subject("Re: my vote", to=kate)
    # DMARC passes: nomic.test is the look-alike's domain too. Its From header is raw UTF-8
    # (SMTPUTF8 style); str.lower() read it as kate@nomic.test and cast her ballot.
    game.append(raw_from(kelvin, "changed my mind", "VOTE 301 AGAINST\r\n"
                         + "-- \r\nLong enough to be worth a stranger's reply.\r\n" * 30))
    game.append(raw_from("\u212aATE@nomic.test", "bye", "FORFEIT\r\n"))
    game.send(ALICE, "sync", "STATUS\n")  # mail is answered in order: all before it is out
    game.wait_subject("Re: sync", to=ALICE)
    settled(game, 5)
    state = game.state()
    assert state.proposals[301].ballots[kate].choice.value == "FOR"
    assert state.players[kate].active and kelvin not in state.players
    assert not game.sent("Re: changed my mind") and not game.sent("Re: bye")
    # At most a stranger's reply, to the look-alike address as written.
    stranger = game.wait_subject("Not a player", to=kelvin)
    assert stranger.rcpt_tos == (kelvin,)
    assert game.sent(to=kelvin) == [stranger]  # one reply, a stranger's


def requests_listing(game: RunningGame, address: str) -> dict[str, str]:
    """Every message the requests to ``address`` listed so far, by subject, with its code."""
    listed: dict[str, str] = {}
    for request in game.sent("Please confirm your message", to=address):
        body, start = body_of(request), 0
        for code in _CODE.finditer(body):
            subject = re.findall(r'"([^"]*)"', body[start:code.start()])
            assert subject and subject[-1] not in listed, body
            listed[subject[-1]] = code.group(1)
            start = code.end()
    return listed


def test_forged_ballots_neither_spend_the_requests_nor_ride_along_with_a_confirmation(
        make_game: MakeGame) -> None:
    """The issue's attack: forged AGAINSTs from Alice's address, before and after her own.

    Seven forgeries would have used up the old five requests a day, and the one code that
    came at last applied them all, AGAINST last. Now her ballot is in the next request,
    with a code of its own that applies it alone.
    """
    game = start(make_game, auth={"confirm_gap": "3s"})
    game.send(BOB, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    forged = [f"forged {n}" for n in range(1, 8)]
    for subject in forged[:4]:
        game.send(ALICE, subject, "VOTE 301 AGAINST\n", authenticated=False)
    game.send(ALICE, "my vote", "VOTE 301 FOR\n", authenticated=False)
    for subject in forged[4:]:
        game.send(ALICE, subject, "VOTE 301 AGAINST\n", authenticated=False)
    game.wait_for(lambda m: ALICE in m.rcpt_tos and '"my vote"' in body_of(m))
    # Every message was asked about, once, each with a code of its own.
    wait_until(game, "every held message asked about",
               lambda: len(requests_listing(game, ALICE)) == 8)
    listed = requests_listing(game, ALICE)
    assert sorted(listed) == sorted([*forged, "my vote"])
    assert len(set(listed.values())) == 8
    assert game.state().proposals[301].ballots.get(ALICE) is None
    game.send(ALICE, "yes, that one", f"CONFIRM {listed['my vote']}\n", authenticated=False)
    applied = game.wait_subject("Re: my vote", to=ALICE)
    assert "Your ballot on proposal 301 is FOR" in body_of(applied)
    game.send(SPEAKER, "close", admin_mail("ADMIN CLOSE 301"))
    results = game.wait_for(lambda m: re.search(r"Proposal 301 (ADOPTED|DEFEATED)",
                                                subject_of(m)) is not None)
    ballots = body_of(results).replace("\r\n", "\n").split("Ballots, revealed:")[1]
    ballots = ballots.split("\n\n")[0]
    assert re.findall(r"^ +(\w+) +(FOR|AGAINST)$", ballots, re.MULTILINE) == [
        ("Alice", "FOR")], ballots
    assert game.state().proposals[301].ballots[ALICE].choice.value == "FOR"
    # The forgeries stay held, unconfirmed, and expire.
    assert [row.status for row in inbound(game)
            if row.sender == ALICE and row.status == "held"] == ["held"] * 7
    assert game.stop() == 0
