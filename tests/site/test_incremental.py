"""The archive kept page by page equals a full build of the same record, byte for byte.

A record is fed to ``KeptSite`` in pieces (one line at a time, random pieces, the pieces
of the daemon's transactions); after each, the files it holds (its first build, with
each update's files written, its removed files gone, its record lines appended) must be
those of ``build_site`` on the record so far, file set included. An update writes only
what changed: for a ballot's close, a handful of pages however long the game.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.adapters.store import Store
from speakerbot.config import parse_settings
from speakerbot.engine import chain
from speakerbot.engine import commands as c
from speakerbot.entrypoints.site import SiteKeeper, render
from speakerbot.resources import templates_dir
from speakerbot.service import GameService
from speakerbot.site import KeptSite, SiteUpdate, build_site, update_site, write_site
from speakerbot.site.archive import HISTORY_PAGE
from speakerbot.site.folding import RecordFold, read_games
from tests.engine.cast import ALICE
from tests.engine.cast import SPEAKER as HARNESS_SPEAKER
from tests.engine.harness import amend, enact, repeal
from tests.site.records import long_game, nomicam_game, public_lines, voted_record

TEMPLATES = templates_dir() / "site"
NAME = "Kept <Nomic>"
Lines = list[dict[str, Any]]


@pytest.fixture(scope="module")
def record() -> Lines:
    """Two games: a long one that goes through every kind of page, then a short one."""
    return public_lines([("g1", long_game(24)), ("g2", nomicam_game(4))])


def full(lines: Sequence[dict[str, Any]]) -> dict[str, bytes]:
    return build_site(lines, TEMPLATES, name=NAME, url="https://nomic.example/")


def apply(files: dict[str, bytes], update: SiteUpdate) -> None:
    """Do to ``files`` what ``update_site`` does to the folder."""
    for path in update.removed:
        del files[path]
    files.update(update.files)
    files["record.jsonl"] += update.record


def differences(kept: dict[str, bytes], built: dict[str, bytes]) -> list[str]:
    return sorted(set(kept) ^ set(built)) + sorted(
        path for path in set(kept) & set(built) if kept[path] != built[path])


def keep(lines: Lines, sizes: Sequence[int], *, check_each: bool = True) -> dict[str, bytes]:
    """Feed ``lines`` in pieces of ``sizes``; check the kept files against a full build."""
    site = KeptSite(TEMPLATES, name=NAME, url="https://nomic.example/")
    files = site.build(lines[:sizes[0]])
    done = sizes[0]
    for size in sizes[1:]:
        apply(files, site.update(lines[done:done + size]))
        done += size
        if check_each:
            assert differences(files, full(lines[:done])) == [], f"after line {done}"
    assert differences(files, full(lines[:done])) == []
    return files


def test_the_record_goes_through_every_kind_of_page(record: Lines) -> None:
    kinds = Counter(line["type"] for line in record)
    for kind in ("VoteClosed", "RuleEnacted", "RuleAmended", "RuleRepealed", "RuleTransmuted",
                 "CfjCalled", "JudgementDelivered", "PlayerJoined", "PlayerLeft", "GameWon",
                 "NewGameBegun", "ScoreChanged"):
        assert kinds[kind] > 0, kind
    assert kinds["GameStarted"] == 2
    first = read_games(record)[0]
    assert len(first.timeline) > HISTORY_PAGE  # its history crosses a page's end


def test_folding_in_pieces_gives_what_folding_the_whole_gives(record: Lines) -> None:
    whole = read_games(record)
    pieces = RecordFold()
    for start in range(0, len(record), 7):
        pieces.fold(record[start:start + 7])
    assert pieces.games == whole


def test_one_line_at_a_time_the_kept_site_is_a_full_build(record: Lines) -> None:
    keep(record, [1] * len(record))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(st.data())
def test_any_pieces_keep_the_site_a_full_build(record: Lines, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, len(record) - 1), max_size=25)))
    bounds = [0, *cuts, len(record)]
    keep(record, [high - low for low, high in itertools.pairwise(bounds)],
         check_each=False)


def test_the_kept_folder_equals_a_full_build_written_whole(record: Lines,
                                                           tmp_path: Path) -> None:
    site = KeptSite(TEMPLATES, name=NAME, url="https://nomic.example/")
    kept, whole = tmp_path / "kept", tmp_path / "whole"
    write_site(site.build(record[:40]), kept)
    for start in range(40, len(record), 9):
        update = site.update(record[start:start + 9])
        update_site(update.files, kept, removed=update.removed, record=update.record)
    write_site(full(record), whole)
    assert tree(kept) == tree(whole)


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Return every file under ``root`` (its link followed): its bytes and mode."""
    base = root.resolve()
    found = {}
    for folder, _, names in os.walk(base):
        for name in names:
            path = Path(folder) / name
            found[str(path.relative_to(base))] = (path.read_bytes(), path.stat().st_mode)
    return found


