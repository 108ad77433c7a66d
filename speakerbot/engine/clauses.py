"""Clauses: one check of the rules a rule change must keep, and carrying clauses out.

A proposal's clauses are checked when it is proposed (``check_proposal``); when it is adopted,
and when the Speaker edits the rules directly, each clause is checked again by the same rules
(``check_clause``, ``check_mutable_count``) against the rules as they then stand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from speakerbot.engine import events as e
from speakerbot.engine.edits import EDITS, check_edit, check_rule_size, edited_text
from speakerbot.engine.fates import settle_conditions
from speakerbot.engine.handwork import open_handwork
from speakerbot.engine.mechanics import PARAMETERS, Numbering, parse_setting
from speakerbot.engine.model import Clause, ClauseKind, Rule
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal
from speakerbot.engine.rereading import read_enacted, reread
from speakerbot.engine.units import choose, folded_beginning, parts

# REPLACE, APPEND and INSERT are amendments written as edits: they are refused on an
# immutable rule, and renumber the rule, exactly as AMEND does.
_CHANGES_TEXT = (ClauseKind.AMEND, ClauseKind.REPEAL, *EDITS)
_RENUMBERS = (ClauseKind.AMEND, ClauseKind.TRANSMUTE, *EDITS)
# A retitling changes the rule (refused on an immutable one, as an amendment is) but not its
# text or number; a proposal may retitle a rule it also edits.
_AMENDS = (*EDITS, ClauseKind.RETITLE)
_UNTOUCHING = (ClauseKind.SET, ClauseKind.ENACT, ClauseKind.RETITLE)


def check_proposal(play: Play, clauses: Sequence[Clause], proposal: int) -> None:
    """Refuse a proposal's clauses if any could not be carried out, or not all together.

    Several edits (REPLACE, APPEND, INSERT) of one rule are allowed, as players write them:
    each is checked against the text the ones before it leave. A clause under a condition
    on another proposal's fate is checked when that is settled, at adoption: the text it
    edits may be one the other proposal is to bring.
    """
    touched: set[int] = set()
    edited: dict[int, str] = {}  # rule -> its text once this proposal's edits so far are made
    numbered = 0
    clauses = [clause for clause in clauses if clause.condition is None]
    for clause in clauses:
        if clause.kind in EDITS and clause.rule in edited:
            assert clause.rule is not None
            check_edit(clause.rule, edited[clause.rule], clause, play.max_rule_bytes)
            check_later_edit(clause.rule, play.state.rules[clause.rule].text,
                             edited[clause.rule], clause)
            edited[clause.rule] = edited_text(edited[clause.rule], clause)
            continue
        if clause.kind not in _UNTOUCHING and clause.rule in touched:
            raise GameError(Refusal.RULE_CHANGED_TWICE, Facts(number=clause.rule))
        check_clause(play, clause, proposal, by_speaker=False)
        if clause.kind in EDITS and clause.rule is not None:
            edited[clause.rule] = edited_text(play.state.rules[clause.rule].text, clause)
        if clause.rule is not None and clause.kind not in _UNTOUCHING:
            touched.add(clause.rule)
        if _takes_proposal_number(play, clause):
            numbered += 1
    if numbered > 1:
        raise GameError(Refusal.ONE_NUMBER_PER_PROPOSAL, Facts(number=proposal, count=numbered))
    check_mutable_count(play, sum(mutable_delta(play, clause) for clause in clauses))


def _takes_proposal_number(play: Play, clause: Clause) -> bool:
    """Whether a clause gives its rule the proposal's number: a proposal may give it once.

    An enacted rule takes it where rules are numbered by proposal (``numbering``); under
    ``next`` each takes a number of its own, so a proposal may enact any number of rules.
    """
    if clause.kind is ClauseKind.ENACT:
        return play.mechanics.numbering is Numbering.PROPOSAL
    return clause.kind in _RENUMBERS and play.mechanics.renumber_on_amend


def check_later_edit(number: int, original: str, edited: str, clause: Clause) -> None:
    """Refuse an edit of a part that follows another edit of rule ``number`` in a proposal.

    The part is found in the text the edits before it leave (``edited``), which is not the
    text players read (``original``): refused (UNIT_AFTER_EDIT) where it is named by its
    place and the parts up to that place are not the same in both, or by a beginning that
    only text an earlier edit adds has.
    """
    if not clause.unit:
        return
    refused = GameError(Refusal.UNIT_AFTER_EDIT, Facts(number=number, detail=clause.unit))
    if not folded_beginning(clause.anchor, marker=True):
        if _places(original, clause) != _places(edited, clause):
            raise refused
        return
    try:
        choose(number, original, clause.unit, clause.anchor, clause.nth, whole=clause.whole)
    except GameError as error:
        if error.refusal is Refusal.UNIT_NOT_FOUND:
            raise refused from None


def _places(text: str, clause: Clause) -> list[str]:
    """Return the parts a place counts over: the first to the nth, or the nth to the last."""
    found = [text[start:end] for start, end in parts(text, clause.unit)]
    return found[:clause.nth] if clause.nth > 0 else found[clause.nth:]


def check_clause(play: Play, clause: Clause, proposal: int | None, *, by_speaker: bool) -> None:
    """Refuse one clause that could not be carried out on the rules as they stand.

    Only the Speaker, editing the rules directly, may amend or repeal an immutable rule.
    """
    if clause.kind is ClauseKind.SET:
        try:
            parse_setting(clause.parameter or "", clause.text)
        except ValueError as error:
            raise GameError(Refusal.BAD_SETTING,
                            Facts(name=clause.parameter or "", text=str(error))) from None
    elif clause.kind is ClauseKind.ENACT:
        _check_enactment(play, clause, proposal)
    else:
        _check_change(play, clause, _rule(play, clause), proposal, by_speaker=by_speaker)


def _check_enactment(play: Play, clause: Clause, proposal: int | None) -> None:
    if not clause.text.strip():
        raise GameError(Refusal.ENACT_WITHOUT_TEXT)
    check_rule_size(None, len(clause.text.strip().encode()), play.max_rule_bytes)
    if clause.immutable and not play.mechanics.immutability:
        raise GameError(Refusal.NO_IMMUTABLE_RULES)
    # The Speaker's direct enactment may name its number; a proposal's takes the one the
    # game's numbering gives (under "next", free by construction).
    number = clause.rule if proposal is None else enacted_number(play, clause, proposal)
    if number is not None and number in play.state.rules:
        raise GameError(Refusal.RULE_NUMBER_TAKEN, Facts(number=number))


def _check_change(play: Play, clause: Clause, rule: Rule, proposal: int | None, *,
                  by_speaker: bool) -> None:
    number = rule.number
    _check_mutable(clause, rule, by_speaker=by_speaker)
    if clause.kind in EDITS:
        check_edit(number, rule.text, clause, play.max_rule_bytes)
    if clause.kind is ClauseKind.RETITLE:
        _check_title(number, rule, clause, play.max_rule_bytes)
    if clause.kind is ClauseKind.AMEND:
        if not clause.text.strip():
            raise GameError(Refusal.AMEND_WITHOUT_TEXT, Facts(number=number))
        if clause.text.strip() == rule.text.strip():
            raise GameError(Refusal.AMEND_NO_CHANGE, Facts(number=number))
        check_rule_size(number, len(clause.text.strip().encode()), play.max_rule_bytes)
    if clause.kind is ClauseKind.TRANSMUTE and not play.mechanics.immutability:
        raise GameError(Refusal.NO_TRANSMUTATION)
    if clause.kind is ClauseKind.TRANSMUTE and clause.text == _state_of(rule):
        # "Transmute Rule N to mutable" of a mutable rule: flipping it would do the opposite.
        raise GameError(Refusal.TRANSMUTED_ALREADY, Facts(number=number, detail=clause.text))
    _check_number(play, clause, proposal)


def _check_title(number: int, rule: Rule, clause: Clause, max_bytes: int) -> None:
    """Refuse a retitling without a title, to the title the rule has, or longer than a rule."""
    title = one_line(clause.text)
    if not title:
        raise GameError(Refusal.NOTHING_TO_ADD, Facts(number=number, detail="RETITLE"))
    if title == rule.title:
        raise GameError(Refusal.EDIT_NO_CHANGE, Facts(number=number))
    check_rule_size(number, len(title.encode()), max_bytes)


def one_line(title: str) -> str:
    """Return a rule's title as it is kept: on one line, its white space folded."""
    return " ".join(title.split())


