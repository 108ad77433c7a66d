"""Rule changes as players write them: replacing, appending and inserting text in a rule.

``check_edit`` refuses a REPLACE, APPEND or INSERT that could not be carried out on a rule's
text as it stands; ``edited_text`` returns the rule's text once the change is made. The same
function serves the check at submission, the diff the distribution shows and the adoption,
so that what players are shown is what the rule will read.

Quoted text is looked for with any run of whitespace standing for any other (a mail client
rewraps what it quotes, and a rule's line breaks are not something players can see in a
quotation); an occurrence that stands exactly as written is taken as written. Every
occurrence counts, so "every instance" reaches one broken over two lines, and a text that
stands twice, once so broken, is not unique.

Anyone who may propose can write an edit, so an edit costs time and memory in proportion to
the text it reads and the text it writes, never more: looking text up is linear (no pattern
that backtracks), and the size of a rule once edited is counted before it is made, so that
"replace every e with eeeeeeeeee", written six times, is refused at the first step that
would make the rule longer than ``max_bytes`` instead of building gigabytes.
"""

from __future__ import annotations

from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Facts, GameError, Refusal
from speakerbot.engine.units import paragraph_separator, splice

MAX_RULE_BYTES = 65_536
"""The longest a rule's text may be, in UTF-8 bytes, unless the host sets another bound."""

EDITS = (ClauseKind.REPLACE, ClauseKind.APPEND, ClauseKind.INSERT)
POSITIONS = ("before", "after")
# Text that closes up against what it follows: no space is put before it.
_CLOSING = ",.;:!?)]}'\""


def spans(text: str, needle: str) -> list[tuple[int, int]]:
    """Return where ``needle`` stands in ``text`` (non-overlapping, in order).

    Every occurrence is found, whatever white space it stands with: any run of white space
    in the needle stands for any run in the text, so a text quoted on one line is found
    where the rule breaks it over two, as well as where it does not. Where an occurrence
    stands exactly as written, its exact span is taken (a needle's own leading space, say,
    is then deleted with it). Counting every occurrence this way is what makes a text that
    stands twice, once across a line break, "not unique" rather than a silent choice of
    the one on one line. Linear in the sizes of both (``str.find`` is, and so is the
    folding of white space).
    """
    if not needle.strip():
        return []
    exact = _occurrences(text, needle)
    folded, starts = _fold_whitespace(text)
    loose = " ".join(needle.split())
    if exact:
        # Where the needle stands as written, its own edge space asks for a space in the
        # text elsewhere too: every " or" is not every "or", the one inside "for" among them.
        loose = (" " if needle[0].isspace() else "") + loose + (
            " " if needle[-1].isspace() else "")
    found: list[tuple[int, int]] = []
    at = 0
    for start, end in _occurrences(folded, loose):
        first, last = starts[start], starts[end - 1] + 1
        while at < len(exact) and exact[at][1] <= first:
            at += 1
        span = (first, last)
        if at < len(exact) and exact[at][0] < last:
            span = exact[at]  # the same occurrence, as written
            at += 1
        if not found or span[0] >= found[-1][1]:
            found.append(span)
    return found


def _made_at(text: str, needle: str, every: bool) -> list[tuple[int, int]]:
    """Return the occurrences an edit is made at: all of them, or (``every`` false) one.

    A single edit is checked to find its text once; unchecked (a diff of an edit that
    would be refused), it takes the first occurrence standing as written, if there is one.
    """
    found = spans(text, needle)
    if every or len(found) < 2:
        return found
    exact = text.find(needle)
    return [(exact, exact + len(needle))] if exact != -1 else found[:1]


def _occurrences(text: str, needle: str) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    start = text.find(needle)
    while start != -1:
        found.append((start, start + len(needle)))
        start = text.find(needle, start + len(needle))
    return found


def _fold_whitespace(text: str) -> tuple[str, list[int]]:
    """Return ``text`` with each run of whitespace made one space.

    And, for each character of the folded text, where it starts in ``text``.
    """
    folded: list[str] = []
    starts: list[int] = []
    in_space = False
    for index, char in enumerate(text):
        if char.isspace():
            if not in_space:
                folded.append(" ")
                starts.append(index)
            in_space = True
        else:
            folded.append(char)
            starts.append(index)
            in_space = False
    return "".join(folded), starts


