"""A TOML file read with the line of every key: the lines are right, and a bad file is refused.

The shipped presets are checked key by key against their own text; hypothesis builds
documents with tables, arrays of tables, dotted keys, multi-line strings and arrays
(strings whose lines look like ``key = ...`` or ``[table]``) and checks every key's line.
A file too large, not UTF-8 or not TOML is one fault, with the line where it has one.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.presets.located import (
    MAX_FILE_BYTES,
    Key,
    Located,
    read_located,
    read_located_file,
)
from speakerbot.presets.shipped import preset_names
from speakerbot.resources import rulesets_dir


def _walk(data: dict[str, Any], at: Key = ()) -> list[tuple[Key, Any]]:
    """Every key of a parsed document with its value, tables and array entries included."""
    found: list[tuple[Key, Any]] = []
    for name, value in data.items():
        key = (*at, name)
        found.append((key, value))
        if isinstance(value, dict):
            found += _walk(value, key)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for index, entry in enumerate(value):
                found.append(((*key, index), entry))
                found += _walk(entry, (*key, index))
    return found


def _headers(lines: list[str]) -> list[tuple[int, str]]:
    """The table headers of a file: (line from 1, header as written)."""
    return [(number, raw.strip()) for number, raw in enumerate(lines, start=1)
            if re.match(r"^\[\[?[a-z.]+\]\]?$", raw.strip())]


def _header_of(key: Key) -> str:
    names = ".".join(str(part) for part in key if isinstance(part, str))
    return f"[[{names}]]" if isinstance(key[-1], int) else f"[{names}]"


@pytest.mark.parametrize("name", preset_names())
def test_every_key_of_a_shipped_preset_is_on_its_own_line(name: str) -> None:
    text = (rulesets_dir() / f"{name}.toml").read_text(encoding="utf-8")
    lines = text.split("\n")
    located = read_located(text.encode(), name)
    headers = _headers(lines)
    assert located.faults == []
    placed = 0
    for key, value in _walk(located.data):
        table_only = isinstance(value, dict) and not isinstance(key[-1], int)
        if table_only and not any(h == _header_of(key) for _, h in headers):
            continue  # [persons] is only implied by [persons.speaker]: it has no line
        if isinstance(value, list) and value and isinstance(value[0], dict):
            continue  # rules is its entries: rules[1] is the first [[rules]]
        line = located.lines[key]
        placed += 1
        if isinstance(key[-1], int):
            # The n-th [[rules]] header is rules[n].
            same = [number for number, h in headers if h == _header_of(key)]
            assert line == same[key[-1]], key
        elif isinstance(value, dict):
            assert lines[line - 1].strip() == _header_of(key), key
        else:
            assert re.match(rf"^\s*{re.escape(str(key[-1]))}\s*=", lines[line - 1]), key
            above = [h for number, h in headers if number < line]
            table = key[:-1]
            assert (above[-1] if above else "") == (_header_of(table) if table else ""), key
    assert placed == len(located.lines)


# --- Documents built by hypothesis, each key's line known as it is written ---

_TRICKY = ["number = 3", "[rules]", "[[rules]]", "  text = \"x\"", "[preset]", "# a comment",
           "", "a.b = 1", "]", "history = [", "'''", "title = '''x"]
_WORDS = st.text(st.sampled_from("abcz 019=#[].,'é\u2028\u0085"), max_size=12)
_LINE = st.one_of(st.sampled_from(_TRICKY), _WORDS)
_STEMS = ["number", "text", "rules", "preset", "a-b", "x_", "z"]


@dataclass
class Writer:
    """Writes a document line by line and notes where each key goes."""

    lines: list[str] = field(default_factory=list)
    expected: dict[Key, int] = field(default_factory=dict)

    def put(self, line: str, key: Key | None = None) -> None:
        self.lines.append(line)
        if key is not None:
            self.expected.setdefault(key, len(self.lines))


_COMMENT = st.text(st.sampled_from("ab =#[]'\""), max_size=8).map(lambda text: f"  # {text}")


@st.composite
def _value(draw: st.DrawFn) -> list[str]:
    """The lines of one value: the first follows ``key = `` on the key's own line."""
    lines = draw(_bare_value())
    if draw(st.booleans()):  # a comment after the value, with quotes and brackets in it
        lines[-1] += draw(_COMMENT)
    return lines


@st.composite
def _bare_value(draw: st.DrawFn) -> list[str]:
    kind = draw(st.sampled_from(["int", "string", "basic", "literal", "array", "strings"]))
    if kind == "int":
        return [str(draw(st.integers(-99, 99)))]
    if kind == "string":  # three quotes of the other kind, or a bracket, in a one-line string
        quote = draw(st.sampled_from(["\"", "'"]))
        other = "'" if quote == "\"" else "\""
        return [quote + draw(st.text(st.sampled_from(f"ab =[#]{other}"), max_size=8)) + quote]
    body = draw(st.lists(_LINE, max_size=4))
    if kind == "basic":
        return ['"""', *(line for line in body if '"' not in line), '"""']
    if kind == "literal":
        body = [line for line in body if "''" not in line and not line.endswith("'")]
        return ["'''" + (body[0] if body else ""), *body[1:], "'''"]
    if kind == "array":
        return ["[", *(f"  {n}," for n in draw(st.lists(st.integers(0, 9), max_size=3))), "]"]
    return ["[", *(f'  "{line}",' for line in body if '"' not in line), "]"]


