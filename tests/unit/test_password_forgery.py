"""Nobody can forge the password's verdict, and the real password is stored nowhere.

The reproducer: a message From the Speaker whose header block holds a line with no colon,
then ``PASSWORD [checked by speakerbot: right]`` and ``ADMIN SCORE alice@example.org +1000``.
A line with no colon ends the headers for the parser, so those lines are read as the body.
The verdict is a column of its own, computed from the real password; text in a message can
only ever be a wrong password. Checked on :func:`redact_message` alone, through the service
on a real SQLite store, and by a fuzzer that arranges the pieces at random.
"""

from __future__ import annotations

import base64
import html
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from speakerbot.adapters.store import OutboxRow
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json
from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.reading import read_message
from speakerbot.mail.inbound.redaction import MASK, redact_message
from tests.support.mailgame import (
    ALICE,
    BOB,
    FAR_FUTURE,
    GAME,
    MX,
    PASSWORD,
    SPEAKER,
    T0,
    MailGame,
    read_mail,
)

SECRET = PASSWORD  # the configured admin_password of every MailGame
FORGED = "[checked by speakerbot: right]"
ADMIN = f"ADMIN SCORE {ALICE} +1000 forged"
LIMIT = 256 * 1024
COLONLESS = "this line has no colon"
_numbers = itertools.count(1)


# --- Building the messages ------------------------------------------------------------------


def top(date: datetime = T0, subject: str = "fix") -> list[str]:
    """The headers that make the message the authenticated Speaker's, dated now."""
    return [
        f"Authentication-Results: {MX}; dkim=pass header.d=example.org; "
        "dmarc=pass header.from=example.org",
        f"From: Chuck <{SPEAKER}>",
        f"To: {GAME}",
        f"Subject: {subject}",
        f"Date: {date.strftime('%a, %d %b %Y %H:%M:%S +0000')}",
        f"Message-ID: <forgery{next(_numbers)}@example.org>",
    ]


def lines(items: Sequence[str], end: str = "\r\n") -> bytes:
    return "".join(item + end for item in items).encode()


def q_word(text: str) -> str:
    """An RFC 2047 Q-encoded word, as a mail client writes a non-ASCII Subject."""
    out = "".join("_" if ch == " " else ch if ch.isalnum() or ch in "-." else
                  "".join(f"={b:02X}" for b in ch.encode()) for ch in text)
    return f"=?utf-8?q?{out}?="


def encode(text: str, cte: str) -> bytes:
    data = text.replace("\n", "\r\n").encode()
    if cte == "base64":
        return base64.encodebytes(data).replace(b"\n", b"\r\n")
    if cte == "quoted-printable":
        # Every byte escaped, so the secret never stands in clear in the raw message.
        return b"".join(b"=%02X" % byte if byte not in b"\r\n" else bytes([byte])
                        for byte in data)
    return data


def part(content_type: str, text: str, cte: str = "8bit", extra: Sequence[str] = ()) -> bytes:
    head = [f"Content-Type: {content_type}; charset=utf-8",
            f"Content-Transfer-Encoding: {cte}", *extra]
    return lines(head) + b"\r\n" + encode(text, cte)


def multipart(head: list[str], kind: str, *parts: bytes) -> bytes:
    out = lines([*head, "MIME-Version: 1.0", f'Content-Type: multipart/{kind}; boundary="BB"',
                 "", "This is a multi-part message."])
    for item in parts:
        out += b"--BB\r\n" + item + b"\r\n"
    return out + b"--BB--\r\n"


def admin_text(word: str) -> str:
    return f"PASSWORD {word}\n{ADMIN}\n"


def as_html(text: str) -> str:
    return "<p>" + "<br>".join(html.escape(line) for line in text.splitlines()) + "</p>"


ATTACHED = ("Content-Disposition: attachment; filename=admin.txt",)


@dataclass(frozen=True)
class Variant:
    """One arrangement of the reproducer. ``build(word, head)``: the raw message with
    ``word`` where the password goes. ``read``: whether the parser reads that PASSWORD line
    (so the real password gives "right" and any other word gives "wrong")."""

    build: Callable[[str, list[str]], bytes]
    read: bool


