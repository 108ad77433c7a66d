"""A rule's text is bounded, and an edit costs no more than the text it reads and writes.

The edit bomb: "replace every e with eeeeeeeeee", six times in one proposal, made a 15 MB
rule from 700 bytes of mail, and nine times exhausted the daemon's memory. Each step is now
counted before it is made, so the proposal is refused at the first step over the bound,
naming the rule and the size.
"""

from __future__ import annotations

import re
import tracemalloc
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine import apply, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.edits import MAX_RULE_BYTES, edited_size, edited_text, spans
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Refusal
from speakerbot.mail.outbound.wording import refusal_text
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game, amend, enact

K = ClauseKind


def every(rule: int, old: str, new: str) -> Clause:
    return Clause(K.REPLACE, rule, old=old, new=new, every=True)


def bomb(rule: int, lines: int) -> tuple[Clause, ...]:
    return tuple(every(rule, "e", "eeeeeeeeee") for _ in range(lines))


def test_the_six_line_bomb_is_refused_naming_the_rule_and_its_size() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    before = g.state.rules[202].text
    rejected = g.refused(c.Propose(ALICE, "Bomb", "", bomb(202, 6)), "rule 202",
                         f"over the limit of {MAX_RULE_BYTES} bytes")
    assert rejected.refusal is Refusal.RULE_TOO_LONG
    assert rejected.facts.number == 202
    assert rejected.facts.count is not None and rejected.facts.count > MAX_RULE_BYTES
    # The size named is that of the first step over the bound, not of the whole bomb.
    assert rejected.facts.count < 10 * MAX_RULE_BYTES
    assert g.state.rules[202].text == before


def test_the_nine_line_bomb_is_refused_quickly_and_small() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    tracemalloc.start()
    try:
        events = g.send(c.Propose(ALICE, "Bomb", "", bomb(202, 9)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The old code built a rule of gigabytes; the occurrences found and the state's copy
    # take about a megabyte.
    assert peak < 64 * MAX_RULE_BYTES
    assert [type(event) for event in events] == [e.CommandRejected]
    assert len(repr(events)) < 4096


def test_a_smaller_bound_set_by_the_host_is_kept() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    text = g.state.rules[202].text
    doubled = every(202, "e", "ee")
    size = edited_size(text, doubled)
    _, events = apply(g.state, c.Propose(ALICE, "Double", "", (doubled,)), g.now,
                      max_rule_bytes=size - 1)
    assert isinstance(events[0], e.CommandRejected)
    assert events[0].refusal is Refusal.RULE_TOO_LONG
    _, events = apply(g.state, c.Propose(ALICE, "Double", "", (doubled,)), g.now,
                      max_rule_bytes=size)
    assert any(isinstance(event, e.ProposalSubmitted) for event in events)


def test_an_amendment_or_a_new_rule_over_the_bound_is_refused() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    long_text = "word " * (MAX_RULE_BYTES // 5 + 1)
    assert g.refused(c.Propose(ALICE, "Long", "", (amend(202, long_text),)),
                     "rule 202").refusal is Refusal.RULE_TOO_LONG
    assert g.refused(c.Propose(ALICE, "Long", "", (enact(long_text),)),
                     "the new rule").refusal is Refusal.RULE_TOO_LONG


def test_the_speakers_direct_edit_is_bounded_too() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    grow = every(202, "e", "e" * MAX_RULE_BYTES)
    rejected = g.refused(c.EditRule(SPEAKER, grow), "rule 202")
    assert rejected.refusal is Refusal.RULE_TOO_LONG


def test_an_adopted_proposal_that_would_grow_a_rule_past_the_bound_fails_its_clause() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    text = g.state.rules[202].text
    grow = every(202, "e", "ee")
    first_step = edited_size(text, grow)
    # Both proposals fit when proposed; once the first is adopted, the second would not.
    bound = first_step + 1
    for actor in (ALICE, BOB):
        g.state, events = apply(g.state, c.Propose(actor, "Grow", "", (grow,)), g.now,
                                max_rule_bytes=bound)
        g.events.extend(events)
        assert any(isinstance(event, e.ProposalSubmitted) for event in events), events
    first, second = sorted(g.state.proposals)[-2:]
    for number in (first, second):
        g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.now += timedelta(days=30)
    g.state, events = tick(g.state, g.now, g.dice, max_rule_bytes=bound)
    g.events.extend(events)
    failed = [event for event in events if isinstance(event, e.ClauseFailed)]
    assert [event.refusal for event in failed] == [Refusal.RULE_TOO_LONG]
    texts = [rule.text for rule in g.state.rules.values()]
    assert edited_text(text, grow).strip() in texts
    assert edited_text(edited_text(text, grow), grow).strip() not in texts


def test_the_refusal_says_what_to_do() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    reason, remedy = refusal_text(g.refused(c.Propose(ALICE, "Bomb", "", bomb(202, 6))))
    assert reason.startswith("rule 202 would be ") and "bytes long" in reason
    assert remedy


# --- the lookup is the old one, made linear ---

def _old_loose(text: str, needle: str) -> list[tuple[int, int]]:
    pattern = r"\s+".join(re.escape(word) for word in needle.split())
    return [match.span() for match in re.finditer(pattern, text)]


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="ab \n\t", max_size=40), needle=st.text(alphabet="ab \n", max_size=8))
def test_loose_lookup_finds_what_the_old_pattern_found(text: str, needle: str) -> None:
    if not needle.strip() or needle in text:
        return
    assert spans(text, needle) == _old_loose(text, needle)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ab e\n", max_size=60), old=st.text(alphabet="ab e", min_size=1,
                                                                    max_size=4),
       new=st.text(alphabet="abé", max_size=6))
def test_the_size_counted_is_the_size_made(text: str, old: str, new: str) -> None:
    if not old.strip() or not spans(text, old):
        return
    for clause in (every(1, old, new), Clause(K.REPLACE, 1, old=old, new=new)):
        if clause.new:  # a deletion may take a space with it: counted on the long side
            assert edited_size(text, clause) == len(edited_text(text, clause).encode())
        else:
            assert edited_size(text, clause) >= len(edited_text(text, clause).encode())
