"""The command language players and the Speaker write in the body of their mail.

:func:`parse_commands` reads a Subject and a plain-text body into a
:class:`ParseResult`: the commands found, the errors (lines that were meant as
commands but cannot be read), and the prose lines that were ignored. The caller
applies a message atomically: any error means nothing in it is applied.

One table, :data:`COMMANDS` (with :data:`ADMIN_ACTIONS` for the Speaker's
``ADMIN`` actions and :data:`SUBJECT_SHORTCUTS`), drives both the parser and
:func:`help_text`, so the HELP reply always describes what is parsed.

The package is split by part of the language:

- :mod:`.commands`: the commands a message is read into (and their JSON);
- :mod:`.results`: the errors, ignored lines and result, and the limits of one message;
- :mod:`.spec`: the shapes of the command table; :mod:`.tokens`: the small token readers;
- :mod:`.clauses`: ENACT, AMEND, REPEAL, TRANSMUTE and SET inside a proposal;
- :mod:`.prose`: the rule changes players write in prose, a package with a map of its forms;
- :mod:`.heads`, :mod:`.lookups`, :mod:`.debating`, :mod:`.pace` and :mod:`.admin`: how
  each keyword's line is read;
- :mod:`.grammar`: the command table; :mod:`.help`: the HELP text built from it;
- :mod:`.blocks`: blocks, END lines, and where reading stops;
- :mod:`.parsing`: the Subject, the body and the result; :mod:`.password`: redaction.

Line numbers
    The body is split into lines at LF, CRLF or a lone CR (nothing else: no
    Unicode line separators), after a leading byte-order mark is removed. The
    first line is line 1; :func:`speakerbot.mail.inbound.reading.read_message` has
    already decoded the transfer encoding and charset and unwrapped
    ``format=flowed`` text, so these are the lines the sender sees in their
    mail client. A command taken from the Subject has line 0, and so have errors
    that concern the whole message.

What is skipped without being listed
    Blank lines; quoted lines (first non-blank character ``>``); everything from
    a signature delimiter (a line that is ``--`` once surrounding white space is
    removed, so ``-- `` and ``--``) on; everything from a line that is only
    ``END``, ``THANKS`` or ``STOP`` (any case, surrounding white space and
    trailing ``.``, ``!`` or ``,`` allowed) on; everything from the start of a
    quoted history that mail clients do not mark with ``>``: a line such as
    ``-----Original Message-----``, ``-------- Forwarded Message --------``,
    ``Begin forwarded message:``, a line of ten or more underscores, or a
    ``From:`` line followed by a ``Sent:`` or ``Date:`` line (the header block
    Outlook puts above the message it replies to).

What is listed as ignored
    Any other line whose first word is not a keyword (prose), lines that
    start with a keyword taking no arguments but do not hold it alone, and lines
    that start with SHOW or HISTORY but go on as a sentence (``Show me the
    money``: see :mod:`.lookups`).
"""

from speakerbot.mail.inbound.language.admin import ADMIN_ACTIONS
from speakerbot.mail.inbound.language.clauses import clauses_of
from speakerbot.mail.inbound.language.commands import (
    Absent,
    AdminAbsent,
    AdminAdd,
    AdminClose,
    AdminCommand,
    AdminDigest,
    AdminDone,
    AdminEndGame,
    AdminExtend,
    AdminJudge,
    AdminNewGame,
    AdminPause,
    AdminRemove,
    AdminResume,
    AdminReveal,
    AdminRule,
    AdminScore,
    AdminSet,
    AdminSkip,
    AdminSpeaker,
    AdminVoid,
    Back,
    CallVote,
    Cfj,
    Command,
    Confirm,
    Consent,
    ConsentTurn,
    Debate,
    DigestMode,
    Forfeit,
    Help,
    History,
    Join,
    Judgement,
    Observe,
    Overrule,
    Propose,
    Refuse,
    Revise,
    Rules,
    Scores,
    Show,
    ShowWhat,
    Status,
    Unobserve,
    Vote,
    clause_json,
)
from speakerbot.mail.inbound.language.grammar import COMMANDS, NOT_TYPOS, SUBJECT_SHORTCUTS
from speakerbot.mail.inbound.language.help import every_help, help_text
from speakerbot.mail.inbound.language.parsing import parse_commands
from speakerbot.mail.inbound.language.password import redact
from speakerbot.mail.inbound.language.plain import Suggestion, suggestion
from speakerbot.mail.inbound.language.prose import wants_titles
from speakerbot.mail.inbound.language.results import (
    HISTORY_DEFAULT,
    HISTORY_MAX,
    MAX_COMMAND_LINES,
    Choice,
    Clause,
    ClauseKind,
    IgnoredLine,
    JudgementValue,
    ParseError,
    ParseResult,
    Who,
)
from speakerbot.mail.inbound.language.spec import AdminSpec, CommandSpec, SubjectShortcut
from speakerbot.mail.inbound.language.tokens import one_edit_apart

__all__ = [
    "ADMIN_ACTIONS",
    "COMMANDS",
    "HISTORY_DEFAULT",
    "HISTORY_MAX",
    "MAX_COMMAND_LINES",
    "NOT_TYPOS",
    "SUBJECT_SHORTCUTS",
    "Absent",
    "AdminAbsent",
    "AdminAdd",
    "AdminClose",
    "AdminCommand",
    "AdminDigest",
    "AdminDone",
    "AdminEndGame",
    "AdminExtend",
    "AdminJudge",
    "AdminNewGame",
    "AdminPause",
    "AdminRemove",
    "AdminResume",
    "AdminReveal",
    "AdminRule",
    "AdminScore",
    "AdminSet",
    "AdminSkip",
    "AdminSpeaker",
    "AdminSpec",
    "AdminVoid",
    "Back",
    "CallVote",
    "Cfj",
    "Choice",
    "Clause",
    "ClauseKind",
    "Command",
    "CommandSpec",
    "Confirm",
    "Consent",
    "ConsentTurn",
    "Debate",
    "DigestMode",
    "Forfeit",
    "Help",
    "History",
    "IgnoredLine",
    "Join",
    "Judgement",
    "JudgementValue",
    "Observe",
    "Overrule",
    "ParseError",
    "ParseResult",
    "Propose",
    "Refuse",
    "Revise",
    "Rules",
    "Scores",
    "Show",
    "ShowWhat",
    "Status",
    "SubjectShortcut",
    "Suggestion",
    "Unobserve",
    "Vote",
    "Who",
    "clause_json",
    "clauses_of",
    "every_help",
    "help_text",
    "one_edit_apart",
    "parse_commands",
    "redact",
    "suggestion",
    "wants_titles",
]