def _check_mutable(clause: Clause, rule: Rule, *, by_speaker: bool) -> None:
    """Refuse to change an immutable rule (but by the Speaker's own edit)."""
    if clause.kind in (*_CHANGES_TEXT, ClauseKind.RETITLE) and not rule.mutable and (
            not by_speaker):
        # An edit or a retitling is refused in the words of an amendment ("cannot be
        # amended").
        kind = ClauseKind.AMEND if clause.kind in _AMENDS else clause.kind
        raise GameError(Refusal.RULE_IMMUTABLE, Facts(number=rule.number, detail=kind.value))


def _check_number(play: Play, clause: Clause, proposal: int | None) -> None:
    """Refuse a change that would renumber a rule to a number another rule has."""
    assert clause.rule is not None
    new_number = _new_number(play, clause, proposal)
    if new_number != clause.rule and new_number in play.state.rules:
        raise GameError(Refusal.RULE_NUMBER_TAKEN, Facts(number=new_number))


def _state_of(rule: Rule) -> str:
    """Say whether a rule is ``"mutable"`` or ``"immutable"`` (as a TRANSMUTE clause's target)."""
    return "mutable" if rule.mutable else "immutable"


def _rule(play: Play, clause: Clause) -> Rule:
    """Return the rule in effect a clause changes, or refuse."""
    rule = play.state.rules.get(clause.rule) if clause.rule is not None else None
    if rule is None:
        raise GameError(Refusal.NO_SUCH_RULE, Facts(number=clause.rule))
    return rule


