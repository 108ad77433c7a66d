"""The rule changes players write in prose: ``Amend Rule 205 by replacing "a" with "b"``.

The forms (any case; a rule is ``Rule N`` or ``RN``, optionally followed by its title in
parentheses or quotes; a line may start with a list marker such as ``1.``, ``a)``, ``(a)``
or ``-``):

- ``Amend Rule N to read[ as follows|, in full]: <text>`` → AMEND (with the other forms
  that name the rule after the change or change its whole text, read by
  :mod:`~speakerbot.mail.inbound.language.prose.whole`);
- ``Amend Rule N by <edits>`` and ``In Rule N, <edits>``, where the edits (read by
  :mod:`~speakerbot.mail.inbound.language.prose.edits`) replace, delete, insert or append
  text: ``by replacing "X" with "Y" and "C" with "D"``, ``by replacing:`` <block> ``with:``
  <block> → REPLACE, INSERT, APPEND; also ``Amend Rule N by:`` with the edits as list items;
- ``and by <edits>``, ``and removing:`` (an edit's verb after ``and``), a gerund alone
  (``replacing`` <block> ``with`` <block>) or ``Also amend the same rule by <edits>``
  right after a change to a rule: more edits of that rule;
- ``Remove "X" from Rule N``, ``Append the following paragraph to Rule N: <text>``,
  ``Replace "X" in Rule N with "Y"``;
- ``Repeal [each of the following] Rule[s] N[, M and K][, in <an|this> order]``,
  ``Enact|Create a [new] rule[ titled "T"][ with power P|at P=P|, power P,][ with the
  following text|with text|which reads (in full)]: <text>`` (a power is the game's own
  business: it is not kept; the title is; the power may come first, and ``the following
  rule`` for ``a new rule``; ``Add a new[ Power=P] rule`` too; ``Enact the following rule,
  Charities:`` with a title written bare in Title Case right before the colon),
  ``Transmute Rule N[ to (mutable|immutable)]``,
  ``Retitle|Rename Rule N [to] "T"``, ``Change|Amend|Set the title of Rule N to "T"``;
- the passive: ``Rule N is [hereby] amended ...``, ``... repealed``, ``... retitled "T"``,
  read as ``Amend|Repeal|Retitle Rule N ...``; ``Rule N (T) by <edits>`` (``Amend`` left
  out) as ``Amend Rule N (T) by <edits>``;
- ``At the end of [<part> of] Rule N, append ...``: the place first, then the edit;
- the edits of a part of a rule (a paragraph, sentence, list item or line) and of its
  title, read by :mod:`~speakerbot.mail.inbound.language.prose.parts`, also with the rule
  named after the part: ``Replace the last paragraph of Rule N with: <text>``;
- ``Amend Rule N to be titled "T" and to read:`` (RETITLE, then AMEND), ``Amend the text of
  Rule N by``, ``Amend Rules N, M in the given order by replacing every instance of ...``;
- ``Amend N by`` (also ``Amend N Title Written Bare by``), ``Amend RN "T" to replace ...``,
  ``Amend Rule N (T) as follows:`` and ``by, as a single amendment:`` with the edits as list
  items below (after ``as follows:`` also as indented paragraphs, each a command: ``Delete
  the text "X".``; read by :mod:`~speakerbot.mail.inbound.language.prose.below`), and ``Amend the
  following rules, in the order listed, by replacing every instance of "X" with "Y": <rules>``
  (one REPLACE of every occurrence a rule).

Quoted text is in straight or curly double quotes (it may run over several lines); a block
after a colon is text in braces, the indented lines below, or else the lines up to a blank
line, the next clause or ``END RULE`` (none when more text follows it that may be its own:
see :meth:`~speakerbot.mail.inbound.language.prose.text.Cursor.block`). A title written
bare right after the number, in Title Case and naming no part of a rule (``rule 2551 Auction
End with``), is a title wherever a title may stand. A title written bare between commas
(``Amend Rule 2464, Tournaments, by``) or a part of the rule (``section 2``) is taken only
before edits that find their place by quoted text; never before appending, ``every
occurrence`` or a part named by its place, which it could change the meaning of, nor before
``to read`` unless it is the rule's own title among the rules the reader is given. A
rule named by its title alone (``Amend the rule entitled "T" by``, ``Repeal the rule "T"``,
``In Rule "T",``, ``Amend "T" by``) is the one rule in effect with that title, among the rules
the reader is given; with none given, or a title that names no one rule, the form is not
read and its line is quoted back (:mod:`~speakerbot.mail.inbound.language.prose.titles`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from speakerbot.mail.inbound.language.prose.below import complete, edits_below
from speakerbot.mail.inbound.language.prose.edits import (
    END,
    counted_after_an_edit,
    read_edits,
)
from speakerbot.mail.inbound.language.prose.names import (
    BY_TITLE,
    IN_ORDER,
    NAMED,
    REVISION,
    RULE,
    TITLE,
    RuleCursor,
    listed_rules,
    rules_after,
)
from speakerbot.mail.inbound.language.prose.parts import CARDINAL, ORDINAL, UNIT
from speakerbot.mail.inbound.language.prose.text import (
    ADD_A_RULE,
    COLON,
    Lines,
    Q,
    form,
    starts_clause,
    unmarked,
    unquote,
)
from speakerbot.mail.inbound.language.prose.titles import RuleTitles, Unnamed
from speakerbot.mail.inbound.language.prose.whole import titled_to_read, whole
from speakerbot.mail.inbound.language.results import Clause, ClauseKind

__all__ = ["read_natural"]

# A title written bare between commas (Title Case, not a condition), or a part of the rule.
_BARE_TITLE = (
    r"\s*+,\s*+(?-i:(?!(?:If|Unless|When|Provided|Only)\b)[A-Z][\w'’.-]*"
    r"(?:\s++(?:[A-Z][\w'’.-]*|of|the|and|a|an|in|on|for|to|or|at)){0,8})\s*+(?=,)"
)
_PART = (
    r"\s*+,?\s*+(?:in\s++)?(?:(?:the\s++)?(?:first|second|third|fourth|fifth|sixth|last|final)"
    r"\s++(?:paragraph|section|subsection|list\s++item|item|clause)"
    r"|(?:section|subsection|paragraph|item|list\s++item|clause)\s++\(?[0-9a-z]{1,3}\)?)"
)
_SCOPE = rf"(?P<scope>(?:{_BARE_TITLE}|{_PART})+)?"
_BY = (
    r"\s*+,?\s*+(?:by\b\s*+(?:,\s*+as\s++a\s++single\s++amendment\s*+(?:,\s*+|(?=:)))?"
    r"(?:by\s++)?|to\s++(?=(?:replace|delete|remove|insert|append|add|prepend)\b)"
    r"|(?=as\s++follows\s*+:\s*+$))"
)
# "Amend 2481 by replacing:": the rule's number alone, only before "by".
_NUMBER = rf"#?(?=[0-9]{{1,9}}(?:{NAMED}|{TITLE})\s*+,?\s*+by\b)"
_AMEND_BY = form(
    rf"amend\s++(?:the\s++text\s++of\s++)?(?:(?:rule\s++#?|r#?|{_NUMBER})(?P<rule>[0-9]{{1,9}})"
    rf"{REVISION}(?:{NAMED}|{TITLE})|{BY_TITLE}|(?P<amended_title>{Q})(?=\s*+,?\s*+by\b))"
    rf"{_SCOPE}{_BY}(?P<body>.*)"
)
_IN_RULE = form(rf"in\s++{RULE}{_SCOPE}\s*+,?\s*+(?P<body>.*)")
_SAME_RULE = form(rf"(?:also\s++)?amend\s++the\s++same\s++rule{_BY}(?P<body>.*)")
# Right after a change to a rule (blank lines between), its edits may go on: "and by
# replacing ...", "and removing:", and a gerund alone ("replacing" <block> "with" <block>).
_EDIT_VERB = r"(?:replac|chang|delet|remov|strik|add|append|insert|prepend)"
_GOES_ON = form(
    rf"(?:(?:and|also)\s++(?:also\s++)?(?:by\s++|(?={_EDIT_VERB}))|by\s++(?={_EDIT_VERB}ing\b)"
    rf"|(?={_EDIT_VERB}ing\b))(?P<body>.*)"
)

_REPEAL = form(rf"repeal\s++{RULE}{END}")
# "Repeal Rules 1, 2 and 3", "Repeal Rule 1 ("A") and Rule 2", and "Repeal [each of] the
# following rules:" with the rules after the colon or listed below.
_REPEAL_RULES = form(
    rf"repeal\s++(?:(?P<following>(?:each\s++of\s++)?the\s++following\s++rules{IN_ORDER}\s*+:)"
    r"|rules?\s++(?=#?[0-9])|(?=r#?[0-9]))\s*+(?P<rules>.*)"
)
_TRANSMUTE = form(
    rf"transmute\s++{RULE}(?:\s*+,?\s*+to\s++(?:be\s++)?(?P<target>mutable|immutable))?{END}")
# A rule's power: "with power 2", "of Power: 2", "at P=0.5", or bare between commas ("a new
# rule, power 2, title "T"") (the power is not kept).
_POWER = r"(?:(?:with|at|of)\s++)?(?:power\s*+[=:]?|p\s*+=)\s*+[0-9.]+"
# A new rule's title written bare: words in Title Case ("Points", "Zombie Auctions"), none a
# word of the form.
_NEW_WORD = r"(?i:(?!(?:power|title|text|immutable|mutable|with|by)\b))(?-i:[A-Z][\w'’-]*+)"
_NEW_TITLE = (rf"{_NEW_WORD}(?:\s++(?:(?:of|the|and|a|an|in|on|for|or|at)\s++){{0,2}}"
              rf"{_NEW_WORD}){{0,7}}")
_ENACT = form(
    r"(?:enact|create)\s++(?:an?|the\s++following)\s++(?:new\s++)?(?P<immutable>immutable\s++)?"
    # "Enact the following rule, Charities:": a title written bare, only right before the colon.
    rf"(?:[\w.=-]+\s++){{0,2}}?rule(?:\s*+,\s*+(?P<words>{_NEW_TITLE})\s*+(?=:)|\s*+,?\s*+"
    rf"(?:{_POWER}\s*+,?\s*+"
    r"(?:and\s++)?)?(?:(?:titled|entitled|named|called|(?:with\s++)?(?:the\s++)?title)\s++"
    rf"(?P<title>{Q})\s*+,?\s*+(?:and\s++(?=with|the|this|text))?|(?P<bare>{Q})\s*+,?\s*+(?=with\b|at\b|:))?"
    rf"(?:{_POWER}\s*+,?\s*+(?:and\s++)?)?"
    r"(?:(?:with\s++)?(?:the\s++(?:the\s++)?following\s++text|the\s++text|this\s++text"
    r"|text\s++as\s++follows)|with\s++text|reading(?:\s++as\s++follows)?"
    r"|which\s++reads(?:\s*+\(in\s++full\))?|as\s++follows)?)"
    rf"\s*+(?:{COLON}\s*+(?P<text>.*)|(?P<q>{Q}){END})"
)
_RETITLE = form(
    r"(?:retitle\s++|rename\s++|(?:change|amend|set)\s++the\s++title\s++of\s++)"
    rf"{RULE}\s*+,?\s*+(?:from\s++{Q}\s*+,?\s*+)?(?:(?:to|as)(?:\s++read)?\s*+:?\s*+)?"
    rf"(?P<q>{Q}){END}"
)
# "Rule 5 is hereby amended by ...": read as "Amend Rule 5 by ..." (and repealed, retitled).
_PASSIVE = form(
    rf"{RULE}\s*+,?\s*+(?:is|shall\s++be)\s++(?:hereby\s++)?(?P<verb>amended|repealed|retitled)"
    r"\b(?P<rest>.*)"
)
# "Rule 2478 (Vigilante Justice) by replacing:": "Amend" left out, read as if written.
_NO_VERB = form(rf"(?=(?:rule\s++#?|r#?)[0-9]{{1,9}}{TITLE}\s*+,?\s*+by\s++{_EDIT_VERB}ing\b)")
_ADD_A_RULE = form(ADD_A_RULE)
_ACTIVE = {"amended": "amend", "repealed": "repeal", "retitled": "retitle"}
_A_PART = (
    rf"(?:the|its)\s++(?:{ORDINAL}\s++{UNIT}|{UNIT}\s++(?:beginning|starting)(?:\s++with)?\s*+{Q})"
    rf"|(?:the\s++)?{UNIT}\s++{CARDINAL}\b"
)
# "Replace the last paragraph of Rule 5 with: ...": the edit, its rule named after its part.
_PART_OF_RULE = form(
    r"(?P<verb>replace|delete|remove|strike|append\s++(?:the\s++following(?:\s++\w+)?\s++)?to"
    r"|add\s++(?:the\s++following(?:\s++\w+)?\s++)?to)\s++"
    rf"(?P<part>{_A_PART})\s++(?:of|in|from)\s++(?:the\s++)?{RULE}\s*+,?\s*+(?P<rest>.*)"
)
# "At the end of paragraph four of Rule 5, append the following sentence: ...", and "At
# the end of Rule 5, append ...": the place first, then the edit.
_AT_THE_END = form(
    rf"at\s++the\s++end\s++of\s++(?:(?P<part>{_A_PART})\s++(?:of|in)\s++)?(?:the\s++)?{RULE}"
    r"\s*+,?\s*+(?P<verb>append|add)\b(?P<rest>.*)"
)
# "Amend the following rules, in the order listed, by replacing every instance of ...:"
# ... and "Amend Rules 5 (A), 6 and 7, in the given order, by replacing every instance of ...".
_EVERY_RULE = form(
    rf"amend\s++(?:the\s++following\s++rules{IN_ORDER}\s*+,?\s*+by\s++(?P<body>[^:]*+):"
    rf"\s*+(?P<rules>.*)|rules\s++(?P<named>.*?\S){IN_ORDER}\s*+,?\s*+by\s++(?P<edits>.*))"
)
@dataclass(frozen=True)
class Read:
    """What a natural form read: its clauses and the index of the first line after it."""

    clauses: tuple[Clause, ...]
    next: int
    unnamed: str | None = None
    """When a form named its rule by a title that names no one rule in effect (and no form
    read the line): what the rules make of the title, for the host ("" when none known)."""


def _anchored(clause: Clause) -> bool:
    """Tell whether an edit finds its place by quoted text alone (so a part named is moot).

    Such an edit either finds its text once in the whole rule, which is then the place
    meant, or is refused at submission; it never lands elsewhere.
    """
    if clause.unit and not clause.anchor:
        return False  # "the first paragraph" of a section is not the rule's first
    return (clause.kind is ClauseKind.REPLACE and not clause.every) or (
        clause.kind is ClauseKind.INSERT
    )


def _edits(cursor: RuleCursor, head: str, previous: int | None) -> list[Clause] | None:
    """Read ``Amend Rule N by ...``, ``In Rule N, ...`` and the edits of the rule before."""
    for pattern in (_AMEND_BY, _IN_RULE):
        match = pattern.fullmatch(head)
        if match is not None:
            body = match["body"]
            below = _LIST_BELOW.fullmatch(body)
            if below is not None:  # "Amend Rule 5 by:" and the edits as items below
                if match["scope"]:
                    return None
                return edits_below(cursor, cursor.rule(match), paragraphs=bool(below["follows"]))
            clauses = read_edits(cursor, cursor.rule(match), body)
            if clauses and match["scope"] and not all(_anchored(c) for c in clauses):
                return None
            return clauses
    if previous is None:
        return None
    for pattern in (_SAME_RULE, _GOES_ON):
        match = pattern.fullmatch(head)
        if match is not None:
            return read_edits(cursor, previous, match["body"])
    return None


_LIST_BELOW = form(r"\s*+(?P<follows>as\s++follows\s*+)?:\s*+")


def _other_forms(cursor: RuleCursor, head: str) -> Clause | None:
    match = _REPEAL.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.REPEAL, cursor.rule(match))
    match = _TRANSMUTE.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.TRANSMUTE, cursor.rule(match), (match["target"] or "").lower())
    match = _ENACT.fullmatch(head)
    if match is not None:
        text = cursor.text(match["text"], match["q"])
        title = unquote(match["title"] or match["bare"] or match["words"] or "")
        return Clause(ClauseKind.ENACT, None, text, immutable=bool(match["immutable"]),
                      title=" ".join(title.split()))
    match = _RETITLE.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.RETITLE, cursor.rule(match), " ".join(unquote(match["q"]).split()))
    return whole(cursor, head)


def _part_of_rule(cursor: RuleCursor, head: str) -> list[Clause] | None:
    """Read ``Replace the last paragraph of Rule 5 with: ...`` as that rule's edit."""
    match = _PART_OF_RULE.fullmatch(head)
    if match is None:
        return None
    verb = match["verb"]
    if verb.lower().startswith(("append", "add")):
        verb = verb[:-2].rstrip()  # the part follows: "append the following to the ..."
        body = f"{verb} to {match['part']} {match['rest']}"
    else:
        body = f"{verb} {match['part']} {match['rest']}"
    clauses = read_edits(cursor, cursor.rule(match), body)
    return clauses if clauses and all(c.unit for c in clauses) and len(clauses) == 1 else None


