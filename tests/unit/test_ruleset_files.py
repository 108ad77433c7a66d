"""A ruleset file is checked whole: each fault kind with its exact line, key and what is allowed.

Each row edits the shipped ``suber`` (as ``rulesets export suber`` prints it) in one way
and names the one fault that must come back; five edits at once give five faults. Every
shipped preset and its export read back as the preset, and a clean file's summary names
its nearest preset and the mechanics that differ from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.config import ConfigError, load_settings
from speakerbot.engine.commands import Preset
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import RuleSpec
from speakerbot.presets.located import Fault, FileFaults, read_located
from speakerbot.presets.ruleset import read_ruleset
from speakerbot.presets.shipped import (
    export_text,
    load_preset,
    load_ruleset,
    nearest_preset,
    preset_names,
    summary,
)
from tests.support.file_edits import edited, line_of

SUBER = export_text("suber")
ADMIN = "SPEAKERBOT_ADMIN_PASSWORD"


def faults_of(text: str) -> list[Fault]:
    with pytest.raises(FileFaults) as raised:
        read_ruleset(read_located(text.encode(), "ours.toml"), "ours.toml")
    assert raised.value.origin == "ours.toml"
    return list(raised.value.faults)


def read(text: str) -> Preset:
    return read_ruleset(read_located(text.encode(), "ours.toml"), "ours.toml")


FIRST_103 = 'number = 103\nmutable = false\ntext = """A rule change'
SECOND_103 = 'number = 103\nmutable = false\ntext = """All rule'


def rule_block(number: int) -> str:
    """The start of a rule in suber: its number and mutability lines."""
    return f"number = {number}\nmutable = {'false' if number < 200 else 'true'}\n"


@dataclass(frozen=True)
class Row:
    """One edit of suber and the one fault it makes."""

    changes: tuple[tuple[str, str], ...]
    key: str
    at: str  # the text that begins the fault's line, in the edited file
    message: str


