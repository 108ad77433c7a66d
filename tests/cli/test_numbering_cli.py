"""``numbering`` in a group's own ruleset file, through the real command line (issue 38).

``rulesets export`` writes the mechanic (every preset: ``proposal``); a file that chooses
``next`` passes ``rulesets check``, whose summary names the difference, and a game started
from it numbers new rules by the next free number and says so in SHOW MECHANICS. A value
the mechanic does not take, or the mechanic left out, is a fault on its line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from speakerbot.engine import GameState, apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.luck import NO_RANDOMNESS
from speakerbot.engine.rereading import in_force
from speakerbot.presets import PRESET_NAMES, read_ruleset_file
from tests.cli.test_ruleset_files_cli import export, fault_lines, line_of, speakerbot
from tests.engine.cast import SPEAKER, T0
from tests.engine.harness import enact


def chosen(folder: Path, value: str) -> Path:
    """An export of nomicam, renamed, whose ``numbering`` is ``value``."""
    text = export("nomicam", folder).replace('name = "nomicam"', 'name = "agoran"', 1)
    assert text.count('numbering = "proposal"') == 1
    path = folder / "ours.toml"
    path.write_text(text.replace('numbering = "proposal"', f'numbering = "{value}"'))
    return path


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_export_writes_numbering_by_proposal(tmp_path: Path, name: str) -> None:
    assert re.search(r'^numbering = "proposal"$', export(name, tmp_path), re.MULTILINE)


def test_a_file_choosing_next_passes_check_and_its_game_numbers_by_it(tmp_path: Path) -> None:
    path = chosen(tmp_path, "next")
    result = speakerbot("rulesets", "check", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines()[2:] == [
        "nearest preset: nomicam", "mechanics that differ from nomicam:",
        "  numbering: proposal -> next"]
    ruleset = read_ruleset_file(path)
    assert ruleset.mechanics["numbering"] == "next"
    state, _ = apply(GameState(), c.StartGame(SPEAKER, ruleset, "Chuck", "", "", {}, True),
                     T0, NO_RANDOMNESS)
    shown = {mechanic.name: mechanic for mechanic in in_force(state)}["numbering"]
    assert (shown.value, shown.origin) == ("next", "rule 109")
    highest = max(state.rules)
    for text in ("One.", "Two."):
        state, events = apply(state, c.EditRule(SPEAKER, enact(text)), T0, NO_RANDOMNESS)
        assert [event.number for event in events if isinstance(event, e.RuleEnacted)] == [
            highest + 1]
        highest += 1


def test_a_value_numbering_does_not_take_is_a_fault_on_its_line(tmp_path: Path) -> None:
    path = chosen(tmp_path, "highest")
    result = speakerbot("rulesets", "check", path.name, cwd=tmp_path)
    assert result.returncode == 1, result.stdout
    [fault] = fault_lines(result.stdout)
    assert (int(fault["line"]), fault["key"]) == (line_of(path, 'numbering = "highest"'),
                                                  "mechanics.numbering")
    assert fault["what"] == "expected one of proposal, next, not 'highest'"


def test_a_file_written_before_numbering_keeps_numbering_by_proposal(tmp_path: Path) -> None:
    # A group's file from before the mechanic existed still starts its game, as it played.
    path = chosen(tmp_path, "next")
    path.write_text(path.read_text().replace('numbering = "next"\n', "", 1))
    result = speakerbot("rulesets", "check", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert fault_lines(result.stdout) == []
    assert read_ruleset_file(path).mechanics["numbering"] == "proposal"
