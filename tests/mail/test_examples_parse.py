"""Every example a player or host is shown is accepted: the docs, HELP and the error hints.

An example is a line in a code block, or a span in backticks, that starts with a mail
command word (VOTE, PROPOSE, ADMIN, SET ...), in docs/*.md and README.md; an indented line
or an ``e.g.`` line of HELP; an ``e.g.``/``write:`` example in the mail language's and the
Speaker's words (``speakerbot/mail``) and a command line of a template. Each is read by the
parser as a message would be, translated for the engine, and a SET's mechanic checked by
the engine's own table: a ``SET quorum = 5`` that the parser reads but no game obeys is
caught. Syntax (``<n>``, ``[reason]``, ``FOR|AGAINST``), elisions (``...``) and a command's
bare name in prose (``VOTE``, ``ADMIN EXTEND``) are not examples.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from speakerbot.engine.mechanics import parse_setting
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.language import ADMIN_ACTIONS, COMMANDS, every_help
from speakerbot.mail.inbound.translate import translate

ROOT = Path(__file__).resolve().parents[2]
HOST = "chuck@example.org"
CLAUSES = ("SET", "AMEND", "REPEAL", "ENACT", "TRANSMUTE")
NATURAL = ("Amend Rule", "Repeal Rule", "Enact a new rule", "Transmute Rule",
           # issue 26's forms
           "Amend R", "Amend 2", "Amend the following rules", "Replace the last paragraph",
           "In Rule", "Retitle Rule", "Create a", "Enact a Rule")
VERBS = {spec.verb for spec in COMMANDS} | {alias for spec in COMMANDS for alias in spec.aliases}
BLOCKS = {"PROPOSE": "END PROPOSE", "REVISE": "END REVISE", "DEBATE": "END DEBATE"}
NAMES = (VERBS | set(CLAUSES)
         | {f"ADMIN {action.action}" for action in ADMIN_ACTIONS if action.syntax}
         | {"CALL VOTE", "ABSENT UNTIL", "END GAME", "NEW GAME"})
"""A command's name, said in prose: not an example of it."""

SHOWN_REFUSED = {
    "VOTE 301 MAYBE", "SHOW RULE abc", "SHOW 301", "AMEND RULE abc:",
    "REPEAL RULE 105 and 106", "AMEND IMMUTABLE RULE 5:", "SET = 5", "JUDGEMENT 12: maybe",
    "VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, e.g. VOTE 301 FOR",
    "Amend Rule 5 by frobbing",
}
"""What docs/email-language.md shows as an error or a line not understood, or quotes from a
refusal: refused, as the docs say."""


def refusal(example: str) -> str | None:
    """Why ``example`` is not accepted as a message's line would be (None: it is)."""
    first = example.split()[0]
    if first in CLAUSES or example.startswith(NATURAL):
        return _clause_refusal(example)
    text = "New text.\nEND RULE\n" if re.match(r"ADMIN RULE (AMEND|ENACT)", example) else ""
    block = BLOCKS.get(first.upper())
    if block is not None and len(example.split()) > 1:
        text = f"Its text.\n{block}\n"
    parsed = lang.parse_commands("", f"{example}\n{text}", host=True)
    if not parsed.ok:
        return "; ".join(error.reason for error in parsed.errors)
    if not parsed.commands and parsed.password is None:
        return "no command read"
    for command in parsed.commands:
        if isinstance(command, lang.Confirm):  # the service's, never the engine's
            continue
        try:
            translate(command, HOST)
        except ValueError as error:
            return str(error)
        problem = _setting_refusal(command)
        if problem:
            return problem
    return None


def _clause_refusal(example: str) -> str | None:
    text = "New text.\n" if example.split()[0] in ("AMEND", "ENACT") else ""
    parsed = lang.parse_commands("", f"PROPOSE Try\nIts text.\n{example}\n{text}END PROPOSE\n")
    if not parsed.ok:
        return "; ".join(error.reason for error in parsed.errors)
    [propose] = parsed.commands
    assert isinstance(propose, lang.Propose)
    if not propose.clauses or propose.not_understood:
        return "not read as a clause"
    return _setting_refusal(propose)


def _setting_refusal(command: object) -> str | None:
    """Whether the engine knows the mechanic a SET names, and takes the value."""
    clauses = list(getattr(command, "clauses", ()))
    clause = getattr(command, "clause", None)
    settings = [(c.parameter, c.text) for c in [*clauses, clause]
                if c is not None and c.kind == "SET"]
    if isinstance(command, lang.AdminSet):
        settings.append((command.parameter, command.value))
    for parameter, value in settings:
        try:
            parse_setting(parameter or "", value or "")
        except ValueError as error:
            return str(error)
    return None


def _is_example(text: str) -> bool:
    """Whether a candidate is an example: a command word first, no syntax, no elision."""
    words = text.split()
    if not words or (words[0] not in VERBS | set(CLAUSES) and not text.startswith(NATURAL)):
        return False
    if re.search(r"<[^>]*>|\[[^\]]*\]|\||\.\.\.|…|YYYY", text):
        return False
    return text not in NAMES


# --- where the examples are ---


def doc_examples() -> Iterator[tuple[str, str]]:
    """Every example in docs/*.md and README.md: where it is, and its text."""
    for path in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        fenced: list[str] | None = None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip().startswith("```"):
                if fenced and fenced[0].startswith(NATURAL):
                    # A block of a rule change and its text: one example, read whole.
                    yield f"{path.relative_to(ROOT)}:{number - len(fenced)}", "\n".join(fenced)
                fenced = [] if fenced is None else None
                continue
            if fenced is not None and (fenced or line.strip()):
                fenced.append(line.strip())
            if fenced and fenced[0].startswith(NATURAL):
                continue
            for text in [line.strip()] if fenced is not None else re.findall(r"`([^`\n]+)`",
                                                                               line):
                if _is_example(text):
                    yield f"{path.relative_to(ROOT)}:{number}", text