def _at_the_end(cursor: RuleCursor, head: str) -> list[Clause] | None:
    """Read ``At the end of [<part> of] Rule 5, append ...`` as ``appending ... to <part>``."""
    match = _AT_THE_END.fullmatch(head)
    if match is None:
        return None
    rest = match["rest"]
    if match["part"] is None:
        clauses = read_edits(cursor, cursor.rule(match), f"{match['verb']}{rest}")
        ok = clauses and all(c.kind is ClauseKind.APPEND and not c.unit for c in clauses)
    else:
        clauses = read_edits(cursor, cursor.rule(match),
                             f"{match['verb']} at the end of {match['part']}{rest}")
        ok = clauses and all(c.unit for c in clauses)
    return clauses if ok and clauses and len(clauses) == 1 else None


def _every_rule(cursor: RuleCursor, head: str) -> list[Clause] | None:
    """Read ``Amend the following rules ... by replacing every instance of "X" with "Y":``.

    The rules are listed after the colon or below it, one or more a line; each gets the
    same replacements, every one of them ``every``.
    """
    match = _EVERY_RULE.fullmatch(head)
    if match is None:
        return None
    named = match["named"] is not None
    edits = read_edits(cursor, 0, (match["edits"] if named else match["body"]).rstrip())
    if not edits or not all(c.kind is ClauseKind.REPLACE and c.every for c in edits):
        return None
    rules = listed_rules(match["named"]) if named else rules_after(cursor, match["rules"])
    return [replace(c, rule=rule) for rule in rules for c in edits] or None


