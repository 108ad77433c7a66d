"""The HELP reply, rendered from the same tables the parser reads: an index, and topics.

``HELP`` is a short index: how commands are written, each command on one line, and the
topics. ``HELP <topic>`` gives one topic in full (:data:`TOPICS`): a command's name (``HELP
VOTE``, ``HELP JOIN``, ``HELP VOID`` for an ADMIN action) or a subject (``HELP RULES`` the
forms of rule change, grouped; ``HELP ADMIN``; ``HELP CFJ``...). An unknown topic is
answered with the nearest one.
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Callable, Mapping

from speakerbot.mail.inbound.language.admin import ADMIN_ACTIONS
from speakerbot.mail.inbound.language.grammar import COMMANDS, SUBJECT_SHORTCUTS
from speakerbot.mail.inbound.language.prose import NATURAL_FORMS
from speakerbot.mail.inbound.language.spec import CommandSpec

__all__ = ["TOPICS", "every_help", "help_text"]


_WHO_NOTE: Mapping[str, str] = {
    "anyone": "",
    "player": " Players only.",
    "judge": " Only the judge assigned to the CFJ.",
    "Speaker": "",
}

_HOW: tuple[str, ...] = (
    "Write one command per line in the body of your message. Keywords may be",
    "written in any case; a number may be written 301 or #301. Each command",
    "is applied on its own, in order: one refused leaves the others done. But",
    "if any line has an error (a command not understood), nothing in the",
    "message is done, and the reply says what to write instead.",
)

_KEYWORD_CLAUSES: tuple[str, ...] = (
    "The keyword forms work too:",
    "  ENACT RULE: <text>           ENACT IMMUTABLE RULE: <text>",
    "  AMEND RULE <n>: <text>       REPEAL RULE <n>       TRANSMUTE RULE <n>",
    "  SET <parameter> = <value>",
    "A keyword clause's text runs to a line END RULE, the next clause or the end",
    "of the proposal; what follows END RULE is the proposal's text alone.",
)

_CLAUSES_HEAD: tuple[str, ...] = (
    "Inside a proposal's text, lines like these change the rules (any case; a",
    "rule's title may follow its number in parentheses; quote text in double",
    'quotes "..." or write it as a block below a line ending with a colon,',
    "up to a blank line (text after that blank line leaves the change to the",
    "host: indent a text of paragraphs, or end it with END RULE); one change a",
    "line, alone or as a list item). A proposal may change several rules, and",
    "one rule by several edits.",
)

_CLAUSES_TAIL: tuple[str, ...] = (
    "A change's edits may go on below it: and by replacing ..., and removing:",
    "<block>, or a gerund alone: replacing <block> with <block>. A line that is",
    'one quotation ("...") is a text with no colon before it; braces may open',
    "on the edit's own line (by replacing {); a block edit may come last after",
    'others (by removing "X" and replacing: <block> with: <block>); and to delete',
    "the bullet point which reads: <block> and replace it with: <block> replaces",
    "its text.",
    "A change may hang on another proposal's fate (If Proposal 301 passed,",
    "amend Rule 5 ...; Otherwise: ...): the game settles it when the proposal",
    "is adopted. Lines that speak of changing a rule in another way are left to",
    "the host, and the reply quotes them; so are all the changes of a proposal",
    "that hang on any other condition.",
)

_READING: tuple[str, ...] = (
    "Not read: blank lines; quoted lines (starting with >); everything after a",
    "signature line (-- ), after a line that is only END, THANKS or STOP, or",
    "after the start of quoted history (-----Original Message----- and the like).",
    "Other lines that do not start with a keyword are listed back as ignored;",
    "plain words that say what a command does (I vote against 303) are answered",
    "with the exact line to send, and never done until you send it.",
)

# The groups of HELP RULES, each with the words that put a form in it (the first that fits).
_GROUPS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("New rules", lambda form: form.startswith(("Enact", "Create"))),
    ("Repealing and transmuting", lambda form: form.startswith(("Repeal", "Transmute"))),
    ("Titles", lambda form: form.startswith(("Retitle", "Change the title"))
     or "its title" in form or "to be titled" in form),
    ("A part of a rule (paragraph, sentence, list item, line)",
     lambda form: any(word in form for word in ("paragraph", "sentence", "list item", "line"))),
    ("A rule's whole text", lambda form: "to read" in form or "text of Rule" in form),
    ("Edits of a rule's text", lambda form: True),
)


def _entry(out: list[str], syntax: str, summary: str, who: str = "anyone") -> None:
    """Add one command's syntax and what it does, wrapped under it."""
    out.append(f"  {syntax}")
    sentence = summary[:1].upper() + summary[1:]
    if not sentence.endswith("."):
        sentence += "."
    sentence += _WHO_NOTE[who]
    out.extend(textwrap.wrap(sentence, width=72, initial_indent=" " * 6,
                             subsequent_indent=" " * 6))  # fmt: skip


def _syntax(spec: CommandSpec) -> str:
    aliases = "".join(f" (or {alias})" for alias in spec.aliases)
    return f"{spec.verb}{aliases} {spec.syntax}".rstrip()


def _commands(*verbs: str) -> list[str]:
    """Return the full entries of the named commands, in the table's order."""
    out: list[str] = []
    for spec in COMMANDS:
        if spec.verb in verbs:
            _entry(out, _syntax(spec), spec.summary, spec.who)
    return out


