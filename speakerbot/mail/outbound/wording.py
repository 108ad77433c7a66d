"""The words of the engine's refusals: what was wrong, and what to do instead.

The engine records a refusal as a kind (``Refusal``) and its facts; this module is the one
place that says them in English, naming the mail commands and CLI words a player or the
Speaker can act on. ``refusal_text`` words a refused command, ``clause_failure_text`` a clause
an adopted proposal could not carry out.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.refusals import Facts, Refusal
from speakerbot.mail.outbound.compose import format_time

R = Refusal

# Reason and remedy of each kind of refusal, as str.format templates over the facts (see
# ``_values``); an empty remedy is said without one.
_WORDS: dict[Refusal, tuple[str, str]] = {
    R.RECORDED: ("{text}", "{detail}"),
    R.NOT_STARTED: ("no game has started", "the Speaker starts one with speakerbot init"),
    R.GAME_ENDED: ("the game has ended{colon_text}", ""),
    R.ALREADY_RUNNING: ("a game is already running", "start over with speakerbot init --force"),
    R.UNKNOWN_MECHANIC: ("there is no mechanic called {name!r}", ""),
    R.BAD_MECHANICS: ("{text}", ""),
    R.BAD_IMPORT: ("the game cannot be imported: {text}", "correct the snapshot and import it "
                   "again"),
    R.NOT_SPEAKER: ("only the Speaker may do that", "ask the Speaker, {name}"),
    R.NOT_A_PLAYER: ("you are not a player in this game", "{join_remedy}"),
    R.NO_SUCH_PLAYER: ("there is no player {text!r}",
                       "name a player by address or display name; SCORES lists them"),
    R.NOT_AN_ADDRESS: ("{address!r} is not an email address", ""),
    R.BAD_NAME: ("a display name needs 1 to {limit} characters", ""),
    R.ALREADY_PLAYER: ("{address} is already a player, as {name}", ""),
    R.LEFT_GAME: ("you have left this game", "ask the Speaker to add you again"),
    R.IS_SPEAKER: ("{address} is the Speaker", ""),
    R.NAME_TAKEN: ("the name {name!r} is taken", "choose another display name"),
    R.REGISTRATION_CLOSED: ("this game does not take new players by email",
                            "ask the Speaker to add you"),
    R.SPEAKER_CANNOT_LEAVE: ("the Speaker cannot leave while holding the role",
                             "hand the Speaker role to another player first (ADMIN SPEAKER)"),
    R.ALREADY_SPEAKER: ("{address} is already the Speaker", ""),
    R.TURN_HELD_BY_CFJ: ("the next turn cannot begin while CFJ {listed} is undecided{per}",
                         "{consent_remedy}"),
    R.NO_TURN_WAITING: ("no turn is waiting to begin", ""),
    R.MOVER_CANNOT_AGREE: ("the other players, not the mover, agree to a turn beginning", ""),
    R.NO_CFJ_HOLDING_TURN: ("no CFJ is holding back the next turn", ""),
    R.ALREADY_AGREED: ("you have already agreed", ""),
    R.NO_SUCH_PROPOSAL: ("there is no proposal {number}", "STATUS lists the open proposals"),
    R.VOTE_OVER: ("the vote on proposal {number} is over ({text})", ""),
    R.BAD_TITLE: ("a proposal needs a title of 1 to {limit} characters", ""),
    R.NO_TEXT: ("the proposal has no text", "write it between PROPOSE and END PROPOSE"),
    R.TEXT_TOO_LONG: ("the proposal is longer than {limit} characters", ""),
    R.NOT_YOUR_TURN: ("it is {name}'s turn; only the player whose turn it is may propose{per}",
                      "wait for your turn"),
    R.ALREADY_PROPOSED: ("you have already proposed this turn (proposal {number})",
                         "one proposal per turn"),
    R.BALLOT_TOO_LATE: ("your ballot arrived at {at}, after the voting period on proposal "
                        "{number} ended at {deadline}, so the vote on proposal {number} is over "
                        "for it; it does not count", ""),
    R.SPEAKER_MAY_NOT_VOTE: ("the Speaker may not vote{per}", ""),
    R.CONSENT_NOT_SPEAKER: ("only the Speaker gives or refuses consent", ""),
    R.NO_CONSENT_RULE: ("this ruleset has no Speaker's consent", ""),
    R.VOTING_PERIOD_OVER: ("the voting period on proposal {number} is over", ""),
    R.ZERO_ADJUSTMENT: ("a score adjustment needs a change other than zero", ""),
    R.NO_EXTENSION: ("an extension must be longer than zero", ""),
    R.BAD_SETTING: ("SET {name}: {text}", ""),
    R.ENACT_WITHOUT_TEXT: ("ENACT RULE needs the new rule's text", ""),
    R.NO_IMMUTABLE_RULES: ("this ruleset has no immutable rules", "enact it as a rule"),
    R.NO_SUCH_RULE: ("there is no rule {number} in effect", "RULES lists them"),
    R.CONDITION_UNSETTLED: ("its condition cannot be settled from the record: the proposal it "
                            "names is {text}", ""),
    R.NO_SUCH_HANDWORK: ("there is no open item {number} of the Speaker's hand work",
                         "STATUS lists the open items"),
    R.RULE_CHANGED_TWICE: ("rule {number} is changed by two clauses",
                           "make it one clause, or split the proposal"),
    R.RULE_IMMUTABLE: ("rule {number} is immutable, so it cannot be {detail_lower}ed",
                       "transmute it first: propose TRANSMUTE RULE {number}, and once that is "
                       "adopted, {detail} RULE {number}"),
    R.AMEND_WITHOUT_TEXT: ("AMEND RULE {number} needs the rule's new full text", ""),
    R.AMEND_NO_CHANGE: ("AMEND RULE {number} would make no difference", ""),
    R.NO_TRANSMUTATION: ("this ruleset has no immutability, so nothing can be transmuted", ""),
    R.TRANSMUTED_ALREADY: ("rule {number} is {detail} already, so it cannot be transmuted to "
                           "{detail}", "leave that change out of the proposal"),
    R.ONE_NUMBER_PER_PROPOSAL: ("this proposal would give {count} rules the number {number}",
                                "under this ruleset a proposal may enact or renumber only one "
                                "rule: split it into several proposals"),
    R.TOO_MANY_MUTABLE_RULES: ("there would be {count} mutable rules; at most {limit} are "
                               "allowed{per}", "repeal a mutable rule in the same proposal"),
    R.NO_MUTABLE_RULE_LEFT: ("there must always be at least one mutable rule", ""),
    R.RULE_NUMBER_TAKEN: ("there is already a rule {number}", ""),
    R.NO_FREE_RULE_NUMBER: ("no free rule number is left below the proposal numbers",
                            "enact it by proposal instead"),
    R.NOTHING_TO_REPLACE: ("the change to rule {number} does not say which text to replace",
                           'write: Amend Rule {number} by replacing "old text" with "new text"'),
    R.NOTHING_TO_ADD: ("the change to rule {number} has no text to {detail_lower}", ""),
    R.TEXT_NOT_FOUND: ("rule {number} does not contain the text {quoted}",
                       "quote the words exactly as rule {number} reads them (RULES shows it)"),
    R.TEXT_NOT_UNIQUE: ("the text {quoted} stands {count} times in rule {number}",
                        "quote more of the text around it so that it stands once, or write "
                        "\"every occurrence of\" to replace them all"),
    R.ANCHOR_NOT_FOUND: ("rule {number} does not contain the text {quoted} to insert next to",
                         "quote the words exactly as rule {number} reads them (RULES shows it)"),
    R.ANCHOR_NOT_UNIQUE: ("the text {quoted} stands {count} times in rule {number}, so it does "
                          "not say where to insert", "quote more of the text around it so that "
                          "it stands once"),
    R.BAD_POSITION: ("text can be inserted before or after other text, not {text!r}", ""),
    R.EDIT_NO_CHANGE: ("the change to rule {number} would make no difference", ""),
    R.RULE_LEFT_EMPTY: ("the change would leave rule {number} with no text",
                        "to remove rule {number}, repeal it: Repeal Rule {number}"),
    R.UNIT_NOT_FOUND: ("{unit_missing}", "SHOW RULE {number} shows its text as it stands"),
    R.UNIT_NOT_UNIQUE: ("{count} {units} of rule {number} begin {quoted}, so the change does "
                        "not say which", "quote more of its beginning"),
    R.UNIT_AFTER_EDIT: ("the changes to rule {number} name a part by its place, or by text "
                        "another of them adds, after another change to it",
                        "name each part by its beginning as the rule reads now, or make the "
                        "changes in separate proposals"),
    R.RULE_TOO_LONG: ("{the_rule} would be {count} bytes long, over the limit of {limit} "
                      "bytes for a rule's text", "make the change smaller"),
    R.NO_SUCH_CFJ: ("there is no CFJ {number}", "STATUS lists the open CFJs"),
    R.BAD_STATEMENT: ("a CFJ needs a statement of 1 to {limit} characters", ""),
    R.ALREADY_JUDGED: ("CFJ {number} has already been judged{space_text}", ""),
    R.NOT_THE_JUDGE: ("only the Judge of CFJ {number}, {name}, may judge it", ""),
    R.NO_OVERRULE_RULE: ("this ruleset has no overrule of judgements", ""),
    R.NOT_JUDGED_YET: ("CFJ {number} has not been judged yet", ""),
    R.OVERRULE_CLOSED: ("the judgement of CFJ {number} can no longer be overruled: "
                        "the next turn has begun", ""),
    R.OWN_JUDGEMENT: ("the Judge cannot overrule their own judgement", ""),
    R.ALREADY_OVERRULED: ("you have already voted to overrule CFJ {number}", ""),
    R.NO_TURN_FOR_JUDGEMENT: ("judgement needs a turn in progress", ""),
    R.NO_OTHER_JUDGE: ("there is no other player to judge", ""),
    R.NO_JUDGE_LEFT: ("there is no player left who may judge", ""),
    R.NO_VOTER_TO_JUDGE: ("there is no Voter who may judge", ""),
    R.NO_SEED_TO_REVEAL: ("the game holds no seed to reveal (a game recorded before draws "
                          "were provable is given one at its next move)", ""),
    # The pace of play.
    R.ALREADY_PAUSED: ("the game is already paused (since {at}{colon_text})",
                       "ADMIN RESUME resumes it"),
    R.NOT_PAUSED: ("the game is not paused", "ADMIN PAUSE [reason] pauses it"),
    R.ABSENCE_IN_PAST: ("an absence must end after now ({deadline}), and {at} does not",
                        "give a later date, e.g. ABSENT UNTIL YYYY-MM-DD"),
    R.ABSENCE_TOO_LONG: ("an absence may last at most {text}: until {deadline} at the latest, "
                         "not {at}", "give an earlier date, or ask the Speaker (ADMIN ABSENT "
                         "<player> UNTIL <date> has no limit)"),
    R.NOT_ABSENT: ("you are not absent", "ABSENT UNTIL YYYY-MM-DD [reason] declares an absence"),
    R.NO_TURN_TO_SKIP: ("there is no turn to skip: this game is not played in turns", ""),
    R.MOVER_HAS_PROPOSED: ("{name} has proposed this turn (proposal {number}); the turn ends "
                           "when its vote closes", "ADMIN CLOSE {number} closes the vote now"),
    # Debate before the vote.
    R.IN_DEBATE: ("proposal {number} is in debate{per}: voting starts when the debate ends, "
                  "at {deadline} at the latest", "{debate_remedy}"),
    R.NOT_IN_DEBATE: ("proposal {number} is not in debate: {not_debating}",
                      "vote on it with VOTE {number} FOR or VOTE {number} AGAINST"),
    R.REVISE_TOO_LATE: ("the vote on proposal {number} has started, so the proposal can no "
                        "longer be revised", "vote on it as it stands; a change can be "
                        "proposed again later"),
    R.NO_REVISION_RULE: ("under these rules proposal {number} is voted on in the form it was "
                         "distributed{per}", "argue for a change with DEBATE {number} ... END "
                         "DEBATE while it is in debate, or propose the change again later"),
    R.NO_CALL_RULE: ("the vote on proposal {number} starts by itself when its debate ends, at "
                     "{deadline}{per}", "argue with DEBATE {number} ... END DEBATE until then"),
    R.NOT_PROPOSER: ("only proposal {number}'s proposer, {name}, may revise it or call its vote",
                     "argue for your change with DEBATE {number} ... END DEBATE"),
    R.ARGUMENT_TOO_LONG: ("the argument on proposal {number} has {count} characters; at most "
                          "{limit} go to every player", "shorten it, or say it in two messages"),
    R.NO_ARGUMENT: ("the DEBATE block on proposal {number} holds no argument",
                    "write your argument on the lines between DEBATE {number} and END DEBATE"),
}


def refusal_text(rejected: e.CommandRejected) -> tuple[str, str]:
    """Say why a command was refused: (reason, remedy); the remedy may be empty."""
    return refusal_words(rejected.refusal, rejected.facts)


def clause_failure_text(failed: e.ClauseFailed) -> str:
    """Say why an adopted proposal's clause could not be carried out."""
    return refusal_words(failed.refusal, failed.facts)[0]


