"""A group's own ruleset and snapshot files through the real command line.

``rulesets check`` prints every fault of a file at once (each with its line and key) and
exits 1, or a summary and 0; every preset's export passes it; ``init`` and ``run`` refuse a
faulty ruleset with the same lines and create no database; ``import`` refuses a faulty
snapshot (too large, a score that is no number, an address that is no address, an unknown
key) or a second game, and changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.adapters.store import Store
from speakerbot.presets import MAX_FILE_BYTES, PRESET_NAMES, FileFaults, read_ruleset_file
from tests.cli.test_rulesets import ROOT
from tests.support.commands import speakerbot as forked
from tests.support.configs import game_config

EXAMPLE_IMPORT = ROOT / "config" / "example-import.toml"
SUBER = (ROOT / "data" / "rulesets" / "suber.toml").read_text()
FAULT_LINE = re.compile(r"^(?P<file>\S+):(?P<line>\d+): (?P<key>[\w.\[\]]+): (?P<what>.+)$")


def speakerbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return forked(args, env=os.environ, cwd=cwd)


def export(name: str, folder: Path) -> str:
    result = speakerbot("rulesets", "export", name, cwd=folder)
    assert result.returncode == 0, result.stderr
    return result.stdout


def five_faults(folder: Path) -> Path:
    """An export of suber with five faults, one of each kind ``rulesets check`` names."""
    text = export("suber", folder)
    edits = [
        ("die_sides = 6", "die_sides = 6\ndie_sidez = 8"),  # an unknown mechanic
        ("win_points = 100", "win_points = -3"),  # a value out of its range
        ("first_proposal_number = 301", "first_proposal_number = 200"),  # not above the rules
        ("adoption = 203", "adoption = 299"),  # a mechanic's source rule missing
    ]
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    text += '\n[[rules]]\nnumber = 207\nmutable = true\ntext = "Two votes each."\n'  # repeated
    path = folder / "ours.toml"
    path.write_text(text)
    return path


def fault_lines(output: str) -> list[re.Match[str]]:
    return [match for line in output.splitlines() if (match := FAULT_LINE.match(line))]


def line_of(path: Path, fragment: str, which: int = -1) -> int:
    """The number (from 1) of a line of ``path`` holding ``fragment``: the last by default."""
    lines = path.read_text().splitlines()
    return [n for n, line in enumerate(lines, 1) if fragment in line][which]


def test_check_prints_all_five_faults_with_line_and_key_and_exits_1(tmp_path: Path) -> None:
    path = five_faults(tmp_path)
    result = speakerbot("rulesets", "check", path.name, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == "ours.toml: 5 faults"
    found = {(int(m["line"]), m["key"]): m["what"] for m in fault_lines(result.stdout)}
    first = line_of(path, "number = 207", 0)
    assert len(found) == 5, result.stdout
    expected = {
        (line_of(path, "die_sidez"), "mechanics.die_sidez"): "did you mean die_sides",
        (line_of(path, "win_points = -3"), "mechanics.win_points"): "not -3",
        (line_of(path, "first_proposal_number = 200"), "mechanics.first_proposal_number"):
            "above every rule's number (the highest is 213), not 200",
        (line_of(path, "adoption = 299"), "mechanics.sources.adoption"): "no rule 299",
        (line_of(path, "number = 207"), "rules[30].number"):
            f"rule 207 is given twice (first at line {first})",
    }
    for (line, key), said in expected.items():
        assert said in found.get((line, key), ""), (line, key, result.stdout)


def test_a_clean_file_prints_its_summary_and_exits_0(tmp_path: Path) -> None:
    text = export("suber", tmp_path).replace('name = "suber"', 'name = "pine-nomic"', 1)
    text = text.replace("win_points = 100", "win_points = 50", 1)
    # Rule 208 says it too (the file reads win_points from its words).
    text = text.replace("achieve 100 (positive) points", "achieve 50 (positive) points", 1)
    text += '\n[[rules]]\nnumber = 214\ntitle = "Tea"\nmutable = true\ntext = "Tea at four."\n'
    (tmp_path / "ours.toml").write_text(text)
    result = speakerbot("rulesets", "check", "ours.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines() == [
        "ours.toml: pine-nomic (Peter Suber's Initial Set of Nomic): no faults",
        "rules: 30 (16 immutable, 14 mutable), numbered 101 to 214",
        "nearest preset: suber",
        "mechanics that differ from suber:",
        "  win_points: 100 -> 50",
    ]


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_presets_export_passes_check(tmp_path: Path, name: str) -> None:
    text = export(name, tmp_path)
    assert text == (ROOT / "data" / "rulesets" / f"{name}.toml").read_text()
    (tmp_path / f"{name}.toml").write_text(text)
    result = speakerbot("rulesets", "check", f"{name}.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith(f"{name}.toml: {name} (")
    assert f"nearest preset: {name}\nmechanics: the same as {name}\n" in result.stdout


@pytest.mark.parametrize("args", [("rulesets", "export", "calvinball"),
                                  ("rulesets", "export"), ("rulesets", "check")])
def test_export_of_an_unknown_name_or_of_nothing_exits_2(tmp_path: Path,
                                                          args: tuple[str, ...]) -> None:
    result = speakerbot(*args, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert ("no preset 'calvinball'" in result.stderr) or ("usage" in result.stderr)


TRICKY_LINES = {
    "a # in a one-line array's string": 'history = ["Enacted by proposal #214"]',
    "a [ in a one-line array's string": 'history = ["Enacted [sic] by proposal 214 [and"]',
    "a ''' in a one-line string": "title = \"Tea ''' time\"",
    'a """ in a comment': 'title = "Tea" # not """ a string',
    'an escaped """ in a multi-line string':
        'text = """Tea \\""" is served,\n[[rules]]\nat four."""',
}