ROWS = {
    "unknown mechanic, the nearest named": Row(
        (("win_points = 100\n", "win_points = 100\nwin_pionts = 100\n"),),
        "mechanics.win_pionts", "win_pionts =", "unknown key; did you mean win_points?"),
    "unknown mechanic, none near": Row(
        (("win_points = 100\n", "win_points = 100\nzzzz = 1\n"),),
        "mechanics.zzzz", "zzzz =", "unknown key; the keys here are flow, "),
    "value out of range": Row(
        (("die_sides = 6", "die_sides = 0"),),
        "mechanics.die_sides", "die_sides = 0", "expected a whole number from 2 to 1000, not 0"),
    "value not among those allowed": Row(
        (('adoption = "unanimous"', 'adoption = "most"'),),
        "mechanics.adoption", 'adoption = "most"',
        "expected one of unanimous, majority, not 'most'"),
    "value of the wrong type": Row(
        (("win_points = 100", "win_points = [100]"),),
        "mechanics.win_points", "win_points = [100]",
        "expected a value written as SET reads it, not [100]"),
    "a fraction as a float": Row(
        (("die_sides = 6", "die_sides = 6.5"),),
        "mechanics.die_sides", "die_sides = 6.5",
        "expected a value written as SET reads it, not 6.5"),
    "missing mechanic": Row(
        (('debate_period = "2d"\n', ""),),
        "mechanics", "[mechanics]\n", "every mechanic must be given; missing: debate_period "
        "(speakerbot rulesets export NAME prints them all)"),
    "duplicate rule number": Row(
        ((rule_block(104), rule_block(103)),),
        "rules[4].number", SECOND_103,
        f"rule 103 is given twice (first at line {line_of(SUBER, FIRST_103)}); each rule "
        "number once"),
    "rule without a number": Row(
        ((rule_block(104), "mutable = false\n"),),
        "rules[4]", "[[rules]]\nmutable", "this rule has no number"),
    "rule number not a number": Row(
        ((rule_block(104), 'number = "104"\nmutable = false\n'),),
        "rules[4].number", 'number = "104"', "expected a whole number from 0 to 99999, "
        "not '104'"),
    "rule number too large": Row(
        ((rule_block(104), "number = 100000\nmutable = false\n"),),
        "rules[4].number", "number = 100000", "expected a whole number from 0 to 99999, "
        "not 100000"),
    "rule without text": Row(
        (('text = """All rule changes proposed', 'title = """All rule changes proposed'),),
        "rules[4]", "[[rules]]\nnumber = 104", "expected the rule's text, not nothing"),
    "rule with empty text": Row(
        (('text = """All rule changes proposed in the proper way shall be voted on. They will be '
          'adopted if and only if they receive the required number of votes."""', 'text = "  "'),),
        "rules[4].text", 'text = "  "', "expected the rule's text, not '  '"),
    "bad mutable": Row(
        ((rule_block(104), 'number = 104\nmutable = "no"\n'),),
        "rules[4].mutable", 'mutable = "no"', "expected mutable = true or false, not 'no'"),
    "rule without mutable": Row(
        ((rule_block(104), "number = 104\n"),),
        "rules[4]", "[[rules]]\nnumber = 104", "expected mutable = true or false, not nothing"),
    "unknown key in a rule": Row(
        ((rule_block(104), rule_block(104) + 'titel = "Votes"\n'),),
        "rules[4].titel", "titel =", "unknown key; did you mean title?"),
    "title of two lines": Row(
        ((rule_block(104), rule_block(104) + 'title = "Votes\\nand more"\n'),),
        "rules[4].title", 'title = "Votes', "expected a one-line title, not 'Votes\\nand more'"),
    "history not lines": Row(
        ((rule_block(104), rule_block(104) + "history = [3]\n"),),
        "rules[4].history", "history = [3]",
        'expected a list of lines of text, such as ["Enacted by proposal 312"]'),
    "source rule missing": Row(
        (("win_points = 208", "win_points = 2080"),),
        "mechanics.sources.win_points", "win_points = 2080", "win_points comes from rule "
        "2080, but there is no rule 2080; name a rule of this ruleset or leave win_points "
        "out here"),
    "source not a number": Row(
        (("win_points = 208", 'win_points = "208"'),),
        "mechanics.sources.win_points", 'win_points = "208"', "expected a rule's number, "
        "not '208'"),
    "first proposal number not above the rules": Row(
        (("first_proposal_number = 301", "first_proposal_number = 213"),),
        "mechanics.first_proposal_number", "first_proposal_number = 213",
        "the first proposal number must be above every rule's number (the highest is 213), "
        "not 213"),
    "persons naming a rule that does not name them": Row(
        (("[mechanics]\n", '[persons.speaker]\nrule = 101\nname = "Nobody"\n\n[mechanics]\n'),),
        "persons.speaker", "[persons.speaker]", "expected the number of a rule and the name it "
        "gives the speaker, as written in it (rule 101 does not name 'Nobody')"),
    "a person who is not speaker or judge": Row(
        (("[mechanics]\n", '[persons.jduge]\nrule = 101\nname = "All"\n\n[mechanics]\n'),),
        "persons.jduge", "[persons.jduge]", "unknown key; did you mean judge?"),
    "[preset] name bad": Row(
        (('name = "suber"', 'name = "Suber Nomic!"'),),
        "preset.name", 'name = "Suber Nomic!"', "expected a short name of lower-case "
        "letters, digits and dashes, such as \"our-nomic\"; not 'Suber Nomic!'"),
    "[preset] name with a final line break": Row(
        (('name = "suber"', 'name = "suber\\n"'),),
        "preset.name", 'name = "suber\\n"', "expected a short name of lower-case letters, "
        "digits and dashes, such as \"our-nomic\"; not 'suber\\n'"),
    "[preset] title missing": Row(
        (('title = "Peter Suber\'s Initial Set of Nomic"\n', ""),),
        "preset.title", "[preset]", "expected the ruleset's title, not nothing"),
    "unknown top-level table": Row(
        (("[mechanics]\n", "[mechanic]\nflow = 1\n\n[mechanics]\n"),),
        "mechanic", "[mechanic]\n", "unknown key; did you mean mechanics?"),
}


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_each_fault_kind_with_its_line_and_key(row: Row) -> None:
    text = edited(SUBER, *row.changes)
    faults = faults_of(text)
    assert [(fault.line, fault.key) for fault in faults] == [(line_of(text, row.at), row.key)]
    assert faults[0].message.startswith(row.message), faults[0].message


