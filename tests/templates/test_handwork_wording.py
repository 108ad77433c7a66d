"""How the host's hand work is said: in the results, the record, the Speaker's notice, STATUS."""

from __future__ import annotations

from datetime import UTC, datetime

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState, HandItem
from speakerbot.mail.outbound.handwork import finishing_line, item_json, status_lines
from speakerbot.mail.outbound.sentences import news_line, record_line

AT = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def test_an_item_opened_is_said_with_its_number_proposal_and_words() -> None:
    opened = e.HandWorkOpened(AT, 3, 305, "Amend Rule 206 somehow.", (206,))
    assert news_line(opened, GameState()) == (
        "Left to the Speaker (item 3, proposal 305): Amend Rule 206 somehow.")


def test_an_item_closed_names_the_command_in_mail_and_not_in_the_record() -> None:
    done = e.HandWorkDone(AT, 3, "done", "amended by hand")
    edit = e.HandWorkDone(AT, 4, "edit", "amend rule 206")
    bare = e.HandWorkDone(AT, 5, "done", "")
    state = GameState()
    assert news_line(done, state) == (
        "Item 3 left to the Speaker is closed by ADMIN DONE: amended by hand")
    assert news_line(edit, state) == (
        "Item 4 left to the Speaker is closed by ADMIN RULE (amend rule 206)")
    assert news_line(bare, state) == "Item 5 left to the Speaker is closed by ADMIN DONE"
    assert record_line(done, str) == "Item 3 left to the Speaker is closed: amended by hand"
    assert record_line(edit, str) == (
        "Item 4 left to the Speaker is closed by an edit: amend rule 206")


def test_the_notice_gives_the_commands_that_finish_an_item() -> None:
    assert finishing_line(3, 305, "Amend Rule 206 somehow.", (206,)) == (
        "Item 3 (proposal 305): “Amend Rule 206 somehow.” (to finish it: ADMIN RULE "
        "<clause> of rule 206, or ADMIN DONE 3 <reason>)")
    assert finishing_line(4, 305, "Tea", ()) == (
        "Item 4 (proposal 305): “Tea” (to finish it: ADMIN DONE 4 <reason>)")
    assert "of rule 105, 106 or 107," in finishing_line(5, 305, "x", (105, 106, 107))


def test_status_lists_the_open_items_by_number_with_since_when() -> None:
    state = GameState()
    state.handwork = {7: HandItem(7, 306, "Tea", (), AT),
                      2: HandItem(2, 305, "Amend Rule 206 somehow.", (206,), AT)}
    lines = status_lines(state)
    assert lines[0].startswith("2. proposal 305, since 2026-03-02")
    assert lines[0].endswith("“Amend Rule 206 somehow.” (rule 206)")
    assert lines[1].startswith("7. proposal 306") and lines[1].endswith("“Tea”")
    assert item_json(state.handwork[2]) == {
        "item": 2, "proposal": 305, "words": "Amend Rule 206 somehow.", "rules": [206],
        "since": "2026-03-02T12:00:00+00:00"}
