"""Writing the archive: swapped in whole, and never over a folder speakerbot did not build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from speakerbot.site import MARKER, SiteWriteError, is_updatable, update_site, write_site


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


def test_an_update_swaps_each_file_in_removes_what_went_and_extends_the_record(
        tmp_path: Path) -> None:
    target = tmp_path / "site"
    build = write_site({"index.html": b"one", "record.jsonl": b"{}\n", "old.html": b"x"},
                       target)
    assert is_updatable(target)
    held = os.open(target / "index.html", os.O_RDONLY)
    try:
        assert update_site({"index.html": b"two", "rules/9.html": b"new"}, target,
                           removed={"old.html"}, record=b"{\"seq\":2}\n") == build
        assert os.read(held, 10) == b"one"  # the old file, renamed over, not rewritten
    finally:
        os.close(held)
    assert (target / "index.html").read_bytes() == b"two"
    assert (target / "rules/9.html").read_bytes() == b"new"
    assert not (target / "old.html").exists()
    assert (target / "record.jsonl").read_bytes() == b"{}\n{\"seq\":2}\n"
    assert sorted(p.name for p in build.rglob("*")) == sorted(
        [".speakerbot-site", "9.html", "index.html", "record.jsonl", "rules"])
    assert builds(tmp_path) == [build.name]


def test_only_a_link_to_speakerbots_build_is_updated(tmp_path: Path) -> None:
    target = tmp_path / "site"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    assert not is_updatable(target) and not is_updatable(tmp_path / "missing")
    with pytest.raises(SiteWriteError):
        update_site({"notes.txt": b"x"}, target)
    assert (target / "notes.txt").read_text() == "keep me"
    write_site({"index.html": b"x"}, tmp_path / "built")
    with pytest.raises(SiteWriteError):
        update_site({"../escape.html": b"x"}, tmp_path / "built")
    assert not (tmp_path / "escape.html").exists()