def check_edit(number: int, text: str, clause: Clause,
               max_bytes: int = MAX_RULE_BYTES) -> None:
    """Refuse a REPLACE, APPEND or INSERT that could not be made to rule ``number``'s ``text``.

    Also refused: an edit that would make the rule longer than ``max_bytes`` (UTF-8), counted
    before the text is made. An edit of a part of the rule (``clause.unit``: units.py) is
    refused where the part is not there, or not told apart from another.
    """
    if clause.unit:
        _check_unit_edit(number, text, clause, max_bytes)
        return
    if clause.kind is ClauseKind.REPLACE:
        if not clause.old.strip():
            raise GameError(Refusal.NOTHING_TO_REPLACE, Facts(number=number))
        _check_found(number, text, clause.old, clause.every,
                     Refusal.TEXT_NOT_FOUND, Refusal.TEXT_NOT_UNIQUE)
    else:
        if not clause.text.strip():
            raise GameError(Refusal.NOTHING_TO_ADD, Facts(number=number,
                                                          detail=clause.kind.value))
    if clause.kind is ClauseKind.INSERT:
        if clause.position not in POSITIONS:
            raise GameError(Refusal.BAD_POSITION, Facts(number=number, text=clause.position))
        if not clause.anchor.strip():
            raise GameError(Refusal.ANCHOR_NOT_FOUND, Facts(number=number, text=clause.anchor))
        _check_found(number, text, clause.anchor, False,
                     Refusal.ANCHOR_NOT_FOUND, Refusal.ANCHOR_NOT_UNIQUE)
    check_rule_size(number, edited_size(text, clause), max_bytes)
    _check_changed(number, text, edited_text(text, clause))


def _check_unit_edit(number: int, text: str, clause: Clause, max_bytes: int) -> None:
    """Refuse an edit of a paragraph, sentence, list item or line that could not be made."""
    if clause.kind is not ClauseKind.REPLACE and not clause.text.strip():
        raise GameError(Refusal.NOTHING_TO_ADD, Facts(number=number, detail=clause.kind.value))
    if clause.kind is ClauseKind.INSERT and clause.position not in POSITIONS:
        raise GameError(Refusal.BAD_POSITION, Facts(number=number, text=clause.position))
    start, end, put = splice(number, text, clause)
    check_rule_size(number, _spliced_size(text, start, end, put), max_bytes)
    _check_changed(number, text, text[:start] + put + text[end:])


def _check_changed(number: int, text: str, edited: str) -> None:
    """Refuse an edit that changes nothing, or leaves the rule with no text (that is a repeal)."""
    if edited.strip() == text.strip():
        raise GameError(Refusal.EDIT_NO_CHANGE, Facts(number=number))
    if not edited.strip():
        raise GameError(Refusal.RULE_LEFT_EMPTY, Facts(number=number))


def _spliced_size(text: str, start: int, end: int, put: str) -> int:
    return len(text[:start].encode()) + len(put.encode()) + len(text[end:].encode())


def check_rule_size(number: int | None, size: int, max_bytes: int) -> None:
    """Refuse a rule text of ``size`` UTF-8 bytes over ``max_bytes``."""
    if size > max_bytes:
        raise GameError(Refusal.RULE_TOO_LONG, Facts(number=number, count=size,
                                                     limit=max_bytes))


def edited_size(text: str, clause: Clause) -> int:
    """Return how many UTF-8 bytes the rule's text would have once the edit is made.

    A REPLACE is counted without being made (every occurrence may multiply the text); an
    APPEND or INSERT adds no more than its own text, so it is simply made; an edit of a part
    is counted from its splice (units.py).
    """
    if clause.unit:
        try:
            return _spliced_size(text, *splice(0, text, clause))
        except GameError:
            return len(text.encode())
    if clause.kind is not ClauseKind.REPLACE:
        return len(edited_text(text, clause).encode())
    found = _made_at(text, clause.old, clause.every)
    new = len(clause.new.encode())
    removed = sum(len(text[start:end].encode()) for start, end in found)
    # A deletion may also take a space with it: counting it kept only errs on the long side.
    return len(text.encode()) - removed + new * len(found)