def _new_number(play: Play, clause: Clause, proposal: int | None) -> int:
    """Return the number a changed rule has afterwards (the proposal's, where it renumbers)."""
    assert clause.rule is not None
    if clause.kind in _RENUMBERS and play.mechanics.renumber_on_amend and proposal is not None:
        return proposal
    return clause.rule


def check_mutable_count(play: Play, delta: int) -> None:
    """Refuse a change of ``delta`` mutable rules beyond the limit, or down to none."""
    after = play.state.mutable_rule_count() + delta
    limit = play.mechanics.max_mutable_rules
    if limit is not None and delta > 0 and after > limit:
        raise GameError(Refusal.TOO_MANY_MUTABLE_RULES, Facts(
            count=after, limit=limit, rule=play.source("max_mutable_rules")))
    if after < 1 and delta < 0:
        raise GameError(Refusal.NO_MUTABLE_RULE_LEFT)


def mutable_delta(play: Play, clause: Clause) -> int:
    """Say how a clause would change the number of mutable rules."""
    rule = play.state.rules.get(clause.rule) if clause.rule is not None else None
    if clause.kind is ClauseKind.ENACT:
        return 0 if clause.immutable else 1
    if rule is None:
        return 0
    if clause.kind is ClauseKind.REPEAL:
        return -1 if rule.mutable else 0
    if clause.kind is ClauseKind.TRANSMUTE:
        return -1 if rule.mutable else 1
    return 0


def carry_out(play: Play, proposal: int, clauses: Sequence[Clause]) -> None:
    """Carry out an adopted proposal's clauses; each that cannot be is recorded as failed.

    Then each part not carried out becomes an item of the host's hand work (handwork.py),
    so that the ruleset never drifts from what was adopted without the host being told.
    """
    start = len(play.events)
    if not clauses:
        play.emit(e.InformalProposalAdopted(play.now, proposal))
    else:
        _carry_out_clauses(play, proposal, settle_conditions(play, proposal, clauses))
    open_handwork(play, proposal, play.events[start:])


