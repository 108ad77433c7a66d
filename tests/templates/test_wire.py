"""The fast wire format gives, byte for byte, what the stdlib's EmailMessage gives.

``compose`` writes plain headers itself and leaves the rest to the stdlib; these tests hold
it to the reference (``message_bytes_by_the_book``) on ordinary replies and on everything odd
a sender or a configuration can put in a header or a body.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.mail.outbound.compose import (
    GameIdentity,
    Outgoing,
    compose,
    headers_of,
    message_id_for,
)
from speakerbot.mail.outbound.wire import message_bytes_by_the_book

CAMFORD = GameIdentity("Camford Nomic", "nomic@camford.example")
LISTED = GameIdentity("Suber Nomic", "game@suber.example", "players@suber.example")
DATE = datetime(2026, 1, 12, 12, 0, tzinfo=UTC)


def both(identity: GameIdentity, outgoing: Outgoing,
         date: datetime = DATE) -> tuple[object, object]:
    """Return what ``compose`` and the stdlib make of the same message: bytes or an error.

    A header the stdlib cannot write (a non-ASCII Message-ID) is an error both ways.
    """
    headers = headers_of(identity, outgoing, date, message_id_for(identity, outgoing.key))
    return made(lambda: compose(identity, outgoing, date)[1]), made(
        lambda: message_bytes_by_the_book(headers, outgoing.body))


def made(write: Callable[[], bytes]) -> object:
    """Return the bytes written, or the kind of error that stopped it."""
    try:
        return write()
    except (UnicodeError, ValueError, TypeError) as error:  # the stdlib has its bugs too
        return type(error)


def reply(subject: str = "Re: my vote", body: str = "Your ballot is FOR.\n",
          to: tuple[str, ...] = ("alice@example.org",), in_reply_to: str | None = "<m1@x.org>",
          references: tuple[str, ...] = ("<t1@x.org>",)) -> Outgoing:
    """A reply with the given parts."""
    return Outgoing("reply", to, subject, body, "k.1", in_reply_to=in_reply_to,
                    references=references)


@pytest.mark.parametrize("outgoing", [
    reply(),
    reply(body=""),
    reply(body="no newline at the end"),
    reply(body="-- \nsignature with a trailing space \n\n\n"),
    reply(body="Héllo = wörld, ça va? ☃\n" + "x" * 200 + "\n"),
    reply(body="line\r\nwith\rodd\n\rends\r\n"),
    reply(body="From the start of a line\n.\n..\n"),
    reply(subject="Re: café au lait"),
    reply(subject="Re: =?utf-8?q?caf=C3=A9?="),
    reply(subject="Re:  two  spaces"),
    reply(subject="Re: " + "long " * 250),
    reply(subject="Re: " + "x" * 980),
    reply(subject="Re: (comment) \"quoted\" <angle> \\back"),
    reply(to=("bøb@example.org",)),
    reply(to=("\"odd name\"@example.org",)),
    reply(to=("a@b.example", "c.d+e@f-g.example")),
    reply(in_reply_to="<" + "a" * 248 + ">",
          references=tuple(f"<{n}{'b' * 240}@x.org>" for n in range(12))),
    reply(in_reply_to="<=?utf-8?q?x?=@x.org>"),
    reply(in_reply_to="not a message id", references=("<ok@x.org>",)),
    Outgoing("announcement", ("players@suber.example",), "Proposal 301: Fair dice", "Text.\n",
             "k.2", public=True),
], ids=lambda outgoing: repr(outgoing.subject[:20] + outgoing.body[:10]))
@pytest.mark.parametrize("identity", [CAMFORD, LISTED, GameIdentity("Nömic", "ñ@exämple.org"),
                                      GameIdentity("St. Nomic, the first", "x@y.example", "l@y"),
                                      GameIdentity("Tag", "")],
                         ids=["camford", "listed", "unicode", "specials", "no-address"])
def test_compose_writes_the_stdlibs_bytes(identity: GameIdentity, outgoing: Outgoing) -> None:
    fast, book = both(identity, outgoing)
    assert fast == book


def test_the_date_is_written_in_utc_whatever_the_zone() -> None:
    zoned = DATE.astimezone(timezone(timedelta(hours=-5, minutes=-30)))
    fast, book = both(CAMFORD, reply(), zoned.replace(microsecond=123))
    assert fast == book
    assert isinstance(fast, bytes)
    assert b"\r\nDate: Mon, 12 Jan 2026 12:00:00 +0000\r\n" in fast


def test_a_plain_reply_is_written_without_the_stdlib_header_folding() -> None:
    fast, _ = both(CAMFORD, reply())
    assert isinstance(fast, bytes)
    head, _, body = fast.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[:4] == [
        b"From: Camford Nomic <nomic@camford.example>", b"To: alice@example.org",
        b"Reply-To: nomic@camford.example", b"Subject: [Camford Nomic] Re: my vote"]
    assert body == b"Your ballot is FOR.\r\n"


_TEXT = st.text(st.characters(codec="utf-8"), max_size=300)
_ASCII = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=120)
_PRINTABLE = st.from_regex(r"[ -~]{0,80}", fullmatch=True)  # mostly written as it stands
_ADDRESS = st.from_regex(r"[a-z0-9.+_\"%=?-]{1,20}@[a-z0-9.-]{1,20}", fullmatch=True)
_THREAD = st.one_of(st.none(), st.from_regex(r"<[!-~ ]{1,60}>", fullmatch=True), _ASCII)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subject=st.one_of(_PRINTABLE, _TEXT, _ASCII), body=st.one_of(_TEXT, _ASCII),
       to=st.lists(_ADDRESS, min_size=1, max_size=4), in_reply_to=_THREAD,
       references=st.lists(st.one_of(_PRINTABLE, _THREAD.filter(bool)), max_size=12),
       public=st.booleans())
def test_compose_writes_the_stdlibs_bytes_for_anything(
        subject: str, body: str, to: list[str], in_reply_to: str | None,
        references: list[str | None], public: bool) -> None:
    outgoing = Outgoing("reply", tuple(to), subject, body, "k", public=public,
                        in_reply_to=in_reply_to,
                        references=tuple(ref for ref in references if ref))
    fast, book = both(LISTED, outgoing)
    assert fast == book