@pytest.mark.parametrize("case", TRICKY_LINES)
def test_a_fault_after_a_tricky_line_is_placed_on_its_own_line(tmp_path: Path,
                                                                 case: str) -> None:
    # A rule with a line whose quotes, brackets or # the scan for lines could misread, then
    # a rule with a fault, then one more rule the fault could wrongly be placed at.
    tricky = TRICKY_LINES[case]
    first = "" if tricky.startswith("text") else 'text = "Tea is served at four."\n'
    rules = (f"\n[[rules]]\nnumber = 214\nmutable = true\n{first}{tricky}\n"
             '\n[[rules]]\nnumber = 215\nmutable = true\ntext = "Cake."\nmutabel = true\n'
             '\n[[rules]]\nnumber = 216\nmutable = true\ntext = "Scones."\n')
    path = tmp_path / "ours.toml"
    path.write_text(export("suber", tmp_path) + rules)
    result = speakerbot("rulesets", "check", path.name, cwd=tmp_path)
    assert result.returncode == 1, result.stdout
    assert result.stdout.splitlines()[1:] == [
        f"ours.toml:{line_of(path, 'mutabel')}: rules[31].mutabel: unknown key; did you mean "
        "mutable?"]


TEXT = st.text(st.sampled_from(list("ab #[]{}=\"'\\\n")), max_size=24).map(lambda t: "x" + t)


def written(text: str, how: int) -> str:
    """A string as TOML, in one of its forms: basic, multi-line basic, multi-line literal."""
    if how == 1:
        return '"""' + text.replace("\\", "\\\\").replace('"', '\\"') + '"""'
    if how == 2 and "'''" not in text and not text.endswith("'"):
        return "'''" + text + "'''"
    return json.dumps(text)