def _check_found(number: int, text: str, needle: str, every: bool,
                 missing: Refusal, repeated: Refusal) -> None:
    count = len(spans(text, needle))
    if count == 0:
        raise GameError(missing, Facts(number=number, text=needle))
    if count > 1 and not every:
        raise GameError(repeated, Facts(number=number, text=needle, count=count))


def edited_text(text: str, clause: Clause) -> str:
    """Return a rule's ``text`` once a REPLACE, APPEND or INSERT already checked is made.

    An edit of a part that is not there (unchecked) leaves the text as it is.
    """
    if clause.unit and clause.kind in EDITS:
        try:
            start, end, put = splice(0, text, clause)
        except GameError:
            return text
        return text[:start] + put + text[end:]
    if clause.kind is ClauseKind.APPEND:
        return text.rstrip() + appended_piece(text, clause.text)
    if clause.kind is ClauseKind.REPLACE:
        return _replaced(text, clause)
    if clause.kind is ClauseKind.INSERT:
        found = _made_at(text, clause.anchor, False)
        if not found:
            return text
        at = found[0][0] if clause.position == "before" else _past_stop(text, found[0][1],
                                                                         clause.text)
        return text[:at] + inserted_piece(text, at, clause.text, clause.position) + text[at:]
    raise ValueError(f"{clause.kind.value} does not edit a rule's text")


# A sentence's end: its stop, and the quotes or brackets that close after it.
_STOP = ".!?"
_CLOSES_AFTER_STOP = "\"'”’)]}"


def _past_stop(text: str, at: int, added: str) -> int:
    """Return where a text inserted after the words ending at ``at`` goes.

    Right after them, unless it is a sentence (it ends with a stop) and the words end one:
    then it goes after the stop and what closes with it, which stays with the words it ends
    ("... states otherwise. It is also ...", never "otherwise It is also ....").
    """
    sentence = added.rstrip().rstrip(_CLOSES_AFTER_STOP)
    if not sentence or sentence[-1] not in _STOP:
        return at
    end = at
    while end < len(text) and text[end] in _STOP:
        end += 1
    if end == at:
        return at
    while end < len(text) and text[end] in _CLOSES_AFTER_STOP:
        end += 1
    return end


def appended_piece(text: str, added: str) -> str:
    """Return what APPEND adds after the rule's text: a new paragraph, set off as the rule's are."""
    added = added.strip()
    if not added:
        return ""
    return (paragraph_separator(text) if text.strip() else "") + added


def _replaced(text: str, clause: Clause) -> str:
    found = _made_at(text, clause.old, clause.every)
    pieces: list[str] = []
    last = 0
    for start, end in found:
        pieces.append(text[last:start])
        if not clause.new and start > 0 and text[start - 1] == " " and (
                end == len(text) or text[end] in " \n" + _CLOSING):
            # Deleting words leaves no double space behind, nor a space before punctuation
            # or at the end of a line.
            pieces[-1] = pieces[-1][:-1]
        pieces.append(clause.new)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def inserted_piece(text: str, at: int, added: str, position: str) -> str:
    """Return what INSERT puts at index ``at`` of ``text``: ``added`` with its separator.

    Next to the anchor's line end (after) or line start (before), it becomes a line of its
    own; inside a line, it is set off by single spaces, unless it closes up (punctuation).
    """
    added = added.strip()
    left = text[at - 1] if at > 0 else "\n"
    right = text[at] if at < len(text) else "\n"
    if position == "after" and right == "\n":
        return "\n" + added
    if position == "before" and left == "\n":
        return added + "\n"
    before = "" if left.isspace() or added[:1] in _CLOSING else " "
    after = "" if right.isspace() or right in _CLOSING else " "
    return before + added + after