def _carry_out_clauses(play: Play, proposal: int, clauses: Sequence[Clause]) -> None:
    """Carry out the clauses themselves, recording each that cannot be as failed."""
    if not clauses:
        return
    also_set = {(clause.parameter or "").strip().lower().replace("-", "_"): clause.text
                for clause in clauses if clause.kind is ClauseKind.SET}
    # The count of mutable rules is checked on the proposal as a whole, as when it was
    # proposed: if the rules changed since, the clauses that move it the wrong way fail.
    deltas = [mutable_delta(play, clause) for clause in clauses]
    total = sum(deltas)
    try:
        check_mutable_count(play, total)
        count_refused: GameError | None = None
    except GameError as error:
        count_refused = error
    chains = _edit_chains(clauses)
    # Retitlings first: an amendment may renumber the rule the retitling names.
    for clause, delta in sorted(zip(clauses, deltas, strict=True),
                                key=lambda pair: pair[0].kind is not ClauseKind.RETITLE):
        if count_refused is not None and delta * total > 0:
            play.emit(e.ClauseFailed(play.now, proposal, clause, count_refused.refusal,
                                     count_refused.facts))
            continue
        if clause.rule in chains and clause.kind in EDITS:
            if clause is chains[clause.rule][0]:
                _carry_out_edits(play, proposal, chains[clause.rule], also_set)
            continue
        try:
            check_clause(play, clause, proposal, by_speaker=False)
        except GameError as error:
            play.emit(e.ClauseFailed(play.now, proposal, clause, error.refusal, error.facts))
            continue
        apply_clause(play, clause, proposal, also_set=also_set)


def _edit_chains(clauses: Sequence[Clause]) -> dict[int, list[Clause]]:
    """Group the edits of a rule that a proposal edits more than once, in their order."""
    chains: dict[int, list[Clause]] = {}
    for clause in clauses:
        if clause.kind in EDITS and clause.rule is not None:
            chains.setdefault(clause.rule, []).append(clause)
    return {rule: edits for rule, edits in chains.items() if len(edits) > 1}


def _carry_out_edits(play: Play, proposal: int, edits: Sequence[Clause],
                     also_set: Mapping[str, str]) -> None:
    """Make a proposal's several edits of one rule, in order, as one amendment.

    One amendment, so that the rule is renumbered (where amendments renumber) once; an edit
    that no longer fits the text the others leave fails on its own.
    """
    try:
        _check_mutable(edits[0], _rule(play, edits[0]), by_speaker=False)
        _check_number(play, edits[0], proposal)
    except GameError as error:
        for clause in edits:
            play.emit(e.ClauseFailed(play.now, proposal, clause, error.refusal, error.facts))
        return
    assert edits[0].rule is not None
    rule = edits[0].rule
    text = play.state.rules[rule].text
    made, original = 0, text
    for index, clause in enumerate(edits):
        try:
            check_edit(rule, text, clause, play.max_rule_bytes)
            if index:
                check_later_edit(rule, original, text, clause)
        except GameError as error:
            play.emit(e.ClauseFailed(play.now, proposal, clause, error.refusal, error.facts))
            continue
        text, made = edited_text(text, clause), made + 1
    if made:
        apply_clause(play, Clause(ClauseKind.AMEND, rule, text), proposal, also_set=also_set)


def edit_directly(play: Play, clause: Clause) -> None:
    """Carry out the Speaker's direct edit of the rules, or refuse it."""
    check_clause(play, clause, None, by_speaker=True)
    check_mutable_count(play, mutable_delta(play, clause))
    apply_clause(play, clause, None)


