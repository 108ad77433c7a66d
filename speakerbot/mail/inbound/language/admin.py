"""The Speaker's ``ADMIN`` command: each action's head and the :data:`ADMIN_ACTIONS` table."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import timedelta

from speakerbot.addresses import as_compared
from speakerbot.engine.durations import parse_duration
from speakerbot.mail.inbound.language import commands, pace, tokens
from speakerbot.mail.inbound.language.clauses import clause_head, finish_clause
from speakerbot.mail.inbound.language.results import Clause, ParseError
from speakerbot.mail.inbound.language.spec import AdminSpec, Block, Head, Outcome, Plan, plan


def _admin_add(line: int, rest: str) -> Outcome:
    words = rest.split(None, 1)
    usage = (
        "ADMIN ADD needs an email address and a display name, "
        "e.g. ADMIN ADD alice@example.org Alice Smith"
    )
    if len(words) < 2:
        return usage
    match = tokens.EMAIL.fullmatch(words[0])
    if match is None:
        return usage
    try:
        name = tokens.display_name(words[1], "ADMIN ADD")
    except ValueError as exc:
        return str(exc)
    return plan(commands.AdminAdd(line, as_compared(match.group(1)), name))


def _admin_player(action: str, make: Callable[[int, str], commands.Command]) -> Head:
    def head(line: int, rest: str) -> Outcome:
        if not rest.strip():
            return (
                f"ADMIN {action} needs a player's email address or display name, "
                f"e.g. ADMIN {action} alice@example.org"
            )
        return plan(make(line, tokens.player(rest)))

    return head


_SCORE = re.compile(r"(.+?)\s+([+\-\u2212\u2013][0-9]{1,9})(?:\s+(.*))?", re.DOTALL)


def _admin_score(line: int, rest: str) -> Outcome:
    match = _SCORE.fullmatch(rest.strip())
    if match is None:
        return (
            "ADMIN SCORE needs a player, a signed number and optionally a reason, "
            "e.g. ADMIN SCORE alice@example.org +5 solved the puzzle"
        )
    digits = int(match.group(2)[1:])
    delta = digits if match.group(2)[0] == "+" else -digits
    reason = " ".join((match.group(3) or "").split()) or None
    return plan(commands.AdminScore(line, tokens.player(match.group(1)), delta, reason))


_ADMIN_SET = re.compile(r"([A-Za-z][A-Za-z0-9_.-]*)\s*(?:=\s*|\s+)(\S.*?)\s*", re.DOTALL)


def _admin_set(line: int, rest: str) -> Outcome:
    match = _ADMIN_SET.fullmatch(rest.strip())
    if match is None:
        return "ADMIN SET needs a parameter name and a value, e.g. ADMIN SET quorum_percent 50"
    return plan(commands.AdminSet(line, match.group(1), match.group(2)))


def _admin_extend(line: int, rest: str) -> Outcome:
    words = rest.split(None, 1)
    usage = (
        "ADMIN EXTEND needs a proposal number and a duration, "
        "e.g. ADMIN EXTEND 301 2d or ADMIN EXTEND 301 1d12h"
    )
    proposal = tokens.number(words[0]) if words else None
    if proposal is None or len(words) < 2:
        return usage
    duration = words[1].strip()
    try:
        length = parse_duration(duration)
    except ValueError as exc:
        return f"ADMIN EXTEND: {exc}"
    if length <= timedelta(0):
        return "ADMIN EXTEND needs a duration longer than zero, e.g. ADMIN EXTEND 301 2d"
    return plan(commands.AdminExtend(line, proposal, duration))


def _admin_close(line: int, rest: str) -> Outcome:
    words = rest.split()
    proposal = tokens.number(words[0]) if len(words) == 1 else None
    if proposal is None:
        return "ADMIN CLOSE needs just a proposal number, e.g. ADMIN CLOSE 301"
    return plan(commands.AdminClose(line, proposal))


def _admin_void(line: int, rest: str) -> Outcome:
    words = rest.split(None, 1)
    proposal = tokens.number(words[0]) if words else None
    if proposal is None:
        return (
            "ADMIN VOID needs a proposal number and optionally a reason, "
            "e.g. ADMIN VOID 301 duplicate"
        )
    reason = " ".join(words[1].split()) if len(words) > 1 else None
    return plan(commands.AdminVoid(line, proposal, reason or None))


def _admin_rule(line: int, rest: str) -> Outcome:
    head = clause_head(rest, any_set=True)
    if head is None:
        return (
            "ADMIN RULE needs a clause, e.g. ADMIN RULE REPEAL RULE 105, "
            "ADMIN RULE SET quorum_percent = 50, "
            "or ADMIN RULE AMEND RULE 205: with the text on the next lines and END RULE after it"
        )
    if isinstance(head, str):
        return f"ADMIN RULE: {head}"
    if head.kind not in ("ENACT", "AMEND"):
        clause = finish_clause(head, [])
        assert isinstance(clause, Clause)  # only ENACT and AMEND can lack text
        return plan(commands.AdminRule(line, clause))
    first = head

    def build(block: Block | None) -> commands.Command | list[ParseError]:
        lines = block.lines if block is not None else ()
        for number, text in lines:
            if clause_head(text) is not None:
                return [
                    ParseError(
                        number,
                        tokens.shown(text),
                        f"ADMIN RULE (line {line}) takes one clause; give each clause its own "
                        "ADMIN RULE line",
                    )
                ]
        clause = finish_clause(first, [text for _, text in lines])
        if isinstance(clause, str):
            return [ParseError(line, "", f"ADMIN RULE: {clause}, then END RULE")]
        return commands.AdminRule(line, clause)

    return Plan(build, block="required", ends=("END RULE",), opener="ADMIN RULE")


def _admin_judge(line: int, rest: str) -> Outcome:
    words = rest.split(None, 1)
    cfj = tokens.number(words[0]) if words else None
    if cfj is None or len(words) < 2:
        return "ADMIN JUDGE needs a CFJ number and a player, e.g. ADMIN JUDGE 12 bob@example.org"
    return plan(commands.AdminJudge(line, cfj, tokens.player(words[1])))


def _admin_digest(line: int, rest: str) -> Outcome:
    return "ADMIN DIGEST takes nothing after it" if rest else plan(commands.AdminDigest(line))


def _admin_reveal(line: int, rest: str) -> Outcome:
    return ("ADMIN REVEAL takes nothing after it: it reveals the seed the game draws with now"
            if rest else plan(commands.AdminReveal(line)))


def _admin_done(line: int, rest: str) -> Outcome:
    words = rest.split(None, 1)
    item = tokens.number(words[0]) if words else None
    if item is None:
        return ("ADMIN DONE needs the number of an item of the hand work and optionally a "
                "reason, e.g. ADMIN DONE 3 rule 205 amended by hand")
    reason = " ".join(words[1].split()) if len(words) > 1 else None
    return plan(commands.AdminDone(line, item, reason or None))


def _game_words(verb: str, rest: str) -> str | None:
    """Return what follows ``<verb> GAME`` (maybe ""), or None when GAME is not there."""
    words = rest.split(None, 1)
    if not words or words[0].upper().rstrip(":") != "GAME":
        return None
    return words[1].strip() if len(words) > 1 else ""


def _admin_end(line: int, rest: str) -> Outcome:
    reason = _game_words("END", rest)
    if reason is None:
        return "ADMIN END needs GAME, e.g. ADMIN END GAME the season is over"
    return plan(commands.AdminEndGame(line, reason or None))


def _admin_new(line: int, rest: str) -> Outcome:
    ruleset = _game_words("NEW", rest)
    if ruleset is None:
        return "ADMIN NEW needs GAME, e.g. ADMIN NEW GAME or ADMIN NEW GAME suber"
    if ruleset and not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", ruleset):
        return (f"ADMIN NEW GAME takes a preset's name, or nothing for the configured one; "
                f"{tokens.shown(ruleset)} is not one")
    return plan(commands.AdminNewGame(line, ruleset.lower() or None))


ADMIN_ACTIONS: tuple[AdminSpec, ...] = (
    AdminSpec(
        "ADD", "<email> <name>", "add a player with this address and display name", _admin_add
    ),
    AdminSpec(
        "REMOVE",
        "<player>",
        "remove a player (by email address or display name)",
        _admin_player("REMOVE", commands.AdminRemove),
    ),
    AdminSpec(
        "SCORE",
        "<player> <+n|-n> [reason]",
        "add points to or take them from a player",
        _admin_score,
    ),
    AdminSpec("SET", "<parameter> <value>", "change a game parameter", _admin_set),
    AdminSpec(
        "EXTEND",
        "<n> <duration>",
        "extend voting on proposal n by 7d, 36h, 90m, 1d12h...",
        _admin_extend,
    ),
    AdminSpec("CLOSE", "<n>", "close voting on proposal n now", _admin_close),
    AdminSpec("VOID", "<n> [reason]", "void proposal n", _admin_void),
    AdminSpec(
        "RULE",
        "<clause>",
        "change the ruleset directly with one clause; ENACT and AMEND take the text on the "
        "following lines, ended by END RULE",
        _admin_rule,
    ),
    AdminSpec("JUDGE", "<cfj> <player>", "assign a judge to a CFJ", _admin_judge),
    AdminSpec(
        "SPEAKER",
        "<player>",
        "make another player the Speaker",
        _admin_player("SPEAKER", commands.AdminSpeaker),
    ),
    AdminSpec("END", "GAME [reason]", "end the game (the record keeps it)", _admin_end),
    AdminSpec("NEW", "GAME [ruleset]", "start the next game once the last is over, under "
              "the configured preset or the one named; the players carry over",
              _admin_new),
    AdminSpec("DONE", "<item> [reason]", "close an item of the hand work an adopted "
              "proposal left to the Speaker (STATUS lists them)", _admin_done),
    AdminSpec("DIGEST", "", "send the digest now", _admin_digest),
    AdminSpec("REVEAL", "", "reveal the seed the game's draws are made with now (every "
              "draw made with it can then be checked) and commit the next", _admin_reveal),
    # The pace of play (pace.py).
    AdminSpec("PAUSE", "[reason]", "pause the game: no vote closes, no deadline runs, no "
              "reminder goes out; proposals and ballots are still taken in", pace.admin_pause),
    AdminSpec("RESUME", "", "resume the game: every running deadline moves on by the time "
              "it was paused", pace.admin_resume),
    AdminSpec("ABSENT", "<player> UNTIL <YYYY-MM-DD> [reason]",
              "declare a player absent until that day (any length)", pace.admin_absent),
    AdminSpec("SKIP", "", "pass the turn of a mover who has not proposed to the next player",
              pace.admin_skip),
)
_ADMIN_LOOKUP: Mapping[str, AdminSpec] = {spec.action: spec for spec in ADMIN_ACTIONS}
# END and NEW are said with their GAME, as they are written.
_SAID = [spec.action + (" GAME" if spec.syntax.startswith("GAME") else "")
         for spec in ADMIN_ACTIONS]
_ADMIN_LIST = ", ".join(_SAID[:-1]) + " or " + _SAID[-1]


def head(line: int, rest: str) -> Outcome:
    """Read ``ADMIN <action> ...``: find the action and read the rest of the line by its head."""
    words = rest.split(None, 1)
    if not words:
        return f"ADMIN needs an action: {_ADMIN_LIST}"
    action = words[0].upper().rstrip(":")
    action_rest = words[1].strip() if len(words) > 1 else ""
    spec = _ADMIN_LOOKUP.get(action)
    if spec is None:
        for candidate in ADMIN_ACTIONS:
            if tokens.one_edit_apart(action, candidate.action) and not isinstance(
                candidate.head(line, action_rest), str
            ):
                return f"unknown ADMIN action {words[0]}; did you mean {candidate.action}?"
        return f"unknown ADMIN action {words[0]}; ADMIN needs one of {_ADMIN_LIST}"
    return spec.head(line, action_rest)


