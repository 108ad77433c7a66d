"""Hostile campaign benchmark: the attacks of both trust rounds against a real game.

A nomicam game of four players (debate by the proponent, so that REVISE applies) runs in the
real daemon, on a real Dovecot and an aiosmtpd sink on loopback, with SQLite, under a 1 GiB
address space and restarted on every exit, as the systemd unit runs it. Each phase puts one
attack into the game's mailbox, then a real player's STATUS behind it, and waits until that
STATUS is answered and the outbox is empty (or ``--timeout`` seconds pass). Per phase it
prints: messages and bytes in, mails and bytes out (each mail counted once per recipient),
public mails (those to more than one recipient), the delay of the real player's answer, and
the daemon's exits. At the end it checks the real ballots: Alice's (confirmed by her from
her mailbox, among forgeries in her name) and Kate's (with a look-alike address voting).

The phases: an edit bomb of six lines and of nine; forged votes before and after a real,
unauthenticated one; 200 CFJ lines in one message; 150 REVISE blocks; 100 JOINs from one
domain; a look-alike address (U+212A KELVIN SIGN for "k"); a player named "Index" (the
archive's own page); and the first round's campaign of 209 messages (forged senders and
Authentication-Results, broken MIME, charset traps, floods).

The script runs against whatever speakerbot is first on the path, so the same script
measures an older checkout: ``PYTHONPATH=/path/to/old/checkout python bench/hostile.py
--confirm-gap ""``.

The requests for confirmation to one address are ``--confirm-gap`` apart (10 s here, so
that Alice's real vote comes in the next request within the run; a game's default is 10
minutes).

Run: .venv/bin/python bench/hostile.py [--timeout SECONDS] [--confirm-gap DURATION]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime, make_msgid
from pathlib import Path

from speakerbot.adapters.store import Store
from tests.integration.game_harness import GAME, MX, RunningGame, body_of
from tests.integration.hostile import campaign
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink
from tests.support.supervisor import Supervisor

ALICE, BOB, CAROL, KATE = (f"{name}@nomic.test" for name in ("alice", "bob", "carol", "kate"))
MALLORY = "mallory@webmail.test"
PLAYERS = (ALICE, BOB, CAROL, KATE)
MECHANICS = {"reminder_before": "none", "voting_period": "1d", "debate": "proponent",
             "debate_period": "1d", "turn_period": "none"}
_CODE = re.compile(r"^CONFIRM ([0-9a-f]{32})\b", re.MULTILINE)


def raw(sender: str, subject: str, body: str, *, authenticated: bool = True) -> bytes:
    """A player's message as the game's mailbox receives it (the MX's verdict on top)."""
    domain = sender.rpartition("@")[2].encode("idna").decode() if sender.isascii() else \
        sender.rpartition("@")[2]
    head = (f"Authentication-Results: {MX}; dmarc=pass header.from={domain}\r\n"
            if authenticated else f"Authentication-Results: {MX}; dmarc=none\r\n")
    head += (f"From: <{sender}>\r\nTo: {GAME}\r\nSubject: {subject}\r\n"
             f"Date: {format_datetime(datetime.now(UTC))}\r\n"
             f"Message-ID: {make_msgid(domain='bench.test')}\r\n"
             "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
    return head.encode() + body.replace("\n", "\r\n").encode()


def bomb(lines: int) -> str:
    edit = 'Amend Rule 202 by replacing every occurrence of "e" with "eeeeeeeeee".'
    return "PROPOSE Longer rules\n" + "\n".join([edit] * lines) + "\nEND PROPOSE\n"


def forged_votes() -> list[bytes]:
    forged = [raw(ALICE, f"forged {n}", "VOTE 301 AGAINST\n", authenticated=False)
              for n in range(5)]
    real = raw(ALICE, "my real vote", "VOTE 301 FOR\n", authenticated=False)
    return [*forged, real, *(raw(ALICE, f"forged {n}", "VOTE 301 AGAINST\n",
                                 authenticated=False) for n in range(5, 10))]


PHASES: list[tuple[str, Callable[[], list[bytes]]]] = [
    ("edit bomb, 6 lines", lambda: [raw(MALLORY, "six lines", bomb(6))]),
    ("edit bomb, 9 lines", lambda: [raw(MALLORY, "nine lines", bomb(9))]),
    ("forged votes around a real one", forged_votes),
    ("200 CFJ lines", lambda: [raw(BOB, "questions", "".join(
        f"CFJ Statement number {n} is true.\n" for n in range(200)))]),
    ("150 REVISE blocks", lambda: [raw(BOB, "revisions", "".join(
        f"REVISE 302\nCake is served on day {n}.\nEND REVISE\n" for n in range(150)))]),
    ("100 JOINs from one domain", lambda: [raw(f"user{n}@spam.test", "hello", f"JOIN User{n}\n")
                                           for n in range(100)]),
    ("look-alike address", lambda: [raw("\u212aate@nomic.test", "vote", "VOTE 301 AGAINST\n")]),
    ("a player named Index", lambda: [raw("index@webmail.test", "hi", "JOIN Index\n")]),
    ("first round's campaign", lambda: [h.raw for h in campaign(list(PLAYERS), [])]),
]


@dataclass
class Figures:
    """What one phase cost."""

    messages: int
    bytes_in: int
    mails_out: int = 0
    bytes_out: int = 0
    public: int = 0
    delay: float | None = None


def settled(game: RunningGame) -> bool:
    """Tell whether the mailbox is empty and nothing in the outbox is due to be sent."""
    if game.inbox():
        return False
    with Store(game.db_url) as store:
        return not store.due_outbox(datetime.now(UTC), limit=1)


def run_phase(game: RunningGame, messages: list[bytes], timeout: float) -> Figures:
    """Put one attack in the mailbox, then a real STATUS; wait for its answer."""
    before = len(game.sink.messages)
    figures = Figures(len(messages), sum(len(m) for m in messages))
    for message in messages:
        game.append(message)
    subject = f"carol asks {time.monotonic()}"
    game.append(raw(CAROL, subject, "STATUS\n"))
    started = time.monotonic()
    deadline = started + timeout
    while time.monotonic() < deadline:
        if figures.delay is None and game.sent(f"Re: {subject}", to=CAROL):
            figures.delay = time.monotonic() - started
        if figures.delay is not None and settled(game):
            break
        time.sleep(0.05)
    sent = game.sink.messages[before:]
    figures.mails_out = sum(len(m.rcpt_tos) for m in sent)
    figures.bytes_out = sum(len(m.data) * len(m.rcpt_tos) for m in sent)
    figures.public = sum(1 for m in sent if len(m.rcpt_tos) > 1)
    return figures


def confirm_alice(game: RunningGame, timeout: float) -> str:
    """Alice confirms, from her own mailbox, the request that lists her real vote."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in game.sink.messages:
            body = body_of(message)
            if ALICE in message.rcpt_tos and "my real vote" in body:
                codes = _CODE.findall(body)
                if codes:
                    # Each listed message has its own code in a request that lists several;
                    # the one printed after the real vote's subject is its own.
                    after = body[body.index("my real vote"):]
                    code = (_CODE.findall(after) or codes)[0]
                    game.append(raw(ALICE, "yes", f"CONFIRM {code}\n"))
                    return "requested"
        time.sleep(0.1)
    return "never requested"


def setup(game: RunningGame) -> None:
    """Four players, Mallory joined by mail, Alice's proposal in its vote, Bob's in debate."""
    game.cli("init")
    for address in PLAYERS:
        game.cli("player", "add", address, address.split("@")[0].title())
    for message in (raw(MALLORY, "joining", "JOIN Mallory\n"),
                    raw(ALICE, "tea", "PROPOSE Tea\nTea is served at four.\nEND PROPOSE\n"
                        "CALL VOTE 301\n"),
                    raw(BOB, "cake", "PROPOSE Cake\nCake is served on Sundays.\nEND PROPOSE\n"),
                    raw(KATE, "kate votes", "VOTE 301 FOR\n")):
        game.append(message)
    game.wait_subject("Re: kate votes", to=KATE, timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=90.0)
    parser.add_argument("--confirm-gap", default="10s",
                        help="[auth] confirm_gap (empty: the default, 10 minutes; an older "
                             "speakerbot knows no such key)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, SmtpSink() as sink:
        dovecot = DovecotServer()
        dovecot.start()
        try:
            folder = Path(tmp)
            auth = {"confirm_gap": args.confirm_gap} if args.confirm_gap else None
            game = RunningGame(folder, dovecot, sink, f"sqlite:///{folder / 'game.db'}",
                               "nomicam", MECHANICS, auth=auth)
            play(game, args.timeout)
        finally:
            dovecot.close()


def play(game: RunningGame, timeout: float) -> None:
    """Run every phase, printing each row as it is measured (a stalled one shows so)."""
    supervisor = Supervisor(game, address_space=1024**3)
    supervisor.__enter__()
    rows: list[tuple[str, Figures, int]] = []
    try:
        setup(game)
        print(HEADER, flush=True)
        for name, build in PHASES:
            exits = len(supervisor.exits)
            figures = run_phase(game, build(), timeout)
            rows.append((name, figures, len(supervisor.exits) - exits))
            print(row(*rows[-1]), flush=True)
            if name.startswith("forged votes"):
                print(f"  Alice's real vote: {confirm_alice(game, timeout)}", flush=True)
        game.append(raw(ALICE, "close", "STATUS\n"))
        game.wait_subject("Re: close", to=ALICE, timeout=timeout)
    finally:
        try:
            supervisor.__exit__(None, None, None)
        except AssertionError:
            print("the daemon did not stop on SIGTERM within 30 s: killed", flush=True)
            game.kill()
    report(game, rows)


HEADER = (f"{'attack':<32}{'msgs':>6}{'bytes in':>10}{'mails out':>11}{'bytes out':>12}"
          f"{'public':>8}{'real delay':>12}{'exits':>7}")


def row(name: str, f: Figures, exits: int) -> str:
    """One phase's figures, as a line of the table."""
    delay = f"{f.delay:.1f} s" if f.delay is not None else "never"
    return (f"{name:<32}{f.messages:>6}{f.bytes_in:>10}{f.mails_out:>11}{f.bytes_out:>12}"
            f"{f.public:>8}{delay:>12}{exits:>7}")


def report(game: RunningGame, rows: list[tuple[str, Figures, int]]) -> None:
    """Print the totals, and the real ballots."""
    total_in = sum(f.bytes_in for _, f, _ in rows)
    total_out = sum(f.bytes_out for _, f, _ in rows)
    delays = [f.delay for _, f, _ in rows]
    longest = "never answered" if None in delays else f"{max(d for d in delays if d):.1f} s"
    print(f"in all: {total_in} bytes in, {total_out} bytes out "
          f"({total_out / max(total_in, 1):.1f} per byte in), "
          f"{sum(f.public for _, f, _ in rows)} public mails, longest real delay {longest}")
    ballots = game.state().proposals[301].ballots
    for who, what in ((ALICE, "forgeries in her name"), (KATE, "the look-alike address")):
        cast = ballots[who].choice.value if who in ballots else "none"
        print(f"{who.split('@')[0].title()}'s ballot on 301: {cast} (sent FOR; {what}, AGAINST)")


if __name__ == "__main__":
    main()