@st.composite
def tricky_rules(draw: st.DrawFn) -> tuple[str, int]:
    """Rules whose strings and comments hold quotes, brackets and #; one rule has a fault.

    Returns the rules' TOML and the index (from 1, after suber's 29) of the faulty rule.
    """
    count = draw(st.integers(2, 5))
    faulty = draw(st.integers(0, count - 1))
    parts = []
    for index in range(count):
        history = [written(line, draw(st.integers(0, 2))) for line in draw(st.lists(TEXT,
                                                                                  max_size=2))]
        spread = draw(st.booleans())
        comment = draw(TEXT).replace("\n", " ")
        parts.append("\n".join([
            "", "[[rules]]", f"number = {220 + index} # {comment}", "mutable = true",
            f"text = {written(draw(TEXT), draw(st.integers(0, 2)))}",
            "history = [" + ("\n" if spread else "") + (",\n" if spread else ", ").join(history)
            + ("\n]" if spread else "]") + f" # {comment}",
            *(["mutabel = true"] if index == faulty else []), ""]))
    return "".join(parts), 30 + faulty


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=tricky_rules())
def test_any_strings_and_comments_leave_a_fault_on_its_own_line(rules: tuple[str, int]) -> None:
    # Read in this process, as `rulesets check` reads it (the tests above run the command
    # itself): a process a generated file would make the property cost a second an example.
    text, faulty = rules
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ours.toml"
        path.write_text(SUBER + text)
        with pytest.raises(FileFaults) as raised:
            read_ruleset_file(path)
        assert [fault.said("ours.toml") for fault in raised.value.faults] == [
            f"ours.toml:{line_of(path, 'mutabel')}: rules[{faulty}].mutabel: unknown key; did "
            "you mean mutable?"], text


def padded(path: Path, text: str) -> int:
    """Write ``text`` and comments after it past ten megabytes; return the file's size."""
    with path.open("w") as stream:  # valid TOML all the way: only its size is wrong
        stream.write(text)
        stream.write("# padding\n" * 1_000_000)
    size = path.stat().st_size
    assert size > 10 * MAX_FILE_BYTES
    return size


def suber_line(fragment: str) -> int:
    """The line (from 1) of suber's export where ``fragment`` first is."""
    return next(n for n, line in enumerate(SUBER.splitlines(), 1) if fragment in line)


def unreadable(case: str, path: Path) -> str:
    """Write a ruleset file that cannot be read as ``case`` says; return its one fault."""
    if case == "10 MB":
        size = padded(path, SUBER)
        return f"ours.toml: the file is {size:,} bytes; the most read is 1,000,000 bytes"
    if case == "not TOML":
        path.write_text(SUBER.replace("win_points = 100", "win_points ="))
        return f"ours.toml:{suber_line('win_points = 100')}: not TOML: Invalid value"
    path.write_bytes(SUBER.encode().replace(b"Suber", b"Sub\xe9r", 1))
    return f"ours.toml:{suber_line('Suber')}: the file is not UTF-8 text"


@pytest.mark.parametrize("case", ["10 MB", "not TOML", "not UTF-8"])
def test_a_file_too_large_not_toml_or_not_utf8_is_one_fault_and_init_creates_nothing(
        tmp_path: Path, case: str) -> None:
    said = unreadable(case, tmp_path / "ours.toml")
    checked = speakerbot("rulesets", "check", "ours.toml", cwd=tmp_path)
    assert checked.returncode == 1
    assert checked.stdout.splitlines() == ["ours.toml: 1 fault", said]
    init = speakerbot("-c", str(game_config(tmp_path, "ours.toml")), "init", cwd=tmp_path)
    assert init.returncode == 2 and "ruleset file is refused" in init.stderr
    assert not (tmp_path / "game.db").exists()


@pytest.mark.parametrize("command", ["init", "run"])
def test_init_and_run_refuse_a_faulty_ruleset_with_the_same_lines(tmp_path: Path,
                                                                   command: str) -> None:
    five_faults(tmp_path)
    checked = speakerbot("rulesets", "check", str(tmp_path / "ours.toml"), cwd=tmp_path)
    # The config names the file relative to its own folder, and runs from elsewhere.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = speakerbot("-c", str(game_config(tmp_path, "ours.toml")), command, cwd=elsewhere)
    assert result.returncode != 0
    assert "ruleset file is refused" in result.stderr
    refused = [m.group(0) for m in fault_lines(result.stderr)]
    assert len(refused) == 5 and refused == [m.group(0) for m in fault_lines(checked.stdout)]
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "elsewhere", "ours.toml", "speakerbot.toml"]
    assert list(elsewhere.iterdir()) == []