def _index() -> list[str]:
    out = [*_HOW, "", "Commands (HELP <command> gives one in full):"]
    out += [f"  {_syntax(spec)}" for spec in COMMANDS if spec.who != "Speaker"]
    out += [
        "",
        "More help: HELP VOTE, HELP PROPOSE, HELP RULES (the forms of rule change),",
        "HELP CFJ, HELP OBSERVE, HELP DIGEST, HELP SUBJECT (commands in the Subject),",
        "HELP READING (what is read), HELP ADMIN (the Speaker's commands), and HELP",
        "with any command's name.",
    ]
    return out


def _rules() -> list[str]:
    out = [*_CLAUSES_HEAD]
    grouped: dict[str, list[tuple[str, str]]] = {name: [] for name, _ in _GROUPS}
    for syntax, example in NATURAL_FORMS:
        group = next(name for name, fits in _GROUPS if fits(syntax))
        grouped[group].append((syntax, example))
    for name, forms in grouped.items():
        if forms:
            out += ["", f"{name}:", *(f"  {syntax}\n      e.g. {example}"
                                      for syntax, example in forms)]
    return [*out, "", *_CLAUSES_TAIL, "", *_KEYWORD_CLAUSES]


def _admin() -> list[str]:
    out = ["Speaker commands (the message must also hold a line PASSWORD <password>;",
           "a host without a password gives them on the host's machine, speakerbot",
           "admin ...):"]
    for spec in COMMANDS:
        if spec.who == "Speaker" and spec.verb != "ADMIN":
            _entry(out, _syntax(spec), spec.summary)
    for action in ADMIN_ACTIONS:
        _entry(out, f"ADMIN {action.action} {action.syntax}".rstrip(), action.summary)
    return out


def _subject() -> list[str]:
    out = ["Subject shortcuts (a Subject starting with Re:, Fwd: and the like is",
           "never a command):"]
    for shortcut in SUBJECT_SHORTCUTS:
        _entry(out, shortcut.syntax, shortcut.summary)
    return out


def _topics() -> dict[str, list[str]]:
    """Every topic's lines, by name: the subjects first, then each command's own."""
    topics: dict[str, list[str]] = {
        "VOTE": [*_commands("VOTE", "CONSENT", "REFUSE"), "",
                 "Ballots stay sealed until the vote closes. The reply to each ballot",
                 "gives its receipt, on a line of its own beginning with Receipt. The",
                 "results list every counted ballot's receipt, so you can check that",
                 "yours was counted as you cast it."],
        "PROPOSE": [*_commands("PROPOSE", "REVISE", "CALL", "DEBATE"), "",
                    "HELP RULES gives the forms of rule change a proposal's text may hold."],
        "RULES": [*_commands("RULES"), "", *_rules()],
        "CFJ": _commands("CFJ", "JUDGEMENT", "OVERRULE"),
        "OBSERVE": _commands("OBSERVE", "UNOBSERVE"),
        "DIGEST": [*_commands("DIGEST"), "",
                   "In digest mode (players and observers alike), the game's public mail",
                   "(distributions, results, judgements, announcements) comes once a day,",
                   "at the hour the game sets, as one MIME digest holding every public",
                   "message of the day in order; nothing comes on a day with none. Replies,",
                   "requests for a code, reminders and anything sent to you alone still",
                   "come at once. Sealed ballots stay sealed: a digest holds only mail that",
                   "was public already. DIGEST OFF brings each message again as it is",
                   "sent; what was kept for your digest still comes in it.", "",
                   "The Speaker's digest of the game's business is another thing: ADMIN",
                   "DIGEST sends it to every player now. STATUS gives what is open now."],
        "ADMIN": _admin(),
        "SUBJECT": _subject(),
        "READING": list(_READING),
    }
    for spec in COMMANDS:
        if spec.verb not in topics:
            topics[spec.verb] = _commands(spec.verb)
    for action in ADMIN_ACTIONS:
        out: list[str] = []
        _entry(out, f"ADMIN {action.action} {action.syntax}".rstrip(), action.summary)
        topics[action.action] = [*topics[action.action], "", *out] if (
            action.action in topics) else out  # ABSENT: the player's, then the Speaker's
    topics["CALL VOTE"] = topics["CALL"]
    return topics


TOPICS: Mapping[str, str] = {name: "\n".join(lines) + "\n" for name, lines in _topics().items()}
"""Every topic of ``HELP <topic>``, by its name in capitals."""


def help_text(topic: str = "") -> str:
    """Return the HELP reply: the index, or one topic (an unknown one names the nearest).

    Those are :data:`COMMANDS`, :data:`ADMIN_ACTIONS`, :data:`SUBJECT_SHORTCUTS` and the
    natural forms of rule changes (:data:`~.prose.NATURAL_FORMS`).
    """
    name = " ".join(topic.upper().split())
    if not name:
        return "\n".join(_index()) + "\n"
    if name in TOPICS:
        return TOPICS[name]
    nearest = difflib.get_close_matches(name, list(TOPICS), n=1, cutoff=0.5)
    said = f"There is no help on {name}."
    if nearest:
        said += f" The nearest topic is {nearest[0]}: send HELP {nearest[0]}."
    return textwrap.fill(said + " HELP alone gives the index of topics and commands.",
                         width=72) + "\n"


def every_help() -> str:
    """Return all HELP can tell: the index, then every topic (for checks that it is whole)."""
    return help_text() + "".join(f"\n{text}" for text in TOPICS.values())