def refusal_words(refusal: Refusal, facts: Facts) -> tuple[str, str]:
    """Say any refusal with its facts: (reason, remedy)."""
    reason, remedy = _WORDS[refusal]
    values = _values(facts)
    return reason.format(**values), remedy.format(**values)


def when(moment: datetime) -> str:
    """Write a moment as refusals give it: in UTC as ``2026-01-12 12:00 UTC``."""
    if moment.utcoffset() == timedelta(0):
        return format_time(moment)
    return moment.isoformat(timespec="minutes")


_Derived = Callable[[Facts], Any]

# Words made from the facts, for the templates above.
_DERIVED: dict[str, _Derived] = {
    "per": lambda f: f" (rule {f.rule})" if f.rule is not None else "",
    "listed": lambda f: ", ".join(str(n) for n in f.numbers),
    "colon_text": lambda f: f": {f.text}" if f.text else "",
    "space_text": lambda f: f" {f.text}" if f.text else "",
    "detail_lower": lambda f: f.detail.lower(),
    "the_rule": lambda f: f"rule {f.number}" if f.number is not None else "the new rule",
    "quoted": lambda f: _quoted(f.text),
    "units": lambda f: _unit_word(f, 0),
    "unit_missing": lambda f: _unit_missing(f),
    "join_remedy": lambda f: (
        "send JOIN <your name> to join" if f.allowed else "ask the Speaker to add you"),
    "consent_remedy": lambda f: (
        "wait for the judgement, or for a majority of the other players to agree "
        f"(each sends CONSENT TURN); {f.count} of {f.limit} have"
        if f.allowed else "play resumes once the Judge has settled it"),
    "debate_remedy": lambda f: (
        f"argue with DEBATE {f.number} ... END DEBATE meanwhile"
        + (f"; its proposer may start the vote sooner with CALL VOTE {f.number}"
           if f.allowed else "") + "; vote once the vote is announced"),
    "not_debating": lambda f: (
        "its vote has started" if f.allowed else "proposals in this game are voted on at once"),
    "at": lambda f: when(f.at) if f.at is not None else "",
    "deadline": lambda f: when(f.deadline) if f.deadline is not None else "",
}