def test_a_repeated_number_names_the_line_of_the_first() -> None:
    text = edited(SUBER, (rule_block(104), rule_block(103)))
    first = line_of(text, FIRST_103)
    assert text.splitlines()[first - 1] == "number = 103"
    assert f"(first at line {first})" in faults_of(text)[0].message


FIVE = (
    ("die_sides = 6", "die_sides = 0"),
    ("win_points = 100\n", "win_points = 100\nwin_pionts = 100\n"),
    (rule_block(104), rule_block(103)),
    ("win_points = 208", "win_points = 2080"),
    ("first_proposal_number = 301", "first_proposal_number = 213"),
)


def test_five_faults_are_reported_at_once_in_the_order_of_the_file() -> None:
    text = edited(SUBER, *FIVE)
    with pytest.raises(FileFaults) as raised:
        read_ruleset(read_located(text.encode(), "ours.toml"), "ours.toml")
    said = str(raised.value).split("\n")
    assert said[0] == "ours.toml: 5 faults"
    assert said[1:] == [
        f"ours.toml:{line_of(text, 'first_proposal_number = 213')}: "
        "mechanics.first_proposal_number: the first proposal number must be above every "
        "rule's number (the highest is 213), not 213",
        f"ours.toml:{line_of(text, 'die_sides =')}: mechanics.die_sides: "
        + str(raised.value.faults[1].message),
        f"ours.toml:{line_of(text, 'win_pionts =')}: mechanics.win_pionts: unknown key; did "
        "you mean win_points?",
        f"ours.toml:{line_of(text, 'win_points = 2080')}: mechanics.sources.win_points: "
        "win_points comes from rule 2080, but there is no rule 2080; name a rule of this "
        "ruleset or leave win_points out here",
        f"ours.toml:{line_of(text, SECOND_103)}: rules[4].number: rule 103 is given twice "
        f"(first at line {line_of(text, FIRST_103)}); each rule number once",
    ]
    assert "die_sides" in said[2] and "expected a whole number from" in said[2]


@pytest.mark.parametrize("name", preset_names())
def test_every_shipped_preset_and_its_export_read_back_as_the_preset(name: str) -> None:
    preset = load_preset(name)
    assert preset.name == name
    assert read(export_text(name)) == preset
    assert load_preset(name) == preset
    assert set(preset.mechanics) == set(PARAMETERS)
    numbers = [rule.number for rule in preset.rules]
    assert numbers == sorted(set(numbers))
    assert nearest_preset(preset) == (name, [])


def test_an_unknown_preset_is_refused_naming_the_presets() -> None:
    with pytest.raises(ValueError, match="there is no preset 'subber'; the presets are: suber"):
        export_text("subber")


EDITED = edited(
    SUBER,
    ('name = "suber"', 'name = "our-nomic"'),
    ("win_points = 100", "win_points = 50"),
    ("to achieve 100 (positive) points.", "to achieve 50 (positive) points."),
    ('number = 213\nmutable = true\ntext = """If the rules',
     'number = 214\nmutable = true\ntitle = "Late joiners"\ntext = """A player who joins late '
     'begins with the lowest score of any player."""\n\n[[rules]]\nnumber = 213\nmutable = true'
     '\ntext = """If the rules'),
)


def test_an_edited_suber_reads_with_its_new_rule_and_its_nearest_is_suber() -> None:
    ours = read(EDITED)
    suber = load_preset("suber")
    assert ours.name == "our-nomic"
    assert ours.mechanics == {**suber.mechanics, "win_points": "50"}
    assert [rule.number for rule in ours.rules][-2:] == [213, 214]
    assert ours.rules[-1] == RuleSpec(214, "A player who joins late begins with the lowest "
                                      "score of any player.", True, "Late joiners")
    changed = [rule.number for rule in ours.rules if rule not in suber.rules]
    assert changed == [208, 214]
    assert nearest_preset(ours) == ("suber", ["win_points: 100 -> 50"])