def apply_clause(play: Play, clause: Clause, proposal: int | None, *,
                 also_set: Mapping[str, str] | None = None) -> None:
    """Carry out one clause already checked; by proposal, or by the Speaker (``None``).

    Changing a rule that mechanics come from reads them again from its new words
    (rereading.py), or warns the Speaker where a mechanic has no phrase to read, unless
    the same proposal also sets it (``also_set``: mechanic -> the value its SET writes).
    """
    also_set = also_set or {}
    by_speaker = proposal is None
    sources_before = dict(play.state.sources)
    if clause.kind is ClauseKind.SET:
        name, value = parse_setting(clause.parameter or "", clause.text)
        play.emit(e.MechanicSet(play.now, name, PARAMETERS[name].format(value), proposal,
                                by_speaker))
        return
    if clause.kind is ClauseKind.ENACT:
        enacted = enacted_number(play, clause, proposal)
        play.emit(e.RuleEnacted(play.now, enacted, clause.text.strip(), not clause.immutable,
                                proposal, by_speaker, one_line(clause.title)))
        read_enacted(play, enacted, proposal, also_set)
        return
    rule = _rule(play, clause)
    if clause.kind is ClauseKind.RETITLE:
        play.emit(e.RuleRetitled(play.now, rule.number, one_line(clause.text), rule.title,
                                 proposal, by_speaker))
        return
    number, new_number = rule.number, _new_number(play, clause, proposal)
    if clause.kind is ClauseKind.AMEND:
        play.emit(e.RuleAmended(play.now, number, new_number, clause.text.strip(), proposal,
                                by_speaker))
    elif clause.kind in EDITS:
        # Recorded as the amendment it amounts to: the event carries the rule's new text, so
        # replaying the record rebuilds the rule without applying the edit again.
        play.emit(e.RuleAmended(play.now, number, new_number,
                                edited_text(rule.text, clause).strip(), proposal, by_speaker))
    elif clause.kind is ClauseKind.REPEAL:
        play.emit(e.RuleRepealed(play.now, number, proposal, by_speaker))
    else:
        play.emit(e.RuleTransmuted(play.now, number, new_number, not rule.mutable, proposal,
                                   by_speaker))
    if clause.kind in _CHANGES_TEXT:
        affected = {name: source for name, source in sources_before.items() if source == number}
        unread = reread(play, new_number, affected, proposal, also_set)
        if unread:
            play.emit(e.MechanicsMayHaveChanged(play.now, number, unread, proposal))


def enacted_number(play: Play, clause: Clause, proposal: int | None) -> int:
    """Return the number the rule ``clause`` enacts takes now (by the Speaker: ``None``).

    ``numbering = "proposal"``: the proposal's number (the Speaker's rule: the number it
    names, else ``free_rule_number``). ``"next"``: the next free number
    (``next_rule_number``), by proposal or by the Speaker alike, so a proposal's several
    new rules are numbered in the order it lists them.
    """
    if proposal is None and clause.rule is not None:
        return clause.rule
    if play.mechanics.numbering is Numbering.NEXT:
        return next_rule_number(play)
    return proposal if proposal is not None else free_rule_number(play)


def next_rule_number(play: Play) -> int:
    """Return one more than the highest rule number ever used in the game.

    Ever used, not only in effect: a repealed rule's number, and the number a rule had
    before it was renumbered, are never given again, so that a rule number cited anywhere
    in the record names one rule (Agora never reuses one either).
    """
    kept = [*play.state.rules.values(), *play.state.repealed]
    used = [rule.number for rule in kept]
    used += [change.previous_number for rule in kept for change in rule.history
             if change.previous_number is not None]
    return max(used, default=0) + 1


def free_rule_number(play: Play) -> int:
    """Pick a number for a rule the Speaker enacts directly: never one a proposal can take."""
    first = play.mechanics.first_proposal_number
    used = set(play.state.rules) | {rule.number for rule in play.state.repealed}
    below = [n for n in used if n < first]
    candidate = (max(below) + 1) if below else 1
    while candidate in used:
        candidate += 1
    if candidate >= first:
        raise GameError(Refusal.NO_FREE_RULE_NUMBER)
    return candidate
