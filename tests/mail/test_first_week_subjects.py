"""Subjects keep one tag: a reply's tags and Re:/Fwd:/AW:/SV: prefixes fold as Mailman's do."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, headers_of
from speakerbot.mail.outbound.subjects import bare_subject, reply_subject, tagged_subject

TAG = "[Loopback Nomic]"


@pytest.mark.parametrize(("sent", "reply"), [
    ("Proposal 303: Tea", "[Loopback Nomic] Re: Proposal 303: Tea"),
    ("Re: [Loopback Nomic] Proposal 303: Tea", "[Loopback Nomic] Re: Proposal 303: Tea"),
    ("[Loopback Nomic] Re: Proposal 303: Tea", "[Loopback Nomic] Re: Proposal 303: Tea"),
    ("RE: Re: re:Proposal 303", "[Loopback Nomic] Re: Proposal 303"),
    ("Re[2]: [Loopback Nomic] Proposal 303", "[Loopback Nomic] Re: Proposal 303"),
    ("Re^3: Proposal 303", "[Loopback Nomic] Re: Proposal 303"),
    ("Fwd: Re: [Loopback Nomic] Tea", "[Loopback Nomic] Re: Tea"),
    ("Fw: Tea", "[Loopback Nomic] Re: Tea"),
    ("AW: SV: Tea", "[Loopback Nomic] Re: Tea"),
    ("Re : Tea", "[Loopback Nomic] Re: Tea"),
    ("[loopback nomic] Re: [LOOPBACK NOMIC] Tea", "[Loopback Nomic] Re: Tea"),
    ("Re: Tea [Loopback Nomic] for all", "[Loopback Nomic] Re: Tea for all"),
    ("Re: [Loopback Nomic]", "[Loopback Nomic] Re: your message"),
    ("", "[Loopback Nomic] Re: your message"),
    ("[Other List] Tea", "[Loopback Nomic] Re: [Other List] Tea"),
    ("Regards: tea", "[Loopback Nomic] Re: Regards: tea"),  # a word, not a prefix
    ("PROPOSE: Tea", "[Loopback Nomic] Re: PROPOSE: Tea"),
])
def test_a_reply_subject_has_the_tag_and_re_once(sent: str, reply: str) -> None:
    assert tagged_subject(TAG, reply_subject(TAG, sent)) == reply


@pytest.mark.parametrize(("subject", "written"), [
    ("Proposal 303: Tea", "[Loopback Nomic] Proposal 303: Tea"),
    ("[Loopback Nomic] Digest", "[Loopback Nomic] Digest"),
    ("", "[Loopback Nomic] (no subject)"),
])
def test_an_announcement_keeps_its_words(subject: str, written: str) -> None:
    assert tagged_subject(TAG, subject) == written


def test_the_subject_header_folds_a_reply_to_a_tagged_subject() -> None:
    identity = GameIdentity("Loopback Nomic", "nomic@loopback.example")
    reply = Outgoing("reply", ("bob@example.org",),
                     "Re: [Loopback Nomic] Proposal 303: Tea", "Done.\n", "k")
    headers = dict(headers_of(identity, reply, datetime(2026, 1, 5, tzinfo=UTC), "<m@x>"))
    assert headers["Subject"] == "[Loopback Nomic] Re: Proposal 303: Tea"


_PIECES = st.sampled_from([
    "Re:", "RE: ", "re :", "Re[2]:", "Fwd:", "Fw: ", "AW:", "SV:", "Sv :", "[Loopback Nomic]",
    "[loopback nomic] ", "[Loopback", "Nomic]", "Tea", " ", "Proposal 303:", "[x]", "Re",
])
_SUBJECTS = st.one_of(st.lists(_PIECES, max_size=8).map("".join), st.text(max_size=40))
_TAGS = st.one_of(st.just(TAG), st.text(min_size=1, max_size=12).map(lambda t: f"[{t}]"))


@given(_TAGS, _SUBJECTS)
def test_folding_is_idempotent_and_never_gives_two_tags(tag: str, subject: str) -> None:
    once = tagged_subject(tag, subject)
    assert tagged_subject(tag, once) == once
    assert tagged_subject(tag, reply_subject(tag, once)) == tagged_subject(
        tag, reply_subject(tag, subject))
    matched = " ".join(tag.split()).lower()
    assert once.lower().startswith(matched)
    assert once.lower().count(matched) == 1, once
    replied, _ = bare_subject(tag, once)
    assert once.lower().startswith(f"{matched} re: ") == replied