def _repeals(cursor: RuleCursor, head: str) -> list[Clause] | None:
    """Read ``Repeal Rules 1, 2 and 3`` (two or more) and ``Repeal the following rules:``."""
    # "REPEAL RULE 105 and 106" is the keyword form written wrong: it stays an error.
    match = None if head.startswith("REPEAL RULE ") else _REPEAL_RULES.fullmatch(head)
    if match is None:
        return None
    if match["following"]:
        rules = rules_after(cursor, match["rules"])
    else:
        rules = listed_rules(_unfinished(match["rules"]))
        rules = rules if len(rules) > 1 else []
    return [Clause(ClauseKind.REPEAL, rule) for rule in rules] or None


def _unfinished(listed: str) -> str:
    """Return a list of rules without an ``and`` or ``or`` after it (it may go on below)."""
    words = listed.rstrip().rsplit(None, 1)
    return words[0] if len(words) == 2 and words[1].lower() in ("and", "or") else listed


def _read(cursor: RuleCursor, head: str, previous: int | None) -> tuple[Clause, ...] | None:
    passive = _PASSIVE.fullmatch(head)
    if passive is not None:
        verb = _ACTIVE[passive["verb"].lower()]
        head = f"{verb} rule {cursor.rule(passive)}{passive['rest']}"
    if _NO_VERB.match(head):
        head = f"amend {head}"
    if _ADD_A_RULE.match(head):
        head = "enact" + head[3:]
    start = cursor.index
    for reader in (_repeals, _every_rule, titled_to_read, _part_of_rule, _at_the_end):
        edits = reader(cursor, head)
        if edits:
            return tuple(edits)
        cursor.index = start
    edits = _edits(cursor, head, previous)
    if edits:
        return tuple(edits)
    cursor.index = start
    clause = _other_forms(cursor, head)
    return (clause,) if clause is not None else None


