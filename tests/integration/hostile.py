"""Hostile mail for the campaign test: what forgers, flooders and broken clients send.

Each builder returns raw bytes as they would land in the game's mailbox. Nothing here is
clever about speakerbot; it is what the internet sends.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime

from tests.integration.game_harness import GAME, MX, SPEAKER


@dataclass(frozen=True)
class Hostile:
    """One hostile message: its kind (for the report) and its bytes."""

    kind: str
    raw: bytes


def _head(sender: str, subject: str, message_id: str, *, extra: str = "",
          from_header: str | None = None) -> str:
    return (f"From: {from_header if from_header is not None else '<' + sender + '>'}\r\n"
            f"To: {GAME}\r\nSubject: {subject}\r\n"
            f"Date: {format_datetime(datetime.now(UTC))}\r\nMessage-ID: {message_id}\r\n{extra}")


def campaign(players: list[str], copied_ids: list[str], *, seed: int = 8) -> list[Hostile]:
    """At least 200 hostile messages of every kind, in a shuffled order.

    ``copied_ids``: Message-IDs that legitimate players will use later (a forger who saw
    them in the list archive copies them first).
    """
    rng = random.Random(seed)
    out: list[Hostile] = []
    counter = iter(range(1, 10**6))

    def mid() -> str:
        return f"<hostile.{next(counter)}.{rng.randrange(10**9)}@evil.test>"

    def add(kind: str, raw: bytes) -> None:
        out.append(Hostile(kind, raw))

    for builder in _BUILDERS:
        for raw_kind, raw in builder(rng, players, copied_ids, mid):
            # The game's receiving server puts its own verdict on top, as a real one does
            # (a forger cannot pass DMARC for a domain they do not hold); now and then it
            # writes none, and the forger's own headers are all there is.
            if rng.random() < 0.9:
                raw = (f"Authentication-Results: {MX}; dkim=none; "
                       f"dmarc=fail header.from=nomic.test\r\n").encode() + raw
            add(raw_kind, raw)
    rng.shuffle(out)
    return out


Builder = Callable[[random.Random, list[str], list[str], Callable[[], str]],
                   Iterator[tuple[str, bytes]]]


def _forged_players(rng: random.Random, players: list[str], _: list[str],
                    mid: Callable[[], str]) -> Iterator[tuple[str, bytes]]:
    """Forged From: votes, forfeits and consent refusals in players' names, unauthenticated."""
    for n in range(30):
        victim = players[n % len(players)]
        body = rng.choice(["VOTE 301 AGAINST\r\n", "VOTE 302 AGAINST\r\n", "FORFEIT\r\n",
                           "REFUSE 301\r\n", "CFJ Everything is false\r\n"])
        yield "forged player", (_head(victim, "vote", mid()) + "\r\n" + body).encode()


def _forged_auth(rng: random.Random, players: list[str], _: list[str],
                 mid: Callable[[], str]) -> Iterator[tuple[str, bytes]]:
    """Authentication-Results the forger wrote, or placed where they are not believed."""
    for n in range(30):
        victim = players[n % len(players)]
        domain = victim.rpartition("@")[2]
        passing = f"dmarc=pass header.from={domain}; dkim=pass header.d={domain}"
        shapes = [
            # Under another server's id.
            f"Authentication-Results: mx.evil.test; {passing}\r\n",
            # The trusted id, but below the one the real server put on top.
            f"Authentication-Results: {MX}; dmarc=fail header.from={domain}\r\n"
            f"Received: from evil\r\nAuthentication-Results: {MX}; {passing}\r\n",
            # Signed by a public suffix or another domain.
            f"Authentication-Results: {MX}; dkim=pass header.d=test\r\n",
            f"Authentication-Results: {MX}; dkim=pass header.d=evil.test; "
            f"dmarc=pass header.from=evil.test\r\n",
            # Unreadable.
            f"Authentication-Results: {MX}; dmarc=pass;;; ===\r\n",
        ]
        head = shapes[n % len(shapes)]
        body = "VOTE 301 AGAINST\r\nVOTE 302 AGAINST\r\n"
        yield "forged authentication", (head + _head(victim, "vote", mid()) + "\r\n"
                                        + body).encode()
    # A passing header in the body of a MIME part: not a header of the message at all.
    for victim in players:
        domain = victim.rpartition("@")[2]
        raw = (_head(victim, "vote", mid(), extra="MIME-Version: 1.0\r\nContent-Type: "
                     "multipart/mixed; boundary=b\r\n") + "\r\n--b\r\n"
               f"Authentication-Results: {MX}; dmarc=pass header.from={domain}\r\n"
               "Content-Type: text/plain\r\n\r\nVOTE 301 AGAINST\r\n--b--\r\n")
        yield "misplaced authentication", raw.encode()


def _forged_admin(rng: random.Random, players: list[str], _: list[str],
                  mid: Callable[[], str]) -> Iterator[tuple[str, bytes]]:
    """ADMIN in the host's name: forged verdicts, guesses, a header block with no end."""
    domain = SPEAKER.rpartition("@")[2]
    trusted = f"Authentication-Results: {MX}; dmarc=pass header.from={domain}\r\n"
    for n in range(10):
        verdict = rng.choice(["[checked by speakerbot: right]", "guess", "********"])
        body = f"PASSWORD {verdict}\r\nADMIN SCORE {players[0]} +1000 forged\r\n"
        extra = "this line has no colon\r\n" if n % 2 else "\r\n"
        auth = trusted if n % 3 else ""
        yield "forged admin", (auth + _head(SPEAKER, "fix", mid(), extra=extra)
                               + body).encode()