def written(proposals: int) -> dict[str, set[str]]:
    """Return the files one proposal and then its close write, in a game of ``proposals``."""
    lines = voted_record(proposals)
    close = max(n for n, line in enumerate(lines) if line["type"] == "VoteClosed")
    submitted = max(n for n, line in enumerate(lines[:close])
                    if line["type"] == "ProposalSubmitted")
    site = KeptSite(TEMPLATES, name=NAME)
    site.build(lines[:submitted])
    proposal = site.update(lines[submitted:submitted + 1])
    assert site.update(lines[submitted + 1:close]).files == {}  # nothing public between
    closing = site.update(lines[close:])
    assert not proposal.removed and not closing.removed
    return {"proposal": set(proposal.files), "close": set(closing.files),
            "events": {str(len(lines))}}


def pages(paths: set[str]) -> set[str]:
    """Return the paths that are not history pages."""
    return {path for path in paths if not path.startswith(("history/", "games/long/history/"))}


def test_a_close_writes_a_few_files_however_long_the_game() -> None:
    short, long = written(33), written(351)  # the last of each: the same kind
    assert int(*short["events"]) < 250 and int(*long["events"]) > 1900
    for kind in ("proposal", "close"):
        # A close's events may begin a page of the history: one more page, and the last.
        assert len(pages(short[kind])) == len(pages(long[kind])), kind
        assert len(short[kind] - pages(short[kind])) <= 4 >= len(long[kind] - pages(long[kind]))
    # Each twice (the root and games/<id>/): the proposal's page, its proposer's, the
    # lists and the page of every proposal it is on, the home page, the ruleset, a history
    # page, the chart, the feed; for the close, the players whose scores changed (a page
    # of their changes only once it fills) and the rule it changed (page and feed).
    # The search index besides (search.py): the shards of the rule's changed words and its
    # bucket of titles, each twice.
    searched = {path for path in long["close"] if "search/" in path}
    assert len(long["close"] - searched) <= 2 * 17 + 1, sorted(long["close"])
    assert "proposals/list/4.html" in long["close"]
    assert not {path for path in long["close"] if path.startswith("players/player-0/")}
    assert len(searched) <= 2 * 12, sorted(searched)
    assert not {path for path in long["proposal"] if "search/docs/r" in path}
    assert {"proposals/index.html", "games/long/feed.atom", "index.html",
            "scores.svg"} <= long["close"]
    proposed = {path for path in long["proposal"] if "search/" in path}
    assert len(long["proposal"] - proposed) <= 2 * 10 + 1, sorted(long["proposal"])
    assert len(proposed) <= 2 * 12, sorted(proposed)  # its words' shards, its bucket
    assert not any(path.startswith("rules/") and path != "rules/index.html"
                   for path in long["proposal"])


# --- the daemon's keeper, with a real service and store ------------------------------------

SPEAKER = "chuck@example.org"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GameService]:
    settings = parse_settings({
        "game": {"name": "Kept", "ruleset": "nomicam", "address": "game@kept.test",
                 "speaker": SPEAKER, "speaker_name": "Chuck", "admin_password": "pw"},
        "database": {"url": f"sqlite:///{tmp_path / 'game.db'}"},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
        "site": {"dir": str(tmp_path / "archive")},
    }, path=tmp_path / "kept.toml", environ={})
    store = Store(settings.database.url)
    store.upgrade()
    store.close()
    with GameService.open(settings, rng=random.Random(1)) as opened:
        opened.start_game()
        yield opened


def transactions() -> Iterator[c.Command]:
    """Overrides that change players, scores and rules, one transaction each."""
    for n in range(4):
        yield c.AddPlayer(SPEAKER, f"p{n}@kept.test", f"Player {n}")
    yield c.AdjustScore(SPEAKER, "p0@kept.test", Decimal(5), "tea")
    yield c.EditRule(SPEAKER, enact("Players may whistle."))
    yield c.EditRule(SPEAKER, amend(202, "All players begin with 1 point."))
    yield c.EditRule(SPEAKER, repeal(213))
    yield c.RemovePlayer(SPEAKER, "p3@kept.test", "asked to")
    yield c.AdjustScore(SPEAKER, "p1@kept.test", Decimal(-2), "spilt tea")