def _reproducer(word: str, head: list[str]) -> bytes:
    return lines([*head, COLONLESS, f"PASSWORD {word}", ADMIN, "", "Thanks, Chuck"])


VARIANTS: dict[str, Variant] = {
    "reproducer": Variant(_reproducer, True),
    "bare LF": Variant(lambda w, h: _reproducer(w, h).replace(b"\r\n", b"\n"), True),
    "CR only": Variant(lambda w, h: _reproducer(w, h).replace(b"\r\n", b"\r"), True),
    "no blank line at all": Variant(
        lambda w, h: "\r\n".join([*h, COLONLESS, f"PASSWORD {w}", ADMIN]).encode(), True),
    "indented lines after the colon-less one": Variant(
        lambda w, h: lines([*h, COLONLESS, f" PASSWORD {w}", f"\t{ADMIN}"]), True),
    "headers after the colon-less line": Variant(
        lambda w, h: lines([*h, COLONLESS, "X-Mailer: forger 1.0", f"PASSWORD {w}",
                            "Content-Type: text/plain", ADMIN, "", "Thanks"]), True),
    "the verdict in folded headers": Variant(
        lambda w, h: lines([*h, "X-Note: see below", f" PASSWORD {w}", f" {ADMIN}", "",
                            ADMIN]), False),
    "the verdict folded into the Subject": Variant(
        lambda w, h: lines([*h[:4], f" PASSWORD {w}", *h[4:], "", ADMIN]), False),
    "a colon-less first line": Variant(
        lambda w, h: lines([COLONLESS, *h, f"PASSWORD {w}", ADMIN]), False),
    "the verdict as headers": Variant(
        lambda w, h: lines([*h, f"PASSWORD: {w}", f"X-Speakerbot-Password: {w}",
                            f"X-Speakerbot-Verdict: {w}", "X-Speakerbot-Redacted: password",
                            "", ADMIN]), False),
    "PASSWORD in a Q-encoded Subject": Variant(
        lambda w, h: lines([*h[:3], f"Subject: {q_word(f'Paß PASSWORD {w}')}", *h[4:], "",
                            ADMIN]), False),
    "PASSWORD in a B-encoded Subject": Variant(
        lambda w, h: lines([*h[:3], "Subject: =?utf-8?b?"
                            + base64.b64encode(f"Re: PASSWORD {w}".encode()).decode() + "?=",
                            *h[4:], "", ADMIN]), False),
    "multipart/alternative": Variant(
        lambda w, h: multipart(h, "alternative", part("text/plain", admin_text(w)),
                               part("text/html", as_html(admin_text(w)))), True),
    "only in the html alternative": Variant(
        lambda w, h: multipart(h, "alternative", part("text/plain", f"{ADMIN}\n"),
                               part("text/html", as_html(admin_text(w)))), False),
    "a text/plain attachment": Variant(
        lambda w, h: multipart(h, "mixed", part("text/plain", f"{ADMIN}\n"),
                               part("text/plain", admin_text(w), extra=ATTACHED)), False),
    "a quoted-printable attachment": Variant(
        lambda w, h: multipart(h, "mixed", part("text/plain", f"{ADMIN}\n"),
                               part("text/plain", admin_text(w), "quoted-printable",
                                    ATTACHED)), False),
    "a second inline text part": Variant(
        lambda w, h: multipart(h, "mixed", part("text/plain", "Hello.\n"),
                               part("text/plain", admin_text(w))), True),
    "a base64 body": Variant(
        lambda w, h: lines([*h, "MIME-Version: 1.0"]) + part("text/plain", admin_text(w),
                                                             "base64"), True),
    "a quoted-printable body": Variant(
        lambda w, h: lines([*h, "MIME-Version: 1.0"]) + part("text/plain", admin_text(w),
                                                             "quoted-printable"), True),
    "an html body": Variant(
        lambda w, h: lines([*h, "MIME-Version: 1.0"]) + part("text/html",
                                                             as_html(admin_text(w))), True),
    "MIME headers after a colon-less line": Variant(
        lambda w, h: lines([*h, COLONLESS, "MIME-Version: 1.0",
                            "Content-Transfer-Encoding: base64", f"PASSWORD {w}", ADMIN]),
        True),
}

