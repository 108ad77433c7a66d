"""Writing the archive: swapped in whole, and never over a folder speakerbot did not build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speakerbot.site import MARKER, SiteWriteError, write_site


def builds(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".site-"))


def test_the_target_becomes_a_link_to_a_whole_build_and_the_old_one_goes(tmp_path: Path) -> None:
    target = tmp_path / "site"
    first = write_site({"index.html": b"one", "rules/index.html": b"rules"}, target)
    assert target.is_symlink() and (target / "index.html").read_bytes() == b"one"
    assert (target / MARKER).is_file() and (target / "rules/index.html").exists()
    second = write_site({"index.html": b"two"}, target)
    assert (target / "index.html").read_bytes() == b"two"
    assert not first.exists() and second.exists()
    assert builds(tmp_path) == [second.name]
    assert not (target / "rules").exists()  # nothing of the old build is left in the new


def test_a_reader_holding_the_old_build_keeps_reading_it_until_the_swap(tmp_path: Path) -> None:
    target = tmp_path / "site"
    write_site({"index.html": b"one"}, target)
    held = os.open(target / "index.html", os.O_RDONLY)
    try:
        write_site({"index.html": b"two"}, target)
        assert os.read(held, 10) == b"one"  # an open file is never rewritten in place
    finally:
        os.close(held)


def test_an_empty_folder_or_an_old_build_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "site"
    target.mkdir()
    write_site({"index.html": b"x"}, target)
    assert target.is_symlink() and (target / "index.html").read_bytes() == b"x"
    assert builds(tmp_path) == [os.readlink(target)]


@pytest.mark.parametrize("kind", ["folder", "file", "link"])
def test_what_speakerbot_did_not_build_is_never_replaced(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "site"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    if kind == "folder":
        target.mkdir()
        (target / "notes.txt").write_text("keep me")
    elif kind == "file":
        target.write_text("keep me")
    else:
        target.symlink_to(mine)
    with pytest.raises(SiteWriteError):
        write_site({"index.html": b"x"}, target)
    assert (mine / "notes.txt").read_text() == "keep me"
    assert builds(tmp_path) == []


@pytest.mark.parametrize("name", ["../escape.html", "/etc/passwd", "a/../../b"])
def test_a_path_leaving_the_site_is_refused_and_nothing_is_left(tmp_path: Path,
                                                                  name: str) -> None:
    target = tmp_path / "site"
    with pytest.raises(SiteWriteError):
        write_site({"index.html": b"x", name: b"bad"}, target)
    assert not target.exists() and builds(tmp_path) == []
    assert not (tmp_path / "escape.html").exists()