def test_a_clean_files_summary_says_its_rules_and_what_differs() -> None:
    assert summary(read(EDITED), "ours.toml").split("\n") == [
        "ours.toml: our-nomic (Peter Suber's Initial Set of Nomic): no faults",
        "rules: 30 (16 immutable, 14 mutable), numbered 101 to 214",
        "nearest preset: suber",
        "mechanics that differ from suber:",
        "  win_points: 100 -> 50",
    ]
    assert summary(load_preset("suber"), "suber.toml").split("\n")[-1] == (
        "mechanics: the same as suber")


def test_the_nearest_preset_is_the_one_with_fewest_differences() -> None:
    rurru = load_preset("rurru")
    text = edited(export_text("rurru"), ('name = "rurru"', 'name = "ours"'))
    ours = read(text)
    assert ours.rules == rurru.rules
    assert nearest_preset(ours) == ("rurru", [])


_SUBER_RULES = load_preset("suber").rules
_SOURCES = set(load_preset("suber").sources.values())


def _without(text: str, number: int) -> str:
    """Suber's text without rule ``number``'s [[rules]] table."""
    start = text.index(f"[[rules]]\nnumber = {number}\n")
    end = text.find("[[rules]]", start + 1)
    return text[:start] + (text[end:] if end >= 0 else "")


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from([rule.number for rule in _SUBER_RULES]), max_size=6),
       st.integers(1, 1_000_000))
def test_rules_left_out_and_a_winning_score_changed(dropped: set[int], points: int) -> None:
    # The rule says the winning score too: the file's phrase reads it from rule 208.
    text = edited(SUBER, ("win_points = 100", f"win_points = {points}"),
                  ("achieve 100 (positive)", f"achieve {points} (positive)"))
    for number in dropped:
        text = _without(text, number)
    if not dropped & _SOURCES:
        ours = read(text)
        assert [r.number for r in ours.rules] == [
            r.number for r in _SUBER_RULES if r.number not in dropped]
        assert ours.mechanics["win_points"] == str(points)
        differences = [] if points == 100 else [f"win_points: 100 -> {points}"]
        assert nearest_preset(ours) == ("suber", differences)
        return
    # Each mechanic whose rule is gone is a fault at its own line in [mechanics.sources].
    gone = [name for name, rule in load_preset("suber").sources.items() if rule in dropped]
    assert sorted((f.line, f.key) for f in faults_of(text)) == sorted(
        (_source_line(text, name), f"mechanics.sources.{name}") for name in gone)


def _source_line(text: str, name: str) -> int:
    start = text.index("\n[mechanics.sources]\n")
    return text[: text.index(f"\n{name} = ", start)].count("\n") + 2


def _config(folder: Path, ruleset: str) -> Path:
    config = folder / "speakerbot.toml"
    config.write_text(f'[game]\nname = "N"\nruleset = "{ruleset}"\naddress = "g@example.org"\n'
                      'speaker = "h@example.org"\nspeaker_name = "H"\n', encoding="utf-8")
    return config


def test_a_configs_ruleset_file_is_read_beside_the_config(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "ours.toml").write_text(EDITED, encoding="utf-8")
    settings = load_settings(_config(tmp_path, "rules/ours.toml"), {ADMIN: "pw"})
    assert settings.game.ruleset == str(tmp_path / "rules" / "ours.toml")
    assert load_ruleset(settings.game.ruleset) == read(EDITED)


def test_a_config_naming_a_faulty_ruleset_file_is_refused_with_every_fault(
        tmp_path: Path) -> None:
    text = edited(SUBER, *FIVE)
    (tmp_path / "ours.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_settings(_config(tmp_path, "ours.toml"), {ADMIN: "pw"})
    message = str(refused.value)
    assert f"{tmp_path / 'ours.toml'}: 5 faults" in message
    for marker in ("first_proposal_number = 213", "die_sides = 0", "win_pionts =",
                   "win_points = 2080", SECOND_103):
        assert f"{tmp_path / 'ours.toml'}:{line_of(text, marker)}: " in message