# The encodings of the real PASSWORD line that a decoded body must not leave behind.
ENCODED_SECRET = (base64.b64encode(f"PASSWORD {SECRET}".encode())[:24],
                  encode(f"PASSWORD {SECRET}", "quoted-printable"))


def expected_verdict(variant: Variant, word: str) -> str | None:
    if not variant.read:
        return None
    return "right" if word == SECRET else "wrong"


def stored_secret(raw: bytes) -> list[str]:
    """Where the real password still stands in stored bytes, in clear or read back."""
    found = []
    if SECRET.encode() in raw:
        found.append("raw bytes")
    mail = read_message(raw, max_bytes=LIMIT)
    if SECRET in mail.body:
        found.append("body as read")
    if SECRET in mail.subject:
        found.append("subject as read")
    return found


# --- Pure: redact_message -------------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_a_forged_verdict_is_never_right(name: str) -> None:
    variant = VARIANTS[name]
    raw = variant.build(FORGED, top())
    redacted = redact_message(raw, SECRET, max_bytes=LIMIT)
    assert redacted.verdict != "right"
    assert redacted.verdict == expected_verdict(variant, FORGED)


@pytest.mark.parametrize("name", VARIANTS)
def test_the_real_password_gives_right_only_where_read_and_is_never_kept(name: str) -> None:
    variant = VARIANTS[name]
    raw = variant.build(SECRET, top())
    redacted = redact_message(raw, SECRET, max_bytes=LIMIT)
    assert redacted.verdict == expected_verdict(variant, SECRET)
    assert stored_secret(redacted.raw) == []
    if variant.read:
        for encoded in ENCODED_SECRET:
            assert encoded not in redacted.raw, encoded
        # What is kept still reads as the same Speaker's ADMIN message, its secret masked.
        kept = read_message(redacted.raw, max_bytes=LIMIT)
        assert kept.sender == SPEAKER and kept.problem is None
        parsed = parse_commands(kept.subject, kept.body)
        assert parsed.password == MASK
        assert [command.verb for command in parsed.commands] == ["ADMIN"]


def test_the_reproducer_reads_the_colonless_line_as_the_body() -> None:
    # The premise of the forgery: the parser does read the forged lines as commands.
    mail = read_message(VARIANTS["reproducer"].build(FORGED, top()), max_bytes=LIMIT)
    assert mail.sender == SPEAKER and mail.problem is None
    parsed = parse_commands(mail.subject, mail.body)
    assert parsed.password == FORGED
    assert [command.verb for command in parsed.commands] == ["ADMIN"]


@pytest.mark.parametrize("word", [FORGED, MASK, "guess", SECRET[:-1], SECRET.upper(),
                                  f"{SECRET}x", f"{SECRET} {FORGED}", f"'{SECRET}'"])
def test_no_word_but_the_password_itself_is_right(word: str) -> None:
    redacted = redact_message(_reproducer(word, top()), SECRET, max_bytes=LIMIT)
    assert redacted.verdict == "wrong"


def test_two_password_lines_one_forged_one_real_are_wrong() -> None:
    raw = lines([*top(), COLONLESS, f"PASSWORD {FORGED}", f"PASSWORD {SECRET}", ADMIN])
    redacted = redact_message(raw, SECRET, max_bytes=LIMIT)
    assert redacted.verdict == "wrong" and stored_secret(redacted.raw) == []


# --- Through the service --------------------------------------------------------------------


@pytest.fixture
def make_game(tmp_path: Path) -> Iterator[Callable[[], MailGame]]:
    games: list[MailGame] = []

    def make() -> MailGame:
        folder = tmp_path / f"game{len(games)}"
        folder.mkdir()
        games.append(MailGame(folder, "nomicam", (ALICE, BOB)))
        return games[-1]

    yield make
    for game in games:
        game.close()


@dataclass(frozen=True)
class Delivered:
    inbound_id: int
    verdict: str | None
    stored: bytes
    events: list[e.Event]  # appended while processing it
    outbox: list[bytes]  # what was queued while processing it: raw, subjects and bodies read


def outbox_rows(game: MailGame) -> list[OutboxRow]:
    return game.store.due_outbox(FAR_FUTURE, limit=1_000_000)