def _unit_word(facts: Facts, count: int = 1) -> str:
    """Name the part of a rule an edit works on (``detail``), in the plural unless one."""
    word = "list item" if facts.detail == "item" else facts.detail.lower() or "part"
    return word if count == 1 else word + "s"


def _unit_missing(facts: Facts) -> str:
    """Say which part of a rule an edit named and the rule does not have."""
    count = facts.count or 0
    if facts.text:
        return f"rule {facts.number} has no {_unit_word(facts)} beginning {_quoted(facts.text)}"
    if count == 0:
        return f"rule {facts.number} has no {_unit_word(facts, 0)}"
    if not facts.limit:
        return f"the change to rule {facts.number} does not say which {_unit_word(facts)}"
    return f"rule {facts.number} has only {count} {_unit_word(facts, count)}"


def _quoted(text: str, limit: int = 60) -> str:
    """Quote a rule's words in a refusal, on one line and cut short if long."""
    words = " ".join(text.split())
    return '"' + (words if len(words) <= limit else words[:limit - 1].rstrip() + "…") + '"'


def _values(facts: Facts) -> dict[str, Any]:
    values: dict[str, Any] = {name: getattr(facts, name) for name in facts.__dataclass_fields__}
    values.update({name: derive(facts) for name, derive in _DERIVED.items()})
    return values
