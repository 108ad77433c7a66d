"""The reply to a proposer whose proposal had lines about changing rules not understood."""

from __future__ import annotations

from speakerbot.mail.inbound import language as lang
from speakerbot.mail.outbound.compose import Renderer
from speakerbot.mail.outbound.replies import Outcome, ReplyWriter, not_understood_in
from speakerbot.resources import templates_dir
from tests.engine.cast import ALICE, BOB
from tests.engine.harness import Game

BODY = """PROPOSE Better votes
Votes should count more.
Amend Rule 206 by making every vote count twice.
Amend Rule 206 by replacing "one vote" with "two votes"
END PROPOSE
"""


def _reply(unclear: list[tuple[int, str]]) -> str:
    g = Game("nomicam", [ALICE, BOB])
    writer = ReplyWriter(Renderer(templates_dir()), lang.help_text)
    done = [Outcome(1, "PROPOSE Better votes", "Your proposal is number 301.")]
    return writer.reply(g.state, ALICE, outcomes=done, errors=(), ignored=(), answers=(),
                        applied=True, unclear=unclear)


def test_lines_not_understood_are_quoted_with_the_forms_that_apply_themselves() -> None:
    parsed = lang.parse_commands("", BODY)
    unclear = not_understood_in(parsed.commands)
    assert unclear == [(3, "Amend Rule 206 by making every vote count twice.")]
    body = _reply(unclear)
    assert ("These lines of your proposal speak of changing a rule, but in no form\n"
            "speakerbot can carry out by itself; if the proposal is adopted, the\n"
            "Speaker carries them out by hand:\n"
            "  line 3: Amend Rule 206 by making every vote count twice.\n\n"
            "Written in one of these forms, a change applies itself on adoption:\n"
            '  Amend Rule 206 by replacing "Each Voter has" with "<new words>"\n') in body
    # Every quotation is of words rule 206 has ("Each Voter has exactly one vote. ..."), so
    # an example copied as it stands works; and a rule may take several edits.
    for form in ('Amend Rule 206 by deleting "exactly one vote"',
                 "Amend Rule 206 by appending: Ballots are sealed.",
                 'Amend Rule 206 by inserting "<new words>" before "Each Voter has"',
                 "Amend Rule 206 to read: <the rule's whole new text>",
                 "Repeal Rule 206", "Transmute Rule 206",
                 'Enact a new rule titled "Tea": <the new rule\'s text>'):
        assert f"\n  {form}\n" in body
    assert "One proposal may change several rules, and one rule by\nseveral edits." in body
    assert "each once" not in body


def test_every_example_form_is_understood_by_the_parser() -> None:
    body = _reply([(3, "Amend Rule 205 somehow")])
    forms = [line.strip() for line in body.splitlines()
             if line.startswith("  ") and not line.startswith("  line")]
    forms = [f.replace("<the rule's whole new text>", "New text.")
              .replace("<the new rule's text>", "Tea is served.") for f in forms
             if f.startswith(("Amend", "Repeal", "Transmute", "Enact"))]
    assert len(forms) == 8
    for form in forms:
        parsed = lang.parse_commands("", f"PROPOSE Try\nText.\n{form}\nEND PROPOSE\n")
        [propose] = parsed.commands
        assert isinstance(propose, lang.Propose) and len(propose.clauses) == 1, form
        assert not propose.not_understood


def test_a_reply_without_lines_not_understood_says_nothing_of_them() -> None:
    body = _reply([])
    assert body.endswith("    Your proposal is number 301.\n") and "These lines" not in body


def test_the_lines_quoted_are_as_many_as_the_ignored_lines_at_most() -> None:
    body = _reply([(n, f"Amend Rule {n} somehow") for n in range(3, 20)])
    assert "  line 12: Amend Rule 12 somehow\n" in body and "line 13:" not in body
    assert "  ... and 7 more lines, not shown.\n" in body
    # Rule 3 is no rule of the game: the examples quote placeholders, not words it lacks.
    assert '  Amend Rule 3 by replacing "<words of the rule>" with "<new words>"' in body