def help_examples() -> Iterator[str]:
    """Every command line of HELP (indented by two) and every ``e.g.`` line."""
    for line in every_help().splitlines():
        text = line.strip().removeprefix("e.g. ")
        syntax = line.startswith("  ") and not line.startswith("   ")
        if (syntax or line.strip() != text) and _is_example(text):
            yield text


_HINT = re.compile(r"(?:e\.g\.|write:)\s+(.+)")
_CUT = re.compile(r";|, then | then |: with |, optionally | to leave |, or (?=[a-z])")
_ALTERNATIVES = re.compile(r",? or (?=[A-Z]{2,})|, (?=[A-Z]{2,} )")
SAMPLES = {
    "verb": sorted(VERBS | {f"ADMIN {a.action}" for a in ADMIN_ACTIONS} | {"CALL VOTE"}),
    "kind": ["REPEAL", "TRANSMUTE", "AMEND", "ENACT"],
    "action": [a.action for a in ADMIN_ACTIONS],
    "what.upper()": ["PROPOSAL", "RULE", "CFJ"],
    "keyword": ["PROPOSAL", "RULE", "CFJ"],
    "choice": ["FOR", "AGAINST", "ABSTAIN"],
    "_CHOICES[_word(words[0])]": ["FOR", "AGAINST", "ABSTAIN"],
}
"""What a name in an f-string hint may stand for; anything else stands for a number."""


def hint_examples() -> Iterator[tuple[str, list[str]]]:
    """Every example in an error hint of ``speakerbot/mail``: where, and its readings.

    A hint written as an f-string has one reading for each value its names may take (the
    verb of ``{verb} 301`` is DEBATE or REVISE); one of them must be accepted.
    """
    for path in sorted((ROOT / "speakerbot" / "mail").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A piece of an f-string is read with the f-string, not alone.
        pieces = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                  for part in node.values}
        for node in ast.walk(tree):
            if id(node) in pieces:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                # The refusals' words are str.format templates over a refusal's facts.
                text, names = re.sub(r"\{\w+\}", "301", node.value), list[str]()
            elif isinstance(node, ast.JoinedStr):
                text, names = _template(node)
            else:
                continue
            for match in _HINT.finditer(text):
                said = _CUT.split(match.group(1))[0].strip().rstrip(".")
                for example in _ALTERNATIVES.split(said):
                    readings = _readings(example.strip(), names)
                    if readings:
                        yield f"{path.relative_to(ROOT)}:{node.lineno}", readings


def _template(node: ast.JoinedStr) -> tuple[str, list[str]]:
    """The f-string's text, each value a numbered hole; and the name in each hole."""
    parts: list[str] = []
    names: list[str] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        else:
            assert isinstance(value, ast.FormattedValue)
            parts.append(f"\x00{len(names)}\x00")
            names.append(ast.unparse(value.value))
    return "".join(parts), names


def _readings(example: str, names: list[str]) -> list[str]:
    holes = [int(n) for n in re.findall(r"\x00(\d+)\x00", example)]
    readings = []
    for values in itertools.product(*(SAMPLES.get(names[hole], ["301"]) for hole in holes)):
        text = example
        for hole, value in zip(holes, values, strict=True):
            text = text.replace(f"\x00{hole}\x00", value)
        if _is_example(text):
            readings.append(text)
    return readings


def template_examples() -> Iterator[tuple[str, str]]:
    """Every command line of a template (its Jinja values filled in)."""
    for path in sorted((ROOT / "templates").glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = re.sub(r"\{\{[^}]*token[^}]*\}\}", "3f9c2a7d41b0e8c6a5d2f1e0b9c8a7d6",
                          line.strip())
            text = re.sub(r"\{\{[^}]*\}\}", "301", text)
            if not line.lstrip().startswith("{") and _is_example(text):
                yield f"{path.relative_to(ROOT)}:{number}", text


# --- the tests ---


def test_every_example_in_the_docs_is_accepted() -> None:
    found = list(doc_examples())
    assert len(found) > 60
    wrong = [f"{where}: {text}: {why}" for where, text in found
             if text not in SHOWN_REFUSED and (why := refusal(text)) is not None]
    assert not wrong, "\n".join(wrong)


def test_the_errors_the_docs_show_are_refused() -> None:
    shown = {text for _, text in doc_examples()}
    for text in SHOWN_REFUSED:
        assert text in shown, f"no longer in the docs: {text}"
        assert refusal(text) is not None, f"the docs show it refused, but it is accepted: {text}"


def test_every_example_in_help_is_accepted() -> None:
    found = list(help_examples())
    assert len(found) > 10 and "ADMIN DIGEST" in found
    wrong = [f"{text}: {why}" for text in found if (why := refusal(text)) is not None]
    assert not wrong, "\n".join(wrong)


def test_every_example_in_an_error_hint_is_accepted() -> None:
    found = list(hint_examples())
    assert len(found) > 30
    wrong = [f"{where}: {' / '.join(readings)}: {refusal(readings[0])}"
             for where, readings in found if all(refusal(text) is not None for text in readings)]
    assert not wrong, "\n".join(wrong)


def test_every_command_line_of_a_template_is_accepted() -> None:
    found = list(template_examples())
    assert len(found) > 10
    wrong = [f"{where}: {text}: {why}" for where, text in found
             if (why := refusal(text)) is not None]
    assert not wrong, "\n".join(wrong)
