"""The command table: every keyword of the language, who may use it and how it is read.

One table, :data:`COMMANDS` (with :data:`~speakerbot.mail.inbound.language.admin.ADMIN_ACTIONS`
for the Speaker's ``ADMIN`` actions and :data:`SUBJECT_SHORTCUTS`), drives both the parser
and the HELP text, so the HELP reply always describes what is parsed.
"""

from __future__ import annotations

from collections.abc import Mapping

from speakerbot.engine.debate import MAX_ARGUMENT
from speakerbot.mail.inbound.language import pace
from speakerbot.mail.inbound.language.admin import _admin
from speakerbot.mail.inbound.language.debating import (
    DEBATE_ENDS,
    REVISE_ENDS,
    _call,
    _call_is_prose,
    _debate,
    _debate_is_prose,
    _revise,
    _revise_is_prose,
)
from speakerbot.mail.inbound.language.heads import (
    _JUDGEMENT_ENDS,
    _bare,
    _cfj,
    _confirm,
    _consent,
    _join,
    _judgement,
    _numbered,
    _password,
    _propose,
    _vote,
)
from speakerbot.mail.inbound.language.lookups import (
    _history,
    _history_is_prose,
    _show,
    _show_is_prose,
)
from speakerbot.mail.inbound.language.results import (
    HISTORY_DEFAULT,
    HISTORY_MAX,
    Forfeit,
    Help,
    Overrule,
    Refuse,
    Rules,
    Scores,
    Status,
)
from speakerbot.mail.inbound.language.spec import CommandSpec, SubjectShortcut

__all__ = ["COMMANDS", "NOT_TYPOS", "SUBJECT_SHORTCUTS"]


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("JOIN", "<display name>", "join the game under this name", "anyone", _join,
                example="JOIN Alice Smith"),
    CommandSpec(
        "VOTE",
        "<n> FOR|AGAINST|ABSTAIN",
        "vote on proposal n; YES and AYE mean FOR, NO and NAY mean AGAINST, "
        "ABSTAIN withdraws your earlier vote",
        "player",
        _vote,
        example="VOTE 301 FOR",
    ),
    CommandSpec(
        "PROPOSE",
        "<title>",
        "propose a change: the proposal's text follows on the next lines, ended by a line "
        "END PROPOSE",
        "player",
        _propose,
        example="PROPOSE Fair dice",
        ends=("END PROPOSE", "END PROPOSAL"),
    ),
    CommandSpec(
        "CFJ",
        "<statement>",
        "call for judgement on a statement (start it with PARADOX for a paradox); "
        "arguments may follow on the next lines, ended by END CFJ",
        "player",
        _cfj,
        example="CFJ Rule 105 allows dice",
        ends=("END CFJ",),
    ),
    CommandSpec(
        "JUDGEMENT",
        "<cfj> TRUE|FALSE|UNDECIDED",
        "judge a CFJ assigned to you; reasons may follow on the next lines, ended by "
        "END JUDGEMENT",
        "judge",
        _judgement,
        aliases=("JUDGMENT",),
        example="JUDGEMENT 12 TRUE",
        ends=_JUDGEMENT_ENDS,
    ),
    CommandSpec("DEBATE", "<n>",
                "argue about proposal n while it is in debate: your argument follows on the "
                f"next lines, ended by END DEBATE, and is sent to every player (at most "
                f"{MAX_ARGUMENT} characters; each counts as one of your replies of the day)",
                "player", _debate, example="DEBATE 301", ends=DEBATE_ENDS,
                prose=_debate_is_prose),
    CommandSpec("REVISE", "<n>",
                "revise your proposal n while it is in debate: its whole new text follows on "
                "the next lines, ended by END REVISE (clauses as in PROPOSE)",
                "player", _revise, example="REVISE 301", ends=REVISE_ENDS,
                prose=_revise_is_prose),
    CommandSpec("CALL", "VOTE <n>",
                "end the debate on your proposal n: its vote starts now", "player", _call,
                example="CALL VOTE 301", prose=_call_is_prose),
    CommandSpec("CONSENT", "<n> | TURN",
                "give your consent to proposal n where the rules ask for it; CONSENT TURN "
                "agrees that the next turn may begin while a CFJ is undecided",
                "player", _consent, example="CONSENT 301"),
    CommandSpec("REFUSE", "<n>", "refuse your consent to proposal n", "player",
                _numbered("REFUSE", "a proposal", Refuse), example="REFUSE 301"),
    CommandSpec("OVERRULE", "<cfj>", "vote to overrule the judgement of a CFJ", "player",
                _numbered("OVERRULE", "a CFJ", Overrule), example="OVERRULE 12"),
    CommandSpec("FORFEIT", "", "leave the game", "player", _bare(Forfeit), bare=True),
    CommandSpec("ABSENT", "UNTIL <YYYY-MM-DD> [reason]",
                "say you are away until that day: no reminders, not drawn as Judge; a missing "
                "ballot counts as usual", "player", pace.absent,
                example="ABSENT UNTIL 2026-12-01 on holiday", prose=pace.absent_is_prose),
    CommandSpec("BACK", "", "say you are back before the day you gave", "player", pace.back,
                bare=True),
    CommandSpec("CONFIRM", "<code>", "confirm a message the Speaker could not authenticate, "
                "with the code from its request", "anyone", _confirm,
                example="CONFIRM 3f9c2a7d41b0e8c6a5d2f1e0b9c8a7d6"),
    CommandSpec("STATUS", "", "get the state of the game: open proposals, CFJs, deadlines",
                "anyone", _bare(Status), bare=True),
    CommandSpec("RULES", "", "get the current ruleset", "anyone", _bare(Rules), bare=True),
    CommandSpec("SCORES", "", "get the scores", "anyone", _bare(Scores), bare=True),
    CommandSpec("SHOW", "PROPOSAL|RULE|CFJ <n>",
                "get proposal n (its text and clauses; once its vote is over, the result "
                "and every ballot), rule n with its history, or CFJ n with its judgement",
                "anyone", _show, example="SHOW RULE 105", prose=_show_is_prose),
    CommandSpec("HISTORY", "[<n>]",
                f"get the last n events of the game's public record ({HISTORY_DEFAULT} "
                f"without a number, at most {HISTORY_MAX})",
                "anyone", _history, example="HISTORY 50", alone=True,
                prose=_history_is_prose),
    CommandSpec("HELP", "", "get this help", "anyone", _bare(Help), bare=True),
    CommandSpec(
        "PASSWORD",
        "<password>",
        "the Speaker's password: needed in any message with ADMIN commands; never echoed",
        "Speaker",
        _password,
    ),
    CommandSpec("ADMIN", "<action> ...", "a Speaker command; the actions are listed below",
                "Speaker", _admin),
)  # fmt: skip
_LOOKUP: Mapping[str, CommandSpec] = {
    name: spec for spec in COMMANDS for name in (spec.verb, *spec.aliases)
}