def test_the_daemons_archive_is_kept_equal_to_a_full_build(
        service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = service.settings
    keeper = SiteKeeper(settings, service)
    assert keeper.refresh() and not keeper.refresh()  # nothing new: nothing done
    target = tmp_path / "archive"
    build = os.readlink(target)
    reads: list[int] = []
    load = service.store.load_events

    def recorded(session: Any = None, *, after: int = 0, links: bool = False) -> list[Any]:
        reads.append(after)
        return load(session, after=after, links=links)

    monkeypatch.setattr(service.store, "load_events", recorded)
    for command in transactions():
        service.speaker_command(command)
        reads.clear()
        assert keeper.refresh()
        assert reads and all(after > 0 for after in reads)  # only what followed was read
        write_site(render(settings, service.public_record()), tmp_path / "whole")
        assert tree(target) == tree(tmp_path / "whole"), command
    assert os.readlink(target) == build  # updated in place, never built whole again


def test_a_failed_update_builds_the_archive_whole(
        service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    keeper = SiteKeeper(service.settings, service)
    assert keeper.refresh()
    target = tmp_path / "archive"
    build = os.readlink(target)

    def broken(self: KeptSite, lines: Any) -> SiteUpdate:
        raise RuntimeError("a bug in the incremental build")

    monkeypatch.setattr(KeptSite, "update", broken)
    service.speaker_command(c.AddPlayer(SPEAKER, "p0@kept.test", "Player 0"))
    assert keeper.refresh()
    assert "a bug in the incremental build" in caplog.text
    assert os.readlink(target) != build  # built whole and swapped in
    write_site(render(service.settings, service.public_record()), tmp_path / "whole")
    assert tree(target) == tree(tmp_path / "whole")
    monkeypatch.undo()
    shutil.rmtree(target.resolve())
    target.unlink()  # the archive is gone: the next update builds it whole
    service.speaker_command(c.AddPlayer(SPEAKER, "p1@kept.test", "Player 1"))
    assert keeper.refresh()
    write_site(render(service.settings, service.public_record()), tmp_path / "whole")
    assert tree(target) == tree(tmp_path / "whole")


def test_a_repealed_rules_page_moves_when_its_number_is_taken_again() -> None:
    """Every page linking to the repealed rule follows it to ``<number>-2``, kept as built."""
    game = nomicam_game(2)
    game.ok(c.EditRule(HARNESS_SPEAKER, enact("Players may hum.")))
    hummed = max(game.state.rules)
    game.ok(c.EditRule(HARNESS_SPEAKER, repeal(hummed)))
    game.ok(c.EditRule(HARNESS_SPEAKER, enact("Players may sing.")))
    data = [{key: value for key, value in line.items() if key not in ("seq", "prev", "hash")}
            for line in public_lines([("g1", game)])]
    # The engine never numbers a rule as one repealed: the record is told so by hand.
    sung = max(n for n, item in enumerate(data) if item["type"] == "RuleEnacted")
    data[sung]["number"] = hummed
    lines = list(chain.extend(chain.Head(), data))
    files = keep(lines, [sung, 1, len(lines) - sung - 1])
    assert f"rules/{hummed}-2.html" in files and f"rules/{hummed}.html" in files
    assert b"Players may sing." in files[f"rules/{hummed}.html"]
    assert b"Players may hum." in files[f"rules/{hummed}-2.html"]


def test_a_rules_mark_of_a_change_runs_out_in_the_kept_ruleset() -> None:
    """Rules changed lately are marked; two weeks on, the kept ruleset unmarks them too."""
    game = nomicam_game(2)
    for reason in ("tea", "more tea"):
        game.later(timedelta(days=10))
        game.ok(c.AdjustScore(HARNESS_SPEAKER, ALICE, Decimal(1), reason))
    lines = public_lines([("g1", game)])
    marked = '<span class="tag changed">changed 2026'
    assert marked in full(lines[:-2])["rules/index.html"].decode()
    files = keep(lines, [len(lines) - 2, 1, 1])
    assert marked not in files["rules/index.html"].decode()
