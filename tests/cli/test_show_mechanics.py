"""``speakerbot show mechanics`` lists every mechanic in force with its value and source.

Through the real command line on a suber game started by ``speakerbot init`` on SQLite: each
mechanic of the table is printed once, with the rule and the words it is read from (or
"preset default"); ``--json`` gives the same list; after ``admin SET`` the mechanic says it
was set by the host; a number after ``mechanics``, or none after ``rule``, is a usage error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from speakerbot.engine.mechanics import PARAMETERS
from tests.cli.test_commands import config, speakerbot

__all__ = ["config"]  # the fixture: a suber game's configuration


def _show(config: Path, *args: str) -> str:
    done = speakerbot("show", "mechanics", *args, "-c", str(config), cwd=config.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(printed: str) -> dict[str, tuple[str, str]]:
    """Each ``name = value`` line of the printed list, with the source line under it."""
    lines = printed.splitlines()
    rows = {}
    for index, line in enumerate(lines):
        found = re.fullmatch(r"  (\w+) = (.+)", line)
        if found:
            rows[found[1]] = (found[2], lines[index + 1].strip())
    return rows


def _started(config: Path) -> None:
    done = speakerbot("init", "-c", str(config), cwd=config.parent)
    assert done.returncode == 0, done.stderr


def test_every_mechanic_is_printed_with_its_value_and_source(config: Path) -> None:
    _started(config)
    rows = _rows(_show(config))
    assert list(rows) == list(PARAMETERS)
    assert rows["win_points"] == ("100", "rule 208: “achieve 100 (positive) points”")
    assert rows["max_mutable_rules"] == ("25", "rule 209: “more than 25 mutable rules”")
    assert rows["quorum_percent"] == ("0", "preset default")  # suber's rules name no quorum
    assert rows["flow"] == ("turns", "rule 201")  # a rule, but not a value read from words


def test_the_json_list_is_the_printed_list(config: Path) -> None:
    _started(config)
    rows = _rows(_show(config))
    listed = json.loads(_show(config, "--json"))
    assert [item["name"] for item in listed] == list(PARAMETERS)
    for item in listed:
        value = str(item["value"])
        shown = value.lower() if value in ("True", "False") else value
        assert rows[item["name"]] == (shown, item["origin"]), item
    [win] = [item for item in listed if item["name"] == "win_points"]
    assert win == {"name": "win_points", "value": "100", "source": "rule", "rule": 208,
                   "words": "achieve 100 (positive) points",
                   "origin": "rule 208: “achieve 100 (positive) points”"}
    [quorum] = [item for item in listed if item["name"] == "quorum_percent"]
    assert (quorum["source"], quorum["rule"], quorum["words"]) == ("preset", None, None)


def test_a_mechanic_the_host_sets_says_so(config: Path) -> None:
    _started(config)
    done = speakerbot("admin", "SET", "win_points", "=", "200", "-c", str(config),
                      cwd=config.parent)
    assert done.returncode == 0, done.stderr
    assert "Done" in done.stdout, done.stdout
    rows = _rows(_show(config))
    assert rows["win_points"] == ("200", "set by the host")
    assert rows["max_mutable_rules"][1].startswith("rule 209")  # the others as they were
    [win] = [item for item in json.loads(_show(config, "--json"))
             if item["name"] == "win_points"]
    assert (win["value"], win["source"], win["words"]) == ("200", "host", None)


def test_a_number_after_mechanics_or_none_after_rule_is_a_usage_error(config: Path) -> None:
    _started(config)
    for args in (("mechanics", "5"), ("rule",)):
        done = speakerbot("show", *args, "-c", str(config), cwd=config.parent)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "usage: speakerbot show proposal|rule|cfj N" in done.stderr, done.stderr
        assert done.stdout == ""
