"""The replay of Agora's adopted proposals, pinned as it stands (issue 38).

Each rule change the record shows is replayed (:mod:`tests.replay.replay`): read as the
daemon reads a proposal, carried out by the engine on the rules before it, and compared
with the rule after it. The number exact may only rise; the wrong and silently unchanged
changes are exactly the lists below, each with its cause, found by reading its diff
(``python -m tests.replay.replay --list wrong``); the failed and refused ones, and the
changes the record does not show, may only become fewer. A change that leaves a list must
be taken out of it, so that the lists only shrink.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from tests.replay.corpus import DATA, load
from tests.replay.figures import figures, listing, word_diff
from tests.replay.replay import Outcome, ProposalOutcome, counts, keyed, normal, of_outcome, replay

EXACT_AT_LEAST = 516
"""Changes made exactly (418 when the replay was written, 7 of them as the text settled; 419
after issue 38's text fixes: 8412, 8461 and 8660's enactment made exactly, 8452 refused as
not unique and 8595's unclosed quotation quoted back; 446 once new rules are numbered as
Agora numbers them, ``numbering = "next"``: 27 of the 29 changes of the proposals that
enact several rules made exactly; 458 once a rule named by its title alone is found among the
rules in effect, which the replay gives the reader: 8319, 8361, 8362, 8369, 8410, 8413, 8417,
8518, 8523, 8524, 8704; 516 once conditions on another proposal's fate are kept for the game
to settle (8304, 8324, 8446), more of the forms real players write are read (8229's
ordered repeals, enactments with a bare power or title, ``as follows:`` with the edits as
paragraphs, ``Amend 1607 Distribution by``...) and an aside in parentheses is no condition
(8516))."""

SECONDS_AT_MOST = 30.0
"""The whole replay's CPU time, well within a test run (about 1 s when written)."""

RULEKEEPER = "the rulekeeper's slip"
MISQUOTE = "the proposal misquotes the rule; the rulekeeper applied it anyway"
READER = "the reader's fault"
RECORD = "the record's noise"

WRONG = {
    "8213/2591": f"{RULEKEEPER}: typo 'posession'",
    "8215/2492": f"{RULEKEEPER}: a comma dropped ('assigned to,')",
    "8221/2154": f"{RULEKEEPER}: 'With' lower-cased against the proposal's own text, and "
                 "'them' made 'em' (not in the proposal)",
    "8241/1950": f"{RULEKEEPER}: the deletion of 'Adoption index is secured with a power "
                 "threshold of 2.' not made (the proposal quotes it as the rule has it)",
    "8228/2160": f"{RULEKEEPER}: corrected the proposal's typo 'An player'",
    "8250/2478": f"{RULEKEEPER}: replaced the first of the two quoted paragraphs only",
    "8319/2607": f"{RULEKEEPER}: 'a' doubled ('Chamber is a a secured'; the proposal names "
                 "the rule by its title alone, 'the rule entitled \"Proposal Chambers\"')",
    "8331/2450": f"{RULEKEEPER}: 'should' for the proposal's 'SHOULD'",
    "8379/2553": f"{RULEKEEPER}: typo 'possiblity'",
    "8461/2557": f"{RECORD}: the record's text of rule 2557 before 8461 is a stale one",
    "8489/2624": f"{RULEKEEPER}: typo 'assocated'",
    "8490/2614": f"{RULEKEEPER}: 'regulations' for the proposal's 'Regulations'",
    "8505/2624": f"{RULEKEEPER}: 'card.' for 'card,'",
    "8514/2483": f"{RULEKEEPER}: 'only' dropped (the proposal says 'They can only be owned by')",
    "8532/2492": f"{RULEKEEPER}: 'from a case' dropped from the text the proposal appends",
    "8556/2624": f"{RULEKEEPER}: a space left before the full stop ('Legacy .')",
    "8811/2143": f"{RULEKEEPER}: 'every instance of the word crime' replaced 'Crime' too "
                 "(the engine matches case exactly)",
    "8842/2645": f"{READER}: 'delete the bullet point which reads X and replace it with Y': "
                 "the engine keeps the list marker '- ', the rulekeeper dropped it",
    "8864/2672": f"{RULEKEEPER}: the colon after the replaced text dropped",
    "8872/2659": f"{RULEKEEPER}: a space left before the full stop ('players .')",
    "8874/2668": f"{RULEKEEPER}: a stray quotation mark ('destroyed.\"')",
    "8881/2632": f"{RULEKEEPER}: the amendment not applied (the record changes the power only)",
    "8898/2643": f"{RULEKEEPER}: 'is' dropped",
    "8899/2674": f"{RULEKEEPER}: the commas after 'by 2' and 'by 3' dropped",
    "8919/2657": f"{RECORD}: the retitling recorded only at a later commit (8932's)",
}