def _attempt(cursor: RuleCursor, head: str,
             previous: int | None) -> tuple[tuple[Clause, ...] | None, Unnamed | None]:
    """Read a head: its clauses, or why a form that names its rule by title was not read."""
    try:
        return _read(cursor, head, previous), None
    except Unnamed as unnamed:  # a title that names no one rule in effect: the host's
        return None, unnamed


def read_natural(lines: Lines, index: int, previous: int | None = None,
                 titles: RuleTitles | None = None) -> Read | None:
    """Read a natural form starting at ``lines[index]``; None when the line is none of them.

    ``previous`` is the rule the change just before changed, if the line follows it: ``and
    by ...`` and ``Also amend the same rule by ...`` go on editing it. A form whose text
    comes out empty (``to read:`` with nothing below) is none. ``titles``: the rules in
    effect, where a rule named by its title alone is found (None: none known). A form whose
    title names no one rule reads as no clause, with :attr:`Read.unnamed` saying so.
    """
    if not _may_start(lines[index][1], previous):
        return None
    # A head that ends in "and" or a comma may go on below ("replacing "a" with "b" and
    # <newline> replacing ..."): it is taken alone only when the longer one is nothing.
    # When it does go on below and the longer head is not understood, what the wrapped line
    # says would be lost: the whole is quoted back. A head ending in "or" offers an
    # alternative, and is never taken alone.
    unfinished: Read | None = None
    unnamed: Unnamed | None = None
    cut = False
    for wrapped in range(_MAX_WRAPPED + 1):
        cursor = RuleCursor(lines, index, titles)
        head = cursor.head(wrapped)
        if head is None:
            break
        clauses, missed = _attempt(cursor, head, previous)
        unnamed = unnamed or missed
        if clauses and counted_after_an_edit(clauses, previous):
            return None
        if clauses and all(complete(clause) for clause in clauses):
            if _GOES_ON_BELOW.search(head) is None:
                return Read(clauses, cursor.index)
            cut = cut or _OR_BELOW.search(head) is not None
            unfinished = unfinished or Read(clauses, cursor.index)
        else:
            cut = cut or unfinished is not None
            if head.rstrip().endswith(":"):
                break
    return _settled(unfinished, cut, unnamed, index)


def _may_start(text: str, previous: int | None) -> bool:
    """Tell whether a line may open a change: a form's, or more edits of the rule before."""
    if starts_clause(text):
        return True
    return previous is not None and _GOES_ON.match(unmarked(text)) is not None


def _settled(unfinished: Read | None, cut: bool, unnamed: Unnamed | None,
             index: int) -> Read | None:
    """Return what a line's heads came to: a change, none, or a rule its title names not.

    Cut (a change going on below that is not understood with it): none, quoted back whole.
    Nothing read, but a form named its rule by a title that names no one rule: said so.
    """
    if cut:
        return None
    if unfinished is None and unnamed is not None:
        return Read((), index + 1, unnamed.note)
    return unfinished


_MAX_WRAPPED = 3
"""How many wrapped lines after a clause's first line are joined to it."""
_GOES_ON_BELOW = re.compile(r"(?:,|\band|\bor|\bthen)\s*+$", re.IGNORECASE)
_OR_BELOW = re.compile(r"\bor\s*+$", re.IGNORECASE)