SUBJECT_SHORTCUTS: tuple[SubjectShortcut, ...] = (
    SubjectShortcut(
        "PROPOSE: <title>", "the body (up to END PROPOSE or the end) is the proposal's text"
    ),
    SubjectShortcut("Proposal: <title>", "the same as PROPOSE: <title>"),
    SubjectShortcut("CFJ: <statement>", "the body (up to END CFJ or the end) holds the arguments"),
    SubjectShortcut(
        "JUDGEMENT <cfj>: TRUE|FALSE|UNDECIDED",
        "the body (up to END JUDGEMENT or the end) holds the reasons",
    ),
)


def _near_names() -> dict[int, list[tuple[CommandSpec, str]]]:
    by_length: dict[int, list[tuple[CommandSpec, str]]] = {}
    for spec in COMMANDS:
        for name in (spec.verb, *spec.aliases):
            if len(name) >= 4:  # keywords of three letters have no near misses
                by_length.setdefault(len(name), []).append((spec, name))
    return by_length


_NEAR_NAMES = _near_names()


_NEAR_BY_SIZE: dict[int, tuple[tuple[CommandSpec, str], ...]] = {
    size: (
        *_NEAR_NAMES.get(size - 1, ()),
        *_NEAR_NAMES.get(size, ()),
        *_NEAR_NAMES.get(size + 1, ()),
    )
    for size in range(1, max(_NEAR_NAMES) + 2)
}


def _near_candidates(key: str) -> tuple[tuple[CommandSpec, str], ...]:
    """Keywords whose length is within one of ``key``'s: the only possible near misses."""
    return _NEAR_BY_SIZE.get(len(key), ())


NOT_TYPOS: frozenset[str] = frozenset(
    {
        "JOHN", "JOAN", "JOINT", "COIN", "LOIN", "HELL", "HELD", "HELM", "YELP",
        "ROLES", "RULED", "RULER", "STATUE", "SCORED", "STORES",
    }
)  # fmt: skip
"""Real words one edit from a keyword that are never reported as a mistyped keyword."""

