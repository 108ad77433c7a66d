"""The Renderer loads each template once, and the one time formatter writes times as players read.

One Jinja2 environment serves every Renderer of a folder, and a Renderer keeps the templates it
compiled: a burst of ballots renders reply.txt many times but reads and compiles it once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from jinja2 import FileSystemLoader

from speakerbot.mail.outbound.compose import Renderer, format_time
from speakerbot.mail.outbound.wording import when
from speakerbot.resources import templates_dir


def test_renderers_of_one_folder_share_one_environment() -> None:
    assert Renderer(templates_dir()).environment is Renderer(templates_dir()).environment


def test_a_template_is_read_once_however_often_it_is_rendered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "note.txt").write_text("Hello {{ name }}\n\n\n\nat {{ moment|when }}\n")
    reads: list[str] = []
    read = FileSystemLoader.get_source

    def counted(loader: FileSystemLoader, environment: object, name: str) -> object:
        reads.append(name)
        return read(loader, environment, name)  # type: ignore[arg-type]

    monkeypatch.setattr(FileSystemLoader, "get_source", counted)
    renderer = Renderer(tmp_path)
    moment = datetime(2026, 1, 12, 12, 0, tzinfo=UTC)
    first = renderer.render("note.txt", name="Alice", moment=moment)
    (tmp_path / "note.txt").write_text("changed on disk\n")
    again = renderer.render("note.txt", name="Bob", moment=moment)
    assert first == "Hello Alice\n\nat 2026-01-12 12:00 UTC\n"
    assert again == "Hello Bob\n\nat 2026-01-12 12:00 UTC\n"
    assert reads == ["note.txt"]


def test_format_time_writes_utc_always_to_the_minute() -> None:
    noon = datetime(2026, 1, 12, 12, 0, tzinfo=UTC)
    assert format_time(noon) == "2026-01-12 12:00 UTC"
    # Cut, never rounded up: a deadline is not said later than it is.
    assert format_time(noon + timedelta(seconds=59)) == "2026-01-12 12:00 UTC"
    assert format_time(noon.astimezone(timezone(timedelta(hours=9)))) == "2026-01-12 12:00 UTC"
    assert format_time(None) == "no deadline"
    # Refusals give times the same way, through the same formatter.
    assert when(noon + timedelta(seconds=5)) == "2026-01-12 12:00 UTC"
