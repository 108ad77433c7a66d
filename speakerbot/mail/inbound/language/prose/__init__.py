"""The prose reader: the rule changes players write in prose inside a proposal.

``Amend Rule 205 by replacing "one week" with "three days"`` is read into the same clauses
as ``AMEND RULE``; a change it does not understand is never guessed at: it is left to the
host and its line quoted back. The reader is split at its seams, one module a seam, so that
a form is found where its seam is:

- the top-level forms, and where reading starts: :mod:`.reading` (:func:`read_natural`,
  ``Amend Rule N by``, ``Repeal``, ``Enact``, ``Transmute``, ``Retitle``, the passive,
  ``Amend the following rules``; its docstring lists every form);
- how a rule is named: :mod:`.names` (``Rule 2143``, ``R2143/12``, a title after the
  number, lists of rules: ``Rules 5, 6 and 7``) and :mod:`.titles` (a rule named by its
  title alone, found among the rules in effect the service gives: :class:`RuleTitles`);
- how a text is quoted or set off: :mod:`.text` (a head wrapped over lines, quotations in
  straight or curly quotes, a text after a colon, a block below: indented, in braces, or
  up to a blank line; the cursor that walks the lines);
- the parts of a rule: :mod:`.parts` (a paragraph, sentence, list item or line, named by
  its first words, its whole text or its place: ``the last paragraph``);
- the edits: :mod:`.edits` (what follows ``Amend Rule N by`` or ``In Rule N,``: replacing,
  deleting, inserting, appending), :mod:`.below` (the edits written below a head ending in
  a colon, as list items or paragraphs) and :mod:`.whole` (the changes that name their rule
  after the change, or change its whole text: ``Amend Rule N to read:``);
- conditions on another proposal's fate: :mod:`.conditions` (``If Proposal N passed,``,
  ``Otherwise,``), the only conditions the game settles itself;
- what is quoted back: :mod:`.unread` (a line no form read that still speaks of changing a
  rule);
- the forms as HELP and the docs show them, each with an example a test reads:
  :mod:`.forms` (:data:`NATURAL_FORMS`).

A module imports only modules named before it in this order: text, titles, names, parts,
edits, below and whole, reading; unread and conditions stand on text alone, forms on none.
The rest of the language (:mod:`speakerbot.mail.inbound.language.clauses`, which reads a
proposal line by line, HELP, the parser) imports the reader through the names this package
hands on.
"""

from speakerbot.mail.inbound.language.prose.conditions import Scope, otherwise, read_condition
from speakerbot.mail.inbound.language.prose.forms import NATURAL_FORMS
from speakerbot.mail.inbound.language.prose.reading import read_natural
from speakerbot.mail.inbound.language.prose.text import is_end_rule, not_rule_text
from speakerbot.mail.inbound.language.prose.titles import RuleTitles, title_note, wants_titles
from speakerbot.mail.inbound.language.prose.unread import names_a_change, speaks_of_change

__all__ = [
    "NATURAL_FORMS",
    "RuleTitles",
    "Scope",
    "is_end_rule",
    "names_a_change",
    "not_rule_text",
    "otherwise",
    "read_condition",
    "read_natural",
    "speaks_of_change",
    "title_note",
    "wants_titles",
]
