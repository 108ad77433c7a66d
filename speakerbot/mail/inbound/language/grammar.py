"""The command table: every keyword of the language, who may use it and how it is read.

One table, :data:`COMMANDS` (with :data:`~speakerbot.mail.inbound.language.admin.ADMIN_ACTIONS`
for the Speaker's ``ADMIN`` actions and :data:`SUBJECT_SHORTCUTS`), drives both the parser
and the HELP text, so the HELP reply always describes what is parsed.
"""

from __future__ import annotations

from collections.abc import Mapping

from speakerbot.engine.debate import MAX_ARGUMENT
from speakerbot.mail.inbound.language import admin, debating, heads, lookups, pace
from speakerbot.mail.inbound.language.commands import (
    Forfeit,
    Observe,
    Overrule,
    Refuse,
    Rules,
    Scores,
    Status,
    Unobserve,
)
from speakerbot.mail.inbound.language.results import HISTORY_DEFAULT, HISTORY_MAX
from speakerbot.mail.inbound.language.spec import CommandSpec, SubjectShortcut

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("JOIN", "<display name>", "join the game under this name", "anyone", heads.join,
                example="JOIN Alice Smith"),
    CommandSpec(
        "VOTE",
        "<n> FOR|AGAINST|ABSTAIN",
        "vote on proposal n; YES and AYE mean FOR, NO and NAY mean AGAINST, "
        "ABSTAIN withdraws your earlier vote",
        "player",
        heads.vote,
        example="VOTE 301 FOR",
    ),
    CommandSpec(
        "PROPOSE",
        "<title>",
        "propose a change: the proposal's text follows on the next lines, ended by a line "
        "END PROPOSE",
        "player",
        heads.propose,
        example="PROPOSE Fair dice",
        ends=heads.PROPOSE_ENDS,
    ),
    CommandSpec(
        "CFJ",
        "<statement>",
        "call for judgement on a statement (start it with PARADOX for a paradox); "
        "arguments may follow on the next lines, ended by END CFJ",
        "player",
        heads.cfj,
        example="CFJ Rule 105 allows dice",
        ends=heads.CFJ_ENDS,
    ),
    CommandSpec(
        "JUDGEMENT",
        "<cfj> TRUE|FALSE|UNDECIDED",
        "judge a CFJ assigned to you; reasons may follow on the next lines, ended by "
        "END JUDGEMENT",
        "judge",
        heads.judgement,
        aliases=("JUDGMENT",),
        example="JUDGEMENT 12 TRUE",
        ends=heads.JUDGEMENT_ENDS,
    ),
    CommandSpec("DEBATE", "<n>",
                "argue about proposal n while it is in debate: your argument follows on the "
                f"next lines, ended by END DEBATE, and is sent to every player (at most "
                f"{MAX_ARGUMENT} characters; each counts as one of your replies of the day)",
                "player", debating.debate, example="DEBATE 301", ends=debating.DEBATE_ENDS,
                prose=debating.debate_is_prose),
    CommandSpec("REVISE", "<n>",
                "revise your proposal n while it is in debate: its whole new text follows on "
                "the next lines, ended by END REVISE (clauses as in PROPOSE)",
                "player", debating.revise, example="REVISE 301", ends=debating.REVISE_ENDS,
                prose=debating.revise_is_prose),
    CommandSpec("CALL", "VOTE <n>",
                "end the debate on your proposal n: its vote starts now", "player", debating.call,
                example="CALL VOTE 301", prose=debating.call_is_prose),
    CommandSpec("CONSENT", "<n> | TURN",
                "give your consent to proposal n where the rules ask for it; CONSENT TURN "
                "agrees that the next turn may begin while a CFJ is undecided",
                "player", heads.consent, example="CONSENT 301"),
    CommandSpec("REFUSE", "<n>", "refuse your consent to proposal n", "player",
                heads.numbered("REFUSE", "a proposal", Refuse), example="REFUSE 301"),
    CommandSpec("OVERRULE", "<cfj>", "vote to overrule the judgement of a CFJ", "player",
                heads.numbered("OVERRULE", "a CFJ", Overrule), example="OVERRULE 12"),
    CommandSpec("FORFEIT", "", "leave the game", "player", heads.bare(Forfeit), bare=True),
    CommandSpec("ABSENT", "UNTIL <YYYY-MM-DD> [reason]",
                "say you are away until that day: no reminders, not drawn as Judge; a missing "
                "ballot counts as usual", "player", pace.absent,
                example="ABSENT UNTIL 2026-12-01 on holiday", prose=pace.absent_is_prose),
    CommandSpec("BACK", "", "say you are back before the day you gave", "player", pace.back,
                bare=True),
    CommandSpec("CONFIRM", "<code>", "confirm a message the Speaker could not authenticate, "
                "with the code from its request", "anyone", heads.confirm,
                example="CONFIRM 3f9c2a7d41b0e8c6a5d2f1e0b9c8a7d6"),
    CommandSpec("OBSERVE", "", "follow the game without playing: its public mail (proposals, "
                "results, judgements, digests) comes to you once you confirm with the code "
                "the Speaker sends", "anyone", heads.bare(Observe), bare=True),
    CommandSpec("UNOBSERVE", "", "stop following the game (also as the Subject alone)",
                "anyone", heads.bare(Unobserve), bare=True),
    CommandSpec("DIGEST", "ON|OFF",
                "DIGEST ON: get the game's public mail once a day, in one digest at the hour "
                "the game sets, instead of each message as it is sent (replies, requests and "
                "reminders still come at once); DIGEST OFF: each message again",
                "anyone", pace.digest_mode, example="DIGEST ON", prose=pace.digest_is_prose),
    CommandSpec("STATUS", "", "get the state of the game: open proposals, CFJs, deadlines",
                "anyone", heads.bare(Status), bare=True),
    CommandSpec("RULES", "", "get the current ruleset", "anyone", heads.bare(Rules), bare=True),
    CommandSpec("SCORES", "", "get the scores", "anyone", heads.bare(Scores), bare=True),
    CommandSpec("SHOW", "PROPOSAL|RULE|CFJ <n>",
                "get proposal n (its text and clauses; once its vote is over, the result "
                "and every ballot), rule n with its history, or CFJ n with its judgement; "
                "SHOW MECHANICS gets every mechanic in force, its value and where it comes from",
                "anyone", lookups.show, example="SHOW RULE 105", prose=lookups.show_is_prose),
    CommandSpec("HISTORY", "[<n>]",
                f"get the last n events of the game's public record ({HISTORY_DEFAULT} "
                f"without a number, at most {HISTORY_MAX})",
                "anyone", lookups.history, example="HISTORY 50", alone=True,
                prose=lookups.history_is_prose),
    CommandSpec("HELP", "[<topic>]", "get the index of help, or one topic: a command's name "
                "(HELP VOTE) or RULES, ADMIN, DIGEST, SUBJECT, READING",
                "anyone", lookups.help_topic, example="HELP VOTE", alone=True,
                prose=lookups.help_is_prose),
    CommandSpec(
        "PASSWORD",
        "<password>",
        "the Speaker's password: needed in any message with ADMIN commands; never echoed",
        "Speaker",
        heads.password,
    ),
    CommandSpec("ADMIN", "<action> ...", "a Speaker command; the actions are listed below",
                "Speaker", admin.head),
)  # fmt: skip
KEYWORDS: Mapping[str, CommandSpec] = {
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


def near_candidates(key: str) -> tuple[tuple[CommandSpec, str], ...]:
    """Keywords whose length is within one of ``key``'s: the only possible near misses."""
    return _NEAR_BY_SIZE.get(len(key), ())


NOT_TYPOS: frozenset[str] = frozenset(
    {
        "JOHN", "JOAN", "JOINT", "COIN", "LOIN", "HELL", "HELD", "HELM", "YELP",
        "ROLES", "RULED", "RULER", "STATUE", "SCORED", "STORES", "DIGESTS", "DIVEST",
    }
)  # fmt: skip
"""Real words one edit from a keyword that are never reported as a mistyped keyword."""