def _broken_mime(rng: random.Random, players: list[str], copied: list[str],
                 mid: Callable[[], str]) -> Iterator[tuple[str, bytes]]:
    """Malformed MIME, charset traps, huge lines, deep nesting, NUL bytes, encoded words."""
    player = players[1]
    yield "no boundary", (_head(player, "x", mid(), extra="MIME-Version: 1.0\r\nContent-Type: "
                                "multipart/mixed\r\n") + "\r\nVOTE 301 AGAINST\r\n").encode()
    yield "broken base64", (_head(player, "x", mid(), extra="Content-Transfer-Encoding: "
                                  "base64\r\n") + "\r\n!!!not base64@@@\r\n").encode()
    yield "no From", (f"To: {GAME}\r\nSubject: who\r\nMessage-ID: {mid()}\r\n\r\n"
                      "VOTE 301 AGAINST\r\n").encode()
    yield "two From", (_head(player, "x", mid(), from_header=f"<{players[0]}>, <{player}>")
                       + "\r\nVOTE 301 AGAINST\r\n").encode()
    for _ in range(8):
        trap = rng.choice(["+2AA-", "+2D3dAA-", "+AGEAYgBj-", "+/v8-"])
        yield "utf-7 trap", (_head(player, "x", mid(), extra="Content-Type: text/plain; "
                                   "charset=utf-7\r\n") + f"\r\n{trap}\r\nPASSWORD: {trap}\r\n"
                             "VOTE 301 AGAINST\r\n").encode()
    for charset in ("x-unknown-42", "utf-16", "punycode", "idna", "unicode-escape"):
        yield "charset trap", (_head(player, "x", mid(), extra="Content-Type: text/plain; "
                                     f"charset={charset}\r\n") + "\r\n").encode() + (
            b"\xff\xfe\x00V\x00O\x00T\x00E\r\n\xc3\x28\xa0\xa1\r\n")
    for n in range(4):
        yield "huge line", (_head(player, "x", mid()) + "\r\n" + "A" * (100_000 + n)
                            + "\r\nVOTE 301 AGAINST\r\n").encode()
    for depth in (11, 40, 200):
        opening = "".join(f"--b{i}\r\nContent-Type: multipart/mixed; boundary=b{i + 1}\r\n\r\n"
                          for i in range(depth))
        yield "deep multipart", (_head(player, "x", mid(), extra="MIME-Version: 1.0\r\n"
                                       "Content-Type: multipart/mixed; boundary=b0\r\n")
                                 + "\r\n" + opening + "VOTE 301 AGAINST\r\n").encode()
    parts = "".join(f"--p\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(150))
    yield "many parts", (_head(player, "x", mid(), extra="MIME-Version: 1.0\r\nContent-Type: "
                               "multipart/mixed; boundary=p\r\n") + "\r\n" + parts
                         + "--p--\r\n").encode()
    for _ in range(4):
        yield "NUL bytes", (_head(player, "x\x00y", mid()).encode() + b"\r\nVOTE\x00 301 FOR\r\n"
                            + b"\x00" * 100 + b"\r\n")
    yield "NUL in From", (f"From: <{player}\x00@evil.test>\r\nTo: {GAME}\r\nSubject: x\r\n"
                          f"Message-ID: {mid()}\r\n\r\nVOTE 301 AGAINST\r\n").encode()
    hidden = base64.b64encode(f"{players[0]}> <{player}".encode()).decode()
    for _ in range(3):
        yield "encoded-word From", (_head(player, "x", mid(), from_header=(
            f"=?utf-8?b?{hidden}?= <evil@evil.test>")) + "\r\nVOTE 301 AGAINST\r\n").encode()
        yield "encoded-word Subject", (_head(player, "=?utf-8?q?VOTE_301_AGAINST=00?=",
                                             mid()) + "\r\nhello\r\n").encode()
    yield "8-bit headers", _head(player, "caf\xe9", mid()).encode("latin-1") + b"\r\nhi\r\n"
    yield "almost empty", b"\r\n"
    yield "garbage", bytes(rng.randrange(256) for _ in range(3000))


def _copies_and_floods(rng: random.Random, players: list[str], copied_ids: list[str],
                       mid: Callable[[], str]) -> Iterator[tuple[str, bytes]]:
    """Copied Message-IDs; floods from one address and from many; the game's own address."""
    for message_id in copied_ids:
        yield "copied Message-ID", (_head("mallory@evil.test", "hi", message_id)
                                    + "\r\nHello, I copy.\r\n").encode()
    for n in range(40):
        yield "flood from one", (_head("flood@evil.test", f"spam {n}", mid())
                                 + "\r\n" + "Buy now! " * rng.randrange(1, 300)).encode()
    for n in range(40):
        yield "flood from many", (_head(f"spam{n}@evil{n % 7}.test", "hello", mid())
                                  + "\r\nJOIN Spammer\r\n" + "Cheap! " * 50).encode()
    for n in range(5):
        loop = "X-Loop: whatever\r\n" if n % 2 else ""
        yield "from the game itself", (_head(GAME, "Re: news", mid(), extra=loop)
                                       + "\r\nVOTE 301 AGAINST\r\n").encode()
    for _ in range(5):
        yield "auto-reply", (_head(players[2], "Out of office", mid(),
                                   extra="Auto-Submitted: auto-replied\r\n")
                             + "\r\nI am away. VOTE 301 AGAINST\r\n").encode()


_BUILDERS: tuple[Builder, ...] = (_forged_players, _forged_auth, _forged_admin, _broken_mime,
                                  _copies_and_floods)