def deliver(game: MailGame, build: Callable[[list[str]], bytes]) -> Delivered:
    """Receive one message from the Speaker, dated now, and process it."""
    game.clock.now += timedelta(minutes=2)
    seq = game.store.last_event_seq()
    queued = max((row.id for row in outbox_rows(game)), default=0)
    stored = game.service.receive(build(top(game.clock.now)), game.clock.now, source="test")
    assert not stored.duplicate
    statuses = [done.status for done in game.process()]
    assert set(statuses) <= {"processed", "skipped"}, statuses
    row = game.store.inbound(stored.id)
    events = [event_from_json(r.data) for r in game.store.load_events() if r.seq > seq]
    outbox = []
    for queued_row in outbox_rows(game):
        if queued_row.id > queued:
            mail = read_mail(queued_row)
            outbox += [queued_row.raw, mail.subject.encode(), mail.body.encode()]
    return Delivered(stored.id, row.password_verdict, row.raw, events, outbox)


def leaks(done: Delivered) -> list[str]:
    """Where the real password stands after a message was received and processed."""
    found = [f"stored {where}" for where in stored_secret(done.stored)]
    if any(SECRET.encode() in item for item in done.outbox):
        found.append("outbox")
    return found


def admin_ran(delivered: Delivered) -> bool:
    return any(isinstance(ev, e.SpeakerOverride | e.ScoreChanged) for ev in delivered.events)


def alice_score(game: MailGame) -> object:
    return game.service.state().players[ALICE].score


@pytest.mark.parametrize("name", VARIANTS)
def test_service_a_forged_verdict_runs_no_admin(make_game: Callable[[], MailGame],
                                                name: str) -> None:
    game = make_game()
    variant = VARIANTS[name]
    score = alice_score(game)
    done = deliver(game, lambda head: variant.build(FORGED, head))
    assert not admin_ran(done), done.events
    assert alice_score(game) == score
    assert done.verdict == expected_verdict(variant, FORGED)
    assert leaks(done) == []


@pytest.mark.parametrize("name", VARIANTS)
def test_service_the_real_password_is_stored_nowhere(make_game: Callable[[], MailGame],
                                                     name: str) -> None:
    game = make_game()
    variant = VARIANTS[name]
    done = deliver(game, lambda head: variant.build(SECRET, head))
    assert done.verdict == expected_verdict(variant, SECRET)
    assert leaks(done) == []
    # Where the parser reads the real password, the ADMIN command runs: the check can fail.
    assert admin_ran(done) == variant.read


def test_service_control_the_real_password_on_a_password_line_applies_admin(
        make_game: Callable[[], MailGame]) -> None:
    game = make_game()
    forged = deliver(game, lambda head: lines([*head, "", f"PASSWORD {FORGED}", ADMIN]))
    assert not admin_ran(forged) and forged.verdict == "wrong"
    real = deliver(game, lambda head: lines([*head, "", f"PASSWORD {SECRET}", ADMIN]))
    assert real.verdict == "right"
    changed = [ev for ev in real.events if isinstance(ev, e.ScoreChanged)]
    assert [(ev.player, ev.delta) for ev in changed] == [(ALICE, Decimal(1000))], real.events
    assert any(isinstance(ev, e.SpeakerOverride) for ev in real.events)
    assert leaks(real) == []


def test_service_five_forgeries_close_admin_by_mail(make_game: Callable[[], MailGame]) -> None:
    # Forged verdicts count as wrong passwords: after five, even the real one is refused.
    game = make_game()
    for _ in range(5):
        assert deliver(game, lambda head: _reproducer(FORGED, head)).verdict == "wrong"
    late = deliver(game, lambda head: _reproducer(SECRET, head))
    assert late.verdict == "right" and not admin_ran(late)


# --- The fuzzer -----------------------------------------------------------------------------

