"""Hostile TOML is one fault with its line, never a crash: ``load_toml`` and the files it reads.

tomllib reads an array or inline table inside another by recursion, so a file nested a few
thousand deep raised RecursionError out of every command; dotted keys and table headers
nest without recursion but crashed what read the tables later (``repr``, msgspec); and a
whole number past 4,300 digits raised a bare ValueError. Each is now refused by
``load_toml``, for the configuration, a ruleset file and a snapshot alike, with the line
the nesting goes too deep on (found past strings and comments, which nest nothing).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.config import ConfigError, load_games
from speakerbot.presets import MAX_DEPTH, TomlRefused, load_toml
from speakerbot.presets.located import read_located
from speakerbot.resources import rulesets_dir
from tests.support.configs import game_config

DEEP = 5000
TOO_DEEP = f"nested more than {MAX_DEPTH} deep"
TOO_BIG = "a whole number beyond TOML's 64 bits"

# Each hostile text, what it is refused for, and the line (from 1) and key it is said at.
HOSTILE: dict[str, tuple[str, str, int, str]] = {
    "arrays 5,000 deep": ("a = " + "[" * DEEP + "]" * DEEP + "\n", TOO_DEEP, 1, ""),
    "inline tables 5,000 deep": ("a = " + "{b = " * DEEP + "1" + "}" * DEEP + "\n",
                                 TOO_DEEP, 1, ""),
    "arrays opened one a line": ("x = 1\na = [\n" + "[\n" * 30 + "]\n" * 31, TOO_DEEP,
                                 2 + MAX_DEPTH, ""),
    "a dotted key 5,000 deep": ("[game]\nname = 'x'\n" + ".".join(["b"] * DEEP) + " = 1\n",
                                TOO_DEEP, 3, ""),
    "a table header 5,000 deep": ("# a header\n[" + ".".join(["b"] * DEEP) + "]\nx = 1\n",
                                  TOO_DEEP, 2, ""),
    "tables and arrays, each shallow, deep together": (
        "[" + ".".join("abcdefghijklmno") + "]\nk = [[[[[[[[1]]]]]]]]\n", TOO_DEEP, 2, ""),
    "a 5,000-digit number": ("[limits]\nsize = " + "7" * DEEP + "\n", TOO_BIG, 2, ""),
    "a 5,000-digit hexadecimal number": ("[limits]\n\nsize = 0x" + "f" * DEEP + "\n", TOO_BIG,
                                         3, "limits.size"),
    "one past 64 bits": ("[[rules]]\nnumber = 9223372036854775808\n", TOO_BIG, 2,
                         "rules[1].number"),
    "one below 64 bits": ("n = [1, -9223372036854775809]\n", TOO_BIG, 1, "n[2]"),
}


def refused(text: str) -> TomlRefused:
    with pytest.raises(TomlRefused) as caught:
        load_toml(text)
    return caught.value


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_text_is_refused_with_its_line(case: str) -> None:
    text, reason, line, key = HOSTILE[case]
    error = refused(text)
    assert reason in error.reason and (error.line, error.key) == (line, key), error
    assert "\n" not in str(error)


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_ruleset_or_snapshot_is_one_fault_on_its_line(case: str) -> None:
    text, reason, line, key = HOSTILE[case]
    [fault] = read_located(text.encode(), "ours.toml").faults
    assert (fault.line, fault.key) == (line, key) and reason in fault.message
    assert fault.said("ours.toml").startswith(f"ours.toml:{line}: ")


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_config_is_one_config_error_on_its_line(tmp_path: Path, case: str) -> None:
    text, reason, line, _ = HOSTILE[case]
    path = tmp_path / "speakerbot.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_games(path, {})
    said = str(caught.value)
    assert said.startswith(f"{path}: is refused: ") and reason in said
    assert f"(at line {line}" in said and "\n" not in said


def test_a_config_over_a_million_bytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "speakerbot.toml"
    path.write_text("# padding\n" * 200_000)
    with pytest.raises(ConfigError) as caught:
        load_games(path, {})
    assert str(caught.value) == (f"{path}: is over 1,000,000 bytes; a configuration file is "
                                 "read up to that size")


def test_a_config_keeps_reading_old_mac_line_ends(tmp_path: Path) -> None:
    # The file was read in text mode, which makes a lone "\r" a line's end; it still is.
    path = game_config(tmp_path, "suber")
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r"))
    assert load_games(path, {}).shared.game.name == "Test Nomic"


WITHIN = {
    f"arrays {MAX_DEPTH} deep": "a = " + "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    "the 64-bit ends": "a = [-9223372036854775808, 9223372036854775807, 0x7fffffffffffffff]",
    "brackets in strings and comments": "\n".join([
        "a = ['" + "[" * 30 + "', \"" + "{" * 30 + "\"]  # " + "[" * 30,
        "b = '''", "[" * 50 + "'''",
        'c = """' + "{" * 50 + '\\""""" # a quote kept, and one more before the three']),
    "long numbers that are not whole": "a = 1" + "0" * 5000 + ".5\nb = '" + "9" * 5000 + "'",
}


@pytest.mark.parametrize("case", WITHIN)
def test_what_is_within_the_bounds_reads_as_tomllib_reads_it(case: str) -> None:
    assert load_toml(WITHIN[case]) == tomllib.loads(WITHIN[case])


def test_every_shipped_preset_is_within_the_bounds() -> None:
    for path in rulesets_dir().glob("*.toml"):
        text = path.read_text(encoding="utf-8")
        assert load_toml(text) == tomllib.loads(text), path.name


# Values that nest nothing, however many brackets they hold: strings of every kind.
_INERT = st.sampled_from(['"[{"', "'[[]'", '"\\"[["', '"""\n[[\n{"""', "'''\n]\n'''", "1",
                          '""""a"""""'])


@st.composite
def _nested(draw: st.DrawFn) -> tuple[str, int, int | None]:
    """Arrays and inline tables nested in each other, arrays over several lines, with
    strings and comments full of brackets; how deep, and the line the level past the
    bounds opens on (None: within them)."""
    depth = draw(st.integers(1, MAX_DEPTH + 5))
    kinds = draw(st.lists(st.sampled_from(["array", "table"]), min_size=depth,
                          max_size=depth))
    text, too_deep = "a = ", None
    for level, kind in enumerate(kinds, start=1):
        if level == MAX_DEPTH + 1:
            too_deep = text.count("\n") + 1
        if kind == "table":
            text += "{k = "  # an inline table is one line: no line break inside but a value's
            continue
        text += "["
        if draw(st.booleans()):
            text += draw(_INERT) + ", "
        text += draw(st.sampled_from(["", "\n", "  # [[{{ a comment\n"]))
    text += "1"
    for kind in reversed(kinds):
        text += "}" if kind == "table" else draw(st.sampled_from(["]", "\n]", ", ]"]))
    return text + "\n", len(kinds), too_deep


@settings(max_examples=80, deadline=None)
@given(_nested())
def test_the_line_said_is_where_the_nesting_first_goes_too_deep(
        drawn: tuple[str, int, int | None]) -> None:
    text, depth, too_deep = drawn
    expected = tomllib.loads(text)  # TOML, as built
    if depth <= MAX_DEPTH:
        assert load_toml(text) == expected
        return
    error = refused(text)
    assert TOO_DEEP in error.reason and error.line == too_deep, (error, text)
