"""``--json`` on status, history, show, inbound list and player list: the shapes of
docs/cli.md, checked against a game played by mail and handled from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.test_desk import _desk, played
from tests.support import mailgame as mg

__all__ = ["played"]  # the fixture, shared with the desk's tests


def _json(config: Path, *args: str) -> Any:
    status, out, err = _desk(config, *args, "--json")
    assert status == 0, (args, err)
    return json.loads(out)


def test_status_and_player_list(played: tuple[mg.MailGame, Path]) -> None:
    _, config = played
    status = _json(config, "status")
    assert set(status) == {"game", "speaker", "turn", "players", "observers",
                           "open_proposals", "open_cfjs", "handwork", "outbox"}
    assert status["handwork"] == []  # nothing adopted yet
    assert status["observers"] == 0
    assert status["game"] == {"name": mg.NAME, "preset": "nomicam", "number": 1,
                              "ended": False, "end_reason": None, "winners": []}
    assert status["speaker"] == {"address": mg.SPEAKER, "name": "Chuck"}
    # In nomicam the Speaker plays too (role "speaker"); best score first, then by name.
    assert [(p["address"], p["role"]) for p in status["players"]] == [
        (mg.ALICE, "voter"), (mg.BOB, "voter"), (mg.SPEAKER, "speaker")]
    assert status["players"][0] == {"name": "Alice", "address": mg.ALICE, "score": 0,
                                    "role": "voter", "active": True, "absent_until": None,
                                    "unreachable_since": None}
    [proposal] = status["open_proposals"]
    assert proposal["number"] == 301 and proposal["title"] == "Three days"
    assert proposal["proposer"] == {"address": mg.ALICE, "name": "Alice"}
    assert proposal["closes_at"].endswith("+00:00")
    [cfj] = status["open_cfjs"]
    assert cfj["number"] == 1 and cfj["statement"] == "Rule 205 is too slow"
    assert set(cfj["judge"]) == {"address", "name"} and cfj["deadline"] is not None
    assert set(status["outbox"]) == {"pending", "failed", "oldest_pending", "refused",
                                     "waiting"}
    assert status["outbox"]["failed"] == 0 and status["outbox"]["refused"] == []
    players = _json(config, "player", "list")
    assert [p["name"] for p in players] == ["Chuck", "Alice", "Bob"]  # in joining order
    # status adds whether each player's mail bounces; the rest is player list's.
    listed = [{k: v for k, v in p.items() if k != "unreachable_since"} for p in status["players"]]
    assert sorted(players, key=lambda p: p["name"]) == sorted(listed, key=lambda p: p["name"])


def test_show_keeps_ballots_sealed_until_the_close(played: tuple[mg.MailGame, Path]) -> None:
    game, config = played
    open_one = _json(config, "show", "proposal", "301")
    assert (open_one["number"], open_one["status"], open_one["result"]) == (301, "open", None)
    assert open_one["clauses"] == ["replace text in rule 205"]
    assert open_one["proposer"] == {"address": mg.ALICE, "name": "Alice"}
    assert "FOR" not in json.dumps(open_one)  # Bob's sealed ballot is nowhere
    # The game was played at a fixed time long past: the desk settles the deadlines due
    # before its command, and the vote closes.
    status, _, err = _desk(config, "admin", "SCORE", "Alice", "+1", "a", "test")
    assert status == 0, err
    closed = _json(config, "show", "proposal", "301")
    assert closed["status"] in ("adopted", "rejected") and closed["closed_at"] is not None
    assert game.service.state().proposals[301].status.value == closed["status"]
    result = closed["result"]
    assert result["ballots"] == [{"voter": {"address": mg.BOB, "name": "Bob"},
                                  "choice": "FOR"}]
    assert result["for"] == 1 and result["against"] == 0
    assert result["adopted"] is (closed["status"] == "adopted")
    assert {"address": mg.ALICE, "name": "Alice"} in result["non_voters"]


def test_show_rule_and_cfj(played: tuple[mg.MailGame, Path]) -> None:
    _, config = played
    rule = _json(config, "show", "rule", "205")
    assert (rule["number"], rule["asked"], rule["mutable"], rule["repealed"]) == (
        205, 205, True, False)
    assert "one week" in rule["text"]  # proposal 301 is still open
    assert [change["kind"] for change in rule["history"]] == ["initial"]
    cfj = _json(config, "show", "cfj", "1")
    assert cfj["caller"] == {"address": mg.BOB, "name": "Bob"}
    assert cfj["statement"] == "Rule 205 is too slow" and cfj["judgement"] is None
    assert cfj["judges"][-1] == cfj["judge"]


def test_history(played: tuple[mg.MailGame, Path]) -> None:
    _, config = played
    whole = _json(config, "history")
    assert whole["total"] == 9 and len(whole["events"]) == 9  # as HISTORY says in words
    last = _json(config, "history", "2")
    assert last["events"] == whole["events"][-2:]
    seqs = [event["seq"] for event in whole["events"]]
    assert seqs == sorted(seqs)
    first = whole["events"][0]
    assert first["line"]["seq"] == first["seq"] and first["line"]["type"] == first["type"]
    assert {"prev", "hash"} <= set(first["line"]) and first["said"]
    assert not any(event["type"] == "BallotCast" for event in whole["events"])  # sealed


def test_inbound_list(played: tuple[mg.MailGame, Path]) -> None:
    _, config = played
    listed = _json(config, "inbound", "list")
    assert len(listed) == 3
    assert [row["id"] for row in listed] == sorted((row["id"] for row in listed), reverse=True)
    assert set(listed[0]) == {"id", "status", "received_at", "source", "sender", "message_id",
                              "attempts", "error", "reason", "note", "password_verdict",
                              "authenticated", "size"}
    assert {row["sender"] for row in listed} == {mg.ALICE, mg.BOB}
    assert {row["status"] for row in listed} == {"processed"}
    assert _json(config, "inbound", "list", "--status", "set_aside") == []
