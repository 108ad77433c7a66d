"""The HELP reply, rendered from the same tables the parser reads."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

from speakerbot.mail.inbound.language.admin import ADMIN_ACTIONS
from speakerbot.mail.inbound.language.grammar import COMMANDS, SUBJECT_SHORTCUTS
from speakerbot.mail.inbound.language.prose import NATURAL_FORMS

__all__ = ["help_text"]


_WHO_NOTE: Mapping[str, str] = {
    "anyone": "",
    "player": " Players only.",
    "judge": " Only the judge assigned to the CFJ.",
    "Speaker": "",
}


_CLAUSES: tuple[str, ...] = (
    "Inside a proposal's text, lines like these change the rules (any case; a",
    "rule's title may follow its number in parentheses; quote text in double",
    'quotes "..." or write it as a block below a line ending with a colon,',
    "up to a blank line (text after that blank line leaves the change to the",
    "host: indent a text of paragraphs, or end it with END RULE); one change a",
    "line, alone or as a list item):",
    *(f"  {syntax}\n      e.g. {example}" for syntax, example in NATURAL_FORMS),
    "A change's edits may go on below it: and by replacing ..., and removing:",
    "<block>, or a gerund alone: replacing <block> with <block>. A line that is",
    'one quotation ("...") is a text with no colon before it; braces may open',
    "on the edit's own line (by replacing {); a block edit may come last after",
    'others (by removing "X" and replacing: <block> with: <block>); and to delete',
    "the bullet point which reads: <block> and replace it with: <block> replaces",
    "its text.",
    "Lines that speak of changing a rule in another way are left to the host,",
    "and the reply quotes them; so are all the changes of a proposal that says",
    "they hang on a condition (If Proposal 8000 was adopted: ...).",
    "",
    "The keyword forms work too:",
    "  ENACT RULE: <text>           ENACT IMMUTABLE RULE: <text>",
    "  AMEND RULE <n>: <text>       REPEAL RULE <n>       TRANSMUTE RULE <n>",
    "  SET <parameter> = <value>",
    "A keyword clause's text runs to a line END RULE, the next clause or the end",
    "of the proposal; what follows END RULE is the proposal's text alone.",
    "",
)
"""The HELP lines on rule changes inside a proposal: the natural forms first."""


def help_text() -> str:
    """Render the HELP reply from the tables the parser uses.

    Those are :data:`COMMANDS`, :data:`ADMIN_ACTIONS`, :data:`SUBJECT_SHORTCUTS` and the
    natural forms of rule changes (:data:`~.natural.NATURAL_FORMS`).
    """
    out: list[str] = [
        "Write one command per line in the body of your message. Keywords may be",
        "written in any case; a number may be written 301 or #301. Each command",
        "is applied on its own, in order: one refused leaves the others done. But",
        "if any line has an error (a command not understood), nothing in the",
        "message is done, and the reply says what to write instead.",
        "",
    ]

    def entry(syntax: str, summary: str, who: str = "anyone") -> None:
        out.append(f"  {syntax}")
        sentence = summary[:1].upper() + summary[1:]
        if not sentence.endswith("."):
            sentence += "."
        sentence += _WHO_NOTE[who]
        out.extend(textwrap.wrap(sentence, width=72, initial_indent=" " * 6,
                                 subsequent_indent=" " * 6))  # fmt: skip

    out.append("Commands:")
    for spec in COMMANDS:
        if spec.who != "Speaker":
            aliases = "".join(f" (or {alias})" for alias in spec.aliases)
            entry(f"{spec.verb}{aliases} {spec.syntax}".rstrip(), spec.summary, spec.who)
    out.extend(["", "Speaker commands (the message must also hold a line PASSWORD <password>):"])
    for spec in COMMANDS:
        if spec.who == "Speaker" and spec.verb != "ADMIN":
            entry(f"{spec.verb} {spec.syntax}".rstrip(), spec.summary)
    for action in ADMIN_ACTIONS:
        entry(f"ADMIN {action.action} {action.syntax}".rstrip(), action.summary)
    out.extend(
        [
            "",
            "Subject shortcuts (a Subject starting with Re:, Fwd: and the like is",
            "never a command):",
        ]
    )
    for shortcut in SUBJECT_SHORTCUTS:
        entry(shortcut.syntax, shortcut.summary)
    out.extend(
        [
            "",
            *_CLAUSES,
            "Not read: blank lines; quoted lines (starting with >); everything after a",
            "signature line (-- ), after a line that is only END, THANKS or STOP, or",
            "after the start of quoted history (-----Original Message----- and the like).",
            "Other lines that do not start with a keyword are listed back as ignored.",
        ]
    )
    return "\n".join(out) + "\n"