SILENT: dict[str, str] = {}
"""None since issue 38: 8364/2614 and 8366/2615 (a change after the others, of a rule named
by title, under "If there is a rule ...") are quoted back, 8660/2658 ("Add a new Power=3 rule
titled ...") is read as an enactment and made exactly."""

FAILED = {
    "8394/2472": f"{MISQUOTE} (case: 'overpowered' for 'Overpowered')",
    "8431/2496": f"{MISQUOTE} ('decision' for 'referendum')",
    "8492/2202": f"{MISQUOTE} ('A player CAN' for 'Any player CAN')",
    "8528/2627": f"{RECORD}: rule 2627 was repealed by 8526; the record's after is an old text",
    "8610/2478": f"{MISQUOTE} (case: 'Finger pointing' for 'Finger Pointing')",
    "8452/2619": "the anchor 'the investigator CAN' stands twice, once across a line break; "
                 "the engine refuses it as not unique, the rulekeeper took the one on one line",
    "8644/2655": "the text stands twice and the proposal replaces it once; the engine refuses, "
                 "the rulekeeper replaced both",
    "8660/2478": f"{MISQUOTE} (the quoted paragraph is not the rule's)",
    "8680/2666": f"{MISQUOTE} ('Auction ongoing' for 'Auction is ongoing')",
    "8811/2545": "'every instance of the word crime': the rule says 'Crime' only; the "
                 "rulekeeper matched any case",
    "8811/2660": "'every instance of the word crime': the rule says 'Crime' only; the "
                 "rulekeeper matched any case",
    "8818/2124": f"{MISQUOTE} ('if any are met' for 'if any, are met')",
}

REFUSED: dict[str, str] = {}
"""Proposals refused outright at submission: none since the replay numbers new rules as Agora
does (``numbering = "next"``). Before, the seven that enact several rules (8442, 8514, 8515,
8573, 8599, 8822, 8867) were refused, one-number-per-proposal, with their 29 changes."""

EXTRA = {
    "8221": "rule 1607 changed; the record shows no change of it",
    "8317": "the record shows no change of 8317 at all",
    "8429": "the record shows no change of 8429 (its rule 2557 is the stale text)",
    "8573": "two rules enacted; the record shows no change of 8573 (8599 enacted them again)",
    "8846": "rule 2675 changed; the record shows no change of it",
    "8898": "rule 2675 changed; the record shows no change of it",
    "8906": "rule 2643 changed; the record shows no change of it",
}


@pytest.fixture(scope="module")
def timed() -> tuple[list[ProposalOutcome], float]:
    """Replay every proposal once for the module, and time it.

    In CPU time: the machine is shared, and the replay is pure computation in one thread.
    """
    start = time.process_time()
    outcomes = replay()
    return outcomes, time.process_time() - start


@pytest.fixture(scope="module")
def outcomes(timed: tuple[list[ProposalOutcome], float]) -> list[ProposalOutcome]:
    """Return the replay's outcomes, by proposal."""
    return timed[0]