def test_a_relative_ruleset_is_read_beside_the_config_wherever_init_runs(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    text = export("suber", tmp_path).replace('name = "suber"', 'name = "pine-nomic"', 1)
    (tmp_path / "conf" / "ours.toml").write_text(text.replace(
        "win_points = 100", "win_points = 50", 1).replace(
        "achieve 100 (positive) points", "achieve 50 (positive) points", 1))
    (tmp_path / "ours.toml").write_text("not a ruleset")  # where the command runs: not read
    settings = game_config(tmp_path / "conf", "ours.toml")
    done = speakerbot("-c", str(settings), "init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [started] = events_in(tmp_path / "conf")
    assert started["type"] == "GameStarted" and started["preset"] == "pine-nomic"
    mechanics = started["mechanics"]
    assert isinstance(mechanics, dict) and mechanics["win_points"] == "50"


# --------------------------------------------------------------------------- import


# Each faulty snapshot: the worked example with one line changed, the key, what is said.
BAD_SNAPSHOTS = {
    "a score that is not a number": ("score = 112", 'score = "lots"', "players[2].score",
                                     "a number of points, such as 42 or -7.5; not 'lots'"),
    "an address that is not an address": ('address = "cyd@example.org"',
                                          'address = "cyd at example"', "players[3].address",
                                          "one email address, such as ann@example.org"),
    "an unknown key, named with the nearest": ("score = 31", "scroe = 31", "players[5].scroe",
                                               "unknown key; did you mean score?"),
    "a rule number repeated": ("number = 207", "number = 205", "rules[22].number",
                               "rule 205 is given twice"),
}


def events_in(folder: Path) -> list[dict[str, object]]:
    with Store(f"sqlite:///{folder / 'game.db'}") as store:
        return [row.data for row in store.load_events()]


@pytest.mark.parametrize("case", BAD_SNAPSHOTS)
def test_import_of_a_faulty_snapshot_names_the_fault_and_creates_nothing(
        tmp_path: Path, case: str) -> None:
    old, new, key, said = BAD_SNAPSHOTS[case]
    text = EXAMPLE_IMPORT.read_text()
    assert text.count(old) == 1, old
    (tmp_path / "snapshot.toml").write_text(text.replace(old, new))
    result = speakerbot("-c", str(game_config(tmp_path, "suber")), "import", "snapshot.toml",
                        cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[0] == "snapshot.toml: 1 fault"
    [fault] = fault_lines(result.stderr)
    assert fault["key"] == key and said in fault["what"], result.stderr
    assert int(fault["line"]) == line_of(tmp_path / "snapshot.toml", new)
    assert not (tmp_path / "game.db").exists()


def test_import_of_a_10_mb_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    size = padded(tmp_path / "snapshot.toml", EXAMPLE_IMPORT.read_text())
    result = speakerbot("-c", str(game_config(tmp_path, "suber")), "import", "snapshot.toml",
                        cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "snapshot.toml: 1 fault",
        f"snapshot.toml: the file is {size:,} bytes; the most read is {MAX_FILE_BYTES:,} bytes"]
    assert not (tmp_path / "game.db").exists()


def test_import_over_an_existing_game_is_refused_and_the_game_is_unchanged(
        tmp_path: Path) -> None:
    settings = str(game_config(tmp_path, "suber"))
    first = speakerbot("-c", settings, "import", str(EXAMPLE_IMPORT), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "6 players, next proposal 457" in first.stdout
    before = events_in(tmp_path)
    assert before[0]["type"] == "GameStarted"
    again = speakerbot("-c", settings, "import", str(EXAMPLE_IMPORT), cwd=tmp_path)
    assert again.returncode == 2 and again.stdout == ""
    assert "a game already exists in this database" in again.stderr
    assert events_in(tmp_path) == before
    init = speakerbot("-c", settings, "init", cwd=tmp_path)
    assert init.returncode != 0 and events_in(tmp_path) == before
