"""Refusals as typed values: what kind of move the rules refuse, and the facts behind it.

The engine words nothing: a refused command is recorded as a ``Refusal`` with ``Facts``
(numbers, addresses, names, times), and the mail layer says it in English
(``speakerbot.mail.outbound.wording.refusal_text``). So the record names no mail command and
no CLI word, and the words can change without touching a stored game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Refusal(StrEnum):
    """One member per kind of refusal; the value is what the record stores."""

    # A refusal recorded before refusals were typed: its words are kept as they were.
    RECORDED = "recorded"
    # The game and its authority.
    NOT_STARTED = "not-started"
    GAME_ENDED = "game-ended"
    ALREADY_RUNNING = "already-running"
    UNKNOWN_MECHANIC = "unknown-mechanic"
    BAD_MECHANICS = "bad-mechanics"
    BAD_IMPORT = "bad-import"
    NOT_SPEAKER = "not-speaker"
    # Players and turns.
    NOT_A_PLAYER = "not-a-player"
    NO_SUCH_PLAYER = "no-such-player"
    NOT_AN_ADDRESS = "not-an-address"
    BAD_NAME = "bad-name"
    ALREADY_PLAYER = "already-player"
    LEFT_GAME = "left-game"
    IS_SPEAKER = "is-speaker"
    NAME_TAKEN = "name-taken"
    REGISTRATION_CLOSED = "registration-closed"
    SPEAKER_CANNOT_LEAVE = "speaker-cannot-leave"
    ALREADY_SPEAKER = "already-speaker"
    TURN_HELD_BY_CFJ = "turn-held-by-cfj"
    NO_TURN_WAITING = "no-turn-waiting"
    MOVER_CANNOT_AGREE = "mover-cannot-agree"
    NO_CFJ_HOLDING_TURN = "no-cfj-holding-turn"
    ALREADY_AGREED = "already-agreed"
    # Proposals and votes.
    NO_SUCH_PROPOSAL = "no-such-proposal"
    VOTE_OVER = "vote-over"
    BAD_TITLE = "bad-title"
    NO_TEXT = "no-text"
    TEXT_TOO_LONG = "text-too-long"
    NOT_YOUR_TURN = "not-your-turn"
    ALREADY_PROPOSED = "already-proposed"
    BALLOT_TOO_LATE = "ballot-too-late"
    SPEAKER_MAY_NOT_VOTE = "speaker-may-not-vote"
    CONSENT_NOT_SPEAKER = "consent-not-speaker"
    NO_CONSENT_RULE = "no-consent-rule"
    VOTING_PERIOD_OVER = "voting-period-over"
    ZERO_ADJUSTMENT = "zero-adjustment"
    NO_EXTENSION = "no-extension"
    # Clauses (checked when proposed, and again when carried out).
    BAD_SETTING = "bad-setting"
    ENACT_WITHOUT_TEXT = "enact-without-text"
    NO_IMMUTABLE_RULES = "no-immutable-rules"
    NO_SUCH_RULE = "no-such-rule"
    # A clause's condition on another proposal's fate that the record cannot settle yet.
    CONDITION_UNSETTLED = "condition-unsettled"
    NO_SUCH_HANDWORK = "no-such-handwork"  # no open item of the host's hand work by that number
    RULE_CHANGED_TWICE = "rule-changed-twice"
    RULE_IMMUTABLE = "rule-immutable"
    AMEND_WITHOUT_TEXT = "amend-without-text"
    AMEND_NO_CHANGE = "amend-no-change"
    NO_TRANSMUTATION = "no-transmutation"
    TRANSMUTED_ALREADY = "transmuted-already"
    ONE_NUMBER_PER_PROPOSAL = "one-number-per-proposal"
    TOO_MANY_MUTABLE_RULES = "too-many-mutable-rules"
    NO_MUTABLE_RULE_LEFT = "no-mutable-rule-left"
    RULE_NUMBER_TAKEN = "rule-number-taken"
    NO_FREE_RULE_NUMBER = "no-free-rule-number"
    # Changes to a rule's text as players write them (REPLACE, APPEND, INSERT).
    NOTHING_TO_REPLACE = "nothing-to-replace"
    NOTHING_TO_ADD = "nothing-to-add"
    TEXT_NOT_FOUND = "text-not-found"
    TEXT_NOT_UNIQUE = "text-not-unique"
    ANCHOR_NOT_FOUND = "anchor-not-found"
    ANCHOR_NOT_UNIQUE = "anchor-not-unique"
    BAD_POSITION = "bad-position"
    EDIT_NO_CHANGE = "edit-no-change"
    RULE_LEFT_EMPTY = "rule-left-empty"
    UNIT_NOT_FOUND = "unit-not-found"
    UNIT_NOT_UNIQUE = "unit-not-unique"
    UNIT_AFTER_EDIT = "unit-after-edit"
    RULE_TOO_LONG = "rule-too-long"
    # Judgement.
    NO_SUCH_CFJ = "no-such-cfj"
    BAD_STATEMENT = "bad-statement"
    ALREADY_JUDGED = "already-judged"
    NOT_THE_JUDGE = "not-the-judge"
    NO_OVERRULE_RULE = "no-overrule-rule"
    NOT_JUDGED_YET = "not-judged-yet"
    OVERRULE_CLOSED = "overrule-closed"
    OWN_JUDGEMENT = "own-judgement"
    ALREADY_OVERRULED = "already-overruled"
    NO_TURN_FOR_JUDGEMENT = "no-turn-for-judgement"
    NO_OTHER_JUDGE = "no-other-judge"
    NO_JUDGE_LEFT = "no-judge-left"
    NO_VOTER_TO_JUDGE = "no-voter-to-judge"
    # The game's draws (seeds.py).
    NO_SEED_TO_REVEAL = "no-seed-to-reveal"
    # The pace of play: pauses, absences, a turn's deadline.
    ALREADY_PAUSED = "already-paused"
    NOT_PAUSED = "not-paused"
    ABSENCE_IN_PAST = "absence-in-past"
    ABSENCE_TOO_LONG = "absence-too-long"
    NOT_ABSENT = "not-absent"
    NO_TURN_TO_SKIP = "no-turn-to-skip"
    MOVER_HAS_PROPOSED = "mover-has-proposed"

    # Debate before the vote (debate.py).
    IN_DEBATE = "in-debate"
    NOT_IN_DEBATE = "not-in-debate"
    REVISE_TOO_LATE = "revise-too-late"
    NO_REVISION_RULE = "no-revision-rule"
    NO_CALL_RULE = "no-call-rule"
    NOT_PROPOSER = "not-proposer"
    ARGUMENT_TOO_LONG = "argument-too-long"
    NO_ARGUMENT = "no-argument"

@dataclass(frozen=True)
class Facts:
    """The facts a refusal is made of; each kind of refusal uses the few it needs.

    Stored with the refusal, only the fields that differ from their defaults.
    """

    number: int | None = None  # the proposal, CFJ or rule concerned
    count: int | None = None  # how many there are, or would be
    limit: int | None = None  # how many are allowed, or the longest length
    rule: int | None = None  # the rule the refusal is made under
    numbers: tuple[int, ...] = ()  # several CFJs
    address: str = ""
    name: str = ""
    text: str = ""  # a word of the game: a status, an end reason, a judgement, a value's error
    detail: str = ""  # a second word of the game: a clause's kind, or a recorded remedy
    at: datetime | None = None
    deadline: datetime | None = None
    allowed: bool = False  # registration is open; or consent may let a held turn begin


NO_FACTS = Facts()


class GameError(Exception):
    """A move the rules do not allow: the kind of refusal and its facts (never words)."""

    def __init__(self, refusal: Refusal, facts: Facts = NO_FACTS) -> None:
        super().__init__(refusal.value)
        self.refusal = refusal
        self.facts = facts