def test_the_data_is_the_file_cited() -> None:
    """The data is the 434 proposals of 8188-8939, with its README citing the sources."""
    corpus = load()
    assert len(corpus.proposals) == 434
    assert (corpus.proposals[0].id, corpus.proposals[-1].id) == ("8188", "8939")
    assert DATA.suffix == ".gz" and (Path(DATA).parent / "README.md").exists()
    readme = (Path(DATA).parent / "README.md").read_text(encoding="utf-8")
    assert "github.com/AgoraNomic/assessor" in readme
    assert "github.com/AgoraNomic/ruleset" in readme


def test_the_data_is_unchanged() -> None:
    """The file is byte for byte the one the README describes."""
    import gzip

    with gzip.open(DATA, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert digest == "92b42587fd0c3d1f036bb2aaf63885ba344593f4acb61112c3e04da533ebaabf"


def test_the_replay_is_fast(timed: tuple[list[ProposalOutcome], float]) -> None:
    """The whole replay takes well under the time a test may."""
    assert timed[1] < SECONDS_AT_MOST


def test_exact_does_not_fall(outcomes: list[ProposalOutcome]) -> None:
    """The changes made exactly may rise, never fall."""
    assert counts(outcomes)[Outcome.EXACT] >= EXACT_AT_LEAST


def test_the_wrong_changes_are_the_listed_ones(outcomes: list[ProposalOutcome]) -> None:
    """A text made that differs from the record is listed, with its cause."""
    assert sorted(keyed(of_outcome(outcomes, Outcome.WRONG))) == sorted(WRONG)


def test_the_silently_unchanged_are_the_listed_ones(outcomes: list[ProposalOutcome]) -> None:
    """A change neither made nor left to the host is listed, with its cause."""
    assert sorted(keyed(of_outcome(outcomes, Outcome.SILENT))) == sorted(SILENT)


def test_no_new_failure(outcomes: list[ProposalOutcome]) -> None:
    """A clause that fails at adoption is one listed."""
    assert set(keyed(of_outcome(outcomes, Outcome.FAILED))) <= set(FAILED)


def test_refused_only_for_several_enactments(outcomes: list[ProposalOutcome]) -> None:
    """The reader refuses none; the engine none listed (several enactments are numbered)."""
    refused = {proposal.proposal.id: proposal.refusal for proposal in outcomes
               if proposal.refusal}
    assert set(refused) <= set(REFUSED)
    assert set(refused.values()) <= {"one-number-per-proposal"}
    assert not any(proposal.reading.refused for proposal in outcomes)


def test_no_new_change_the_record_does_not_show(outcomes: list[ProposalOutcome]) -> None:
    """A rule changed that the record does not show changed is one listed."""
    assert {proposal.proposal.id for proposal in outcomes if proposal.extra} <= set(EXTRA)


def test_every_counted_change_has_one_outcome(outcomes: list[ProposalOutcome]) -> None:
    """Every change counted is classified once."""
    counted = sum(change.counted for proposal in load().proposals
                  for change in proposal.changes)
    assert sum(counts(outcomes).values()) == counted


def test_white_space_is_aside() -> None:
    """Runs of white space and line breaks are one space; the ends are stripped."""
    assert normal("  A rule\n  text,\tre-wrapped \n") == "A rule text, re-wrapped"


def test_a_diff_says_the_words_that_differ() -> None:
    """A diff shows the words that differ, with a few either side."""
    assert word_diff("a b c d", "a b x d") == "    …a b [-c-]{+x+} d…"
    assert word_diff("same\nwords", "same words") == ""


def test_the_figures_and_lists_print(outcomes: list[ProposalOutcome]) -> None:
    """The figures name every outcome; a list names each change of its outcome."""
    printed = figures(outcomes, 1.0)
    assert "silently unchanged" in printed and "left to the host" in printed
    listed = listing(outcomes, "wrong")
    assert all(f"{key.split('/')[0]} rule {key.split('/')[1]}" in listed for key in WRONG)
    assert "8317" in listing(outcomes, "extra")
