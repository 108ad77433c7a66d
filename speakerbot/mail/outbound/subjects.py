"""Subjects as a mailing list writes them: the game's tag once, then ``Re:`` once, then the rest.

A player's reply to ``[Loopback Nomic] Proposal 303: Tea`` arrives as ``Re: [Loopback
Nomic] Proposal 303: Tea`` (or ``AW:``, ``SV:``, ``RE[2]:``, ``Fwd: Re:`` ...); answered
by putting the tag in front it would read ``[Loopback Nomic] Re: [Loopback Nomic] ...``,
and grow by a tag at every round of replies. As Mailman does, the game's own tag is taken
out wherever it stands, the reply and forward prefixes in front are folded into one
``Re:``, and the subject is written ``[Tag] Re: <the rest>``.
"""

from __future__ import annotations

import re

NO_SUBJECT = "(no subject)"
"""What a subject that was nothing but a tag and prefixes is written as."""

# The prefixes mail clients put before a subject they answer or forward, in the languages
# Mailman knows them in (Re, AW German, SV Scandinavian, VS Finnish, Antw Dutch; Fw/Fwd,
# WG German, TR French), with a count as some clients write it (Re[2]:, Re^2:), with or
# without white space before the colon and after it.
_PREFIX = re.compile(r"(?:re|aw|sv|vs|antw|fwd?|wg|tr)(?:\s*\[\d+\]|\^\d+)?\s*:\s*",
                     re.IGNORECASE)


def bare_subject(tag: str, subject: str) -> tuple[bool, str]:
    """Return whether ``subject`` answers or forwards a message, and its words without them.

    The game's ``tag`` is taken out wherever it stands (case aside), and the prefixes in
    front, however many; white space is collapsed. Taking a tag out can make a new one or a
    new prefix meet the front, so both are taken until nothing changes.
    """
    # Matched as the subject is read, white space collapsed (the header is written so).
    tag = " ".join(tag.split())
    own_tag = re.compile(re.escape(tag), re.IGNORECASE) if tag else None
    replied = False
    text = " ".join(subject.split())
    while True:
        before = text
        if own_tag is not None:
            text = " ".join(own_tag.sub(" ", text).split())
        prefix = _PREFIX.match(text)
        if prefix is not None:
            replied, text = True, text[prefix.end():].lstrip()
        if text == before:
            return replied, text


def reply_subject(tag: str, subject: str) -> str:
    """Return the subject (without the tag) of the answer to a message: ``Re: <its words>``."""
    words = bare_subject(tag, subject)[1]
    # An empty subject (as some clients write it) is answered as "your message".
    return "Re: " + (words if words and words != NO_SUBJECT else "your message")


def tagged_subject(tag: str, subject: str) -> str:
    """Return the Subject a message goes with: ``[Tag] Re: <words>``, or ``[Tag] <words>``.

    Folding a subject it gave is a no-op, and the tag is in it once, whatever ``subject``
    held.
    """
    replied, words = bare_subject(tag, subject)
    words, tag = words or NO_SUBJECT, " ".join(tag.split())
    return f"{tag} Re: {words}" if replied else f"{tag} {words}"