def _assign(writer: Writer, draw: st.DrawFn, at: Key, names: list[str]) -> None:
    """Write one key (plain or dotted) in the table ``at``."""
    dotted = draw(st.booleans())
    key = (*at, names.pop(), names.pop()) if dotted and len(names) >= 2 else (*at, names.pop())
    value = draw(_value())
    writer.put(f"{'.'.join(str(k) for k in key[len(at):])} = {value[0]}", key)
    for line in value[1:]:
        writer.put(line)


@st.composite
def documents(draw: st.DrawFn) -> Writer:
    """A document: top-level keys, tables, and arrays of tables with sub-tables."""
    # Unique by their index; the stems are the names these files use.
    stems = draw(st.lists(st.sampled_from(_STEMS), min_size=40, max_size=40))
    names = [f"{stem}{index}" for index, stem in enumerate(stems)]
    writer = Writer()
    for _ in range(draw(st.integers(0, 2))):
        _assign(writer, draw, (), names)
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            table: Key = (names.pop(),)
            writer.put(f"[{table[0]}]", table)
            for _ in range(draw(st.integers(0, 3))):
                _assign(writer, draw, table, names)
            continue
        array = names.pop()
        for index in range(draw(st.integers(1, 3))):
            writer.put("")
            writer.put(f"[[{array}]]", (array, index))
            for _ in range(draw(st.integers(0, 2))):
                _assign(writer, draw, (array, index), names)
            if draw(st.booleans()):
                sub = names.pop()
                writer.put(f"[{array}.{sub}]", (array, index, sub))
                _assign(writer, draw, (array, index, sub), names)
    return writer


@settings(max_examples=300, deadline=None)
@given(documents())
def test_the_line_of_every_key_in_a_built_document(writer: Writer) -> None:
    text = "\n".join(writer.lines) + "\n"
    tomllib.loads(text)  # the document is TOML: the strategy writes nothing else
    located = read_located(text.encode(), "built.toml")
    assert located.faults == []
    assert located.lines == writer.expected


# --- Files refused whole ---

def _only_fault(located: Located) -> tuple[int | None, str]:
    assert located.data == {} and located.lines == {}
    assert len(located.faults) == 1
    fault = located.faults[0]
    assert fault.key == ""
    return fault.line, fault.message


def test_a_file_one_byte_too_large_is_refused_and_one_at_the_limit_is_read() -> None:
    at_limit = b"a = 1\n" + b"#" * (MAX_FILE_BYTES - 7) + b"\n"
    assert len(at_limit) == MAX_FILE_BYTES
    assert read_located(at_limit, "x").data == {"a": 1}
    line, message = _only_fault(read_located(at_limit + b"\n", "x"))
    assert line is None
    assert message == "the file is 1,000,001 bytes; the most read is 1,000,000 bytes"


class CountingFile:
    """Counts the bytes read from a file, to show a large one is not read whole."""

    read = 0


def test_a_ten_megabyte_file_is_refused_without_reading_it_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "huge.toml"
    path.write_bytes(b"a = 1\n" * (10_000_000 // 6 + 1))
    real_open = Path.open

    def counted(self: Path, *args: Any, **kwargs: Any) -> Any:
        stream = real_open(self, *args, **kwargs)
        real_read = stream.read

        def read(size: int = -1) -> Any:
            data = real_read(size)
            CountingFile.read += len(data)
            return data

        stream.read = read
        return stream

    monkeypatch.setattr(Path, "open", counted)
    CountingFile.read = 0
    line, message = _only_fault(read_located_file(path))
    assert CountingFile.read <= MAX_FILE_BYTES + 1
    assert line is None
    assert message == "the file is 10,000,002 bytes; the most read is 1,000,000 bytes"


def test_a_file_that_is_not_there_is_a_fault(tmp_path: Path) -> None:
    line, message = _only_fault(read_located_file(tmp_path / "absent.toml"))
    assert line is None and message.startswith("cannot read the file: ")


@pytest.mark.parametrize(("data", "line"), [
    (b"\xff\xfe", 1),
    (b"a = 1\nb = 2\nc = \"caf\xe9\"\n", 3),
    (b"a = 1\n\n\n\nb = \"ok\" # \xc3\n", 5),
])
def test_a_file_not_utf8_names_the_line(data: bytes, line: int) -> None:
    assert _only_fault(read_located(data, "x")) == (line, "the file is not UTF-8 text")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("a = \n", 1, "Invalid value"),
    ("a = 1\nb = 2\nb = 3\n", 3, "Cannot overwrite a value"),
    ("[preset]\nname = \"x\"\n\n[preset]\n", 4, "Cannot declare ('preset',) twice"),
    ("a = 1\n\n[[rules]]\nnumber = 1\nnumber = 2\n", 5, "Cannot overwrite a value"),
    ('text = """\nnever closed\n', None, "Unterminated string (at end of document)"),
])
def test_a_file_not_toml_names_the_line_of_the_error(
        text: str, line: int | None, message: str) -> None:
    # The line is said once, as the fault's; tomllib's "(at line N, column M)" is left out.
    assert _only_fault(read_located(text.encode(), "x")) == (line, f"not TOML: {message}")
