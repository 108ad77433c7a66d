"""The heads of the lookups: ``SHOW PROPOSAL|RULE|CFJ <n>``, ``SHOW MECHANICS``, ``HISTORY [n]``.

SHOW and HISTORY are everyday words, and a lookup changes nothing: so a line that starts
with one of them but goes on as a sentence (``Show me the money``, ``History repeats
itself``) is prose, listed as ignored, and does not stop the rest of the message. A line
that is plainly a lookup written wrong (``SHOW RULE abc``, ``HISTORY -5``) is an error,
with what to write instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from speakerbot.mail.inbound.language import tokens
from speakerbot.mail.inbound.language.commands import Help, History, Show, ShowWhat
from speakerbot.mail.inbound.language.results import HISTORY_DEFAULT, HISTORY_MAX
from speakerbot.mail.inbound.language.spec import Outcome, plan

_KINDS: Mapping[str, ShowWhat] = {
    "PROPOSAL": "proposal", "PROPOSALS": "proposal", "RULE": "rule", "RULES": "rule",
    "CFJ": "cfj", "CFJS": "cfj", "MECHANICS": "mechanics", "MECHANIC": "mechanics",
}  # fmt: skip
_EXAMPLES: Mapping[ShowWhat, str] = {"proposal": "301", "rule": "105", "cfj": "12"}
_HINTS: Mapping[ShowWhat, str] = {
    "proposal": "; STATUS lists the open proposals", "rule": "; RULES sends the whole ruleset",
    "cfj": "; STATUS lists the open CFJs",
}
_NUMBERISH = re.compile(r"[#+\-\u2212\u2013]?[0-9]+:?")
_END = ".!?"
_SHOW_WHAT = ("SHOW needs PROPOSAL, RULE or CFJ and a number, e.g. SHOW PROPOSAL 301, or "
              "MECHANICS")


def _token(word: str) -> str:
    """Read a word as a lookup does: without the . ! or ? that may end a sentence."""
    return word.rstrip(_END) or word


def show_is_prose(rest: str) -> bool:
    """SHOW followed by neither PROPOSAL, RULE, CFJ nor a number is a sentence."""
    words = rest.split()
    first = _token(words[0]) if words else ""
    return bool(words) and tokens.word(first) not in _KINDS and not _NUMBERISH.fullmatch(first)


def show(line: int, rest: str) -> Outcome:
    """Read ``SHOW PROPOSAL|RULE|CFJ <n>`` or ``SHOW MECHANICS``."""
    words = rest.split()
    if not words:
        return _SHOW_WHAT
    what = _KINDS.get(tokens.word(_token(words[0])))
    if what is None:
        number = tokens.number(_token(words[0]))
        if number is not None:
            return ("SHOW needs PROPOSAL, RULE or CFJ before the number, e.g. SHOW PROPOSAL "
                    f"{number}")
        return _SHOW_WHAT
    if what == "mechanics":
        if len(words) > 1:
            return "SHOW MECHANICS takes nothing more: write it alone on its line"
        return plan(Show(line, what, None))
    keyword, example = what.upper(), f"e.g. SHOW {what.upper()} {_EXAMPLES[what]}"
    number = tokens.number(_token(words[1])) if len(words) > 1 else None
    if number is None:
        return f"SHOW {keyword} needs a number (of at most nine digits), {example}{_HINTS[what]}"
    if len(words) > 2:
        return (f"SHOW {keyword} takes one number, e.g. SHOW {keyword} {number}; ask for "
                "each on a line of its own")
    return plan(Show(line, what, number))


def history_is_prose(rest: str) -> bool:
    """HISTORY followed by anything but a number is a sentence."""
    words = rest.split()
    return bool(words) and not _NUMBERISH.fullmatch(_token(words[0]))


_HISTORY_NUMBER = (f"HISTORY needs a number of events from 1 to {HISTORY_MAX}, e.g. "
                   f"HISTORY {HISTORY_DEFAULT}, or nothing for the last {HISTORY_DEFAULT}")


def history(line: int, rest: str) -> Outcome:
    """Read ``HISTORY [n]``."""
    words = rest.split()
    if not words:
        return plan(History(line, HISTORY_DEFAULT))
    count = tokens.number(_token(words[0]))
    if count is None or count < 1:
        return _HISTORY_NUMBER
    if len(words) > 1:
        return (f"HISTORY takes only a number of events, e.g. HISTORY {count}; write "
                "anything else on a line of its own")
    return plan(History(line, count))


_TOPIC = re.compile(r"[A-Za-z][A-Za-z ]{0,29}")


def help_is_prose(rest: str) -> bool:
    """HELP followed by more than a topic ("Help! I cannot vote") is a sentence.

    A topic is one word, or CALL VOTE: "Help me please" is a sentence too.
    """
    words = rest.split()
    return (len(words) > 2 or (len(words) == 2 and words[0].lower() != "call")
            or not _TOPIC.fullmatch(rest.strip().rstrip(".!?") or "x"))


def help_topic(line: int, rest: str) -> Outcome:
    """Read ``HELP [topic]``: a command's name or a topic (HELP VOTE, HELP RULES)."""
    topic = " ".join(rest.strip().rstrip(".!?").split()).upper()
    if topic and not _TOPIC.fullmatch(topic):
        return "HELP takes a topic or a command's name, e.g. HELP VOTE, or nothing"
    return plan(Help(line, topic))