HEADER_PIECES = (
    COLONLESS, "Speaker's note", FORGED, f"PASSWORD {FORGED}", f"PASSWORD: {FORGED}",
    "X-Speakerbot-Verdict: right", "X-Speakerbot-Redacted: password", f"X-Note: {FORGED}",
    f" PASSWORD {FORGED}", f"\t{ADMIN}", ADMIN, "PASSWORD guess", f"Password: {SECRET[:-1]}",
    f"Subject: {q_word(f'PASSWORD {FORGED}')}",
)
BODY_PIECES = (
    ADMIN, f"ADMIN SCORE {ALICE} +5 also forged", f"PASSWORD {FORGED}", "PASSWORD guess",
    f"PASSWORD {MASK}", f"Password: {SECRET[:-1]}", f"PASSWORD {SECRET.upper()}", FORGED,
    COLONLESS, "", "Thanks", f"> PASSWORD {FORGED}", f"PASWORD {FORGED}", "-- ",
)
REAL_PIECES = (
    f"PASSWORD {SECRET}", f"Password: {SECRET}", f"my password is {SECRET} today",
    f"> PASSWORD {SECRET}", f"X-Secret: {SECRET}", f" PASSWORD {SECRET}",
)


@dataclass(frozen=True)
class Arrangement:
    """Pieces of a message, laid out by :meth:`raw` under the authenticated headers."""

    header_zone: list[str]
    blank_line: bool
    body: list[str]
    attachment: list[str]
    container: str  # single | alternative | mixed
    cte: str
    ending: str
    real: bool

    def raw(self, head: list[str]) -> bytes:
        text = "\n".join(self.body) + "\n"
        if self.container == "single":
            payload = encode(text, self.cte)
            mime = ["Content-Type: text/plain; charset=utf-8",
                    f"Content-Transfer-Encoding: {self.cte}"]
        else:
            second = (part("text/html", as_html(text), self.cte)
                      if self.container == "alternative" else
                      part("text/plain", "\n".join(self.attachment) + "\n", self.cte, ATTACHED))
            payload = (b"--BB\r\n" + part("text/plain", text, self.cte) + b"\r\n--BB\r\n"
                       + second + b"\r\n--BB--\r\n")
            mime = [f'Content-Type: multipart/{self.container}; boundary="BB"']
        zone = ["MIME-Version: 1.0", *mime, *self.header_zone]
        out = lines([*head, *zone, *([""] if self.blank_line else [])]) + payload
        return out.replace(b"\r\n", b"\n").replace(b"\n", self.ending.encode())


@st.composite
def arrangements(draw: st.DrawFn) -> Arrangement:
    real = draw(st.booleans())
    zone = draw(st.lists(st.sampled_from(HEADER_PIECES), max_size=4))
    body = draw(st.lists(st.sampled_from(BODY_PIECES), max_size=6))
    attachment = draw(st.lists(st.sampled_from(BODY_PIECES), max_size=3))
    # MIME headers may stand after a colon-less line, where they are body text.
    zone = draw(st.permutations(zone))
    if real:
        for _ in range(draw(st.integers(1, 3))):
            where = draw(st.sampled_from([zone, body, attachment]))
            where.insert(draw(st.integers(0, len(where))), draw(st.sampled_from(REAL_PIECES)))
    return Arrangement(
        header_zone=list(zone), blank_line=draw(st.booleans()), body=body,
        attachment=attachment,
        container=draw(st.sampled_from(["single", "alternative", "mixed"])),
        cte=draw(st.sampled_from(["8bit", "base64", "quoted-printable"])),
        ending=draw(st.sampled_from(["\r\n", "\n", "\r"])), real=real,
    )


@pytest.fixture(scope="module")
def shared_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailGame]:
    game = MailGame(tmp_path_factory.mktemp("fuzz"), "nomicam", (ALICE, BOB))
    yield game
    game.close()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(arrangement=arrangements())
def test_fuzz_no_forged_admin_and_no_stored_password(shared_game: MailGame,
                                                     arrangement: Arrangement) -> None:
    game = shared_game
    game.clock.now += timedelta(hours=2)  # past any hour closed by wrong passwords
    pure = redact_message(arrangement.raw(top(game.clock.now)), SECRET, max_bytes=LIMIT)
    score = alice_score(game)
    done = deliver(game, arrangement.raw)
    event(f"real password: {arrangement.real}, verdict: {done.verdict}, "
          f"admin ran: {admin_ran(done)}")
    assert done.verdict == pure.verdict
    assert leaks(done) == []
    if arrangement.real:
        assert stored_secret(pure.raw) == []
    else:
        assert done.verdict != "right" and pure.verdict != "right"
        assert not admin_ran(done), done.events
        assert alice_score(game) == score
