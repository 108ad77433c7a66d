"""Every draw provable, through the running daemon (issue 27).

A suber game throws the die on adopted proposals and a nomicam game draws CFJ Judges. Once
their seeds are revealed, ``speakerbot record verify`` on ``record export --public`` reports
every draw verified; changing one die's outcome in the export makes it fail, naming that
draw; and a seed not yet revealed appears nowhere public: not in any mail sent, the archive's
files, the public export or the daemon's log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from speakerbot.adapters.store import Store
from speakerbot.engine import chain
from speakerbot.service.unit_of_work import SEED_KEY
from tests.integration.conftest import db_url_on
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, admin_mail, body_of
from tests.support.docs_checker import run_docs_checker
from tests.support.patience import patience, period

ALICE, BOB, CAROL, DAVE = (f"{n}@nomic.test" for n in ("alice", "bob", "carol", "dave"))
QUICK = {"reminder_before": "none", "win_points": "1000"}

db_url = db_url_on("sqlite")


def _export(game: RunningGame, path: Path) -> list[dict[str, Any]]:
    game.cli("record", "export", "--public", str(path))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _verify(game: RunningGame, path: Path | None = None) -> tuple[int, str]:
    result = game.cli("record", "verify", *([str(path)] if path else []), check=False)
    return result.returncode, result.stdout


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _relinked(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines with every hash made again: a forger's export whose chain holds."""
    out: list[dict[str, Any]] = []
    prev = chain.GENESIS
    for line in lines:
        data = {key: value for key, value in line.items() if key not in ("seq", "prev", "hash")}
        linked = chain.link(line["seq"], data, prev)
        prev = linked["hash"]
        out.append(linked)
    return out


def _unrevealed_seed(game: RunningGame) -> str:
    """The seed the game draws with now, as the store keeps it (never public)."""
    commitment = game.state().commitment
    assert commitment
    with Store(game.db_url) as store:
        seed = store.get_meta(SEED_KEY + commitment)
    assert isinstance(seed, str) and len(seed) == 64
    return seed


def _published(game: RunningGame, tmp_path: Path, name: str) -> dict[str, str]:
    """Everything public so far, by where it is: every mail sent, the archive, the export."""
    found = {f"mail {n}: {m.parsed()['Subject']}": m.data.decode(errors="replace")
             + body_of(m) for n, m in enumerate(game.sink.messages)}
    site = tmp_path / f"site-{name}"
    game.cli("site", "build", str(site))
    for path in site.rglob("*"):
        if path.is_file():
            found[f"archive {path.relative_to(site)}"] = path.read_bytes().decode(
                errors="replace")
    export = tmp_path / f"public-{name}.jsonl"
    game.cli("record", "export", "--public", str(export))
    found["public export"] = export.read_text()
    found["daemon log"] = game.log_text()
    return found


def _nowhere(secret: str, places: dict[str, str]) -> list[str]:
    return [where for where, text in places.items() if secret in text]


def test_suber_dice_verify_after_the_reveal_and_a_changed_die_fails(
        make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game("suber", QUICK)
    game.begin((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"))
    game.send(ALICE, "PROPOSE: Singing", "Players may sing.\n")
    game.wait_subject("Proposal 301")
    first_seed = _unrevealed_seed(game)
    # Before the vote closes, the seed that will throw the die is nowhere public.
    assert _nowhere(first_seed, _published(game, tmp_path, "before")) == []
    for voter in (ALICE, BOB, CAROL):
        game.send(voter, "vote", "VOTE 301 FOR\n")
    results = body_of(game.wait_subject("Proposal 301 ADOPTED"))
    # The results give the draw and reveal its seed.
    assert "die:301" in results and first_seed in results, results

    game.send(BOB, "PROPOSE: Dancing", "Players may dance.\n")
    game.wait_subject("Proposal 302")
    for voter in (ALICE, BOB, CAROL):
        game.send(voter, "vote", "VOTE 302 FOR\n")
    game.wait_subject("Proposal 302 ADOPTED")
    game.wait_for(lambda m: _revealed_count(game) == 2)
    assert game.stop() == 0

    export = tmp_path / "public.jsonl"
    lines = _export(game, export)
    assert [line["draw"]["label"] for line in lines if "draw" in line] == ["die:301", "die:302"]
    code, said = _verify(game, export)
    assert code == 0 and "2 draws verified, 0 awaiting reveal" in said, said
    code, said = _verify(game)
    assert code == 0 and "2 draws verified, 0 awaiting reveal" in said, said
    # The checker docs/verifying.md gives, run on its own, says the same of the export.
    assert _docs_checker(export).splitlines()[0] == "2 draws verified, 0 awaiting reveal"

    # One die's outcome changed in the export: the record's chain breaks, and the draw fails.
    thrown = next(line for line in lines if line["type"] == "DieThrown")
    changed = [dict(line) for line in lines]
    index = lines.index(thrown)
    changed[index]["value"] = thrown["value"] % 6 + 1
    _write(tmp_path / "changed.jsonl", changed)
    code, said = _verify(game, tmp_path / "changed.jsonl")
    assert code == 1 and "die:301" in said and "die:302" not in said, said
    assert "die:301" in _docs_checker(tmp_path / "changed.jsonl")
    # Even a forger who makes every hash again is caught by the draw itself.
    forged = [dict(line) for line in lines]
    forged[index]["value"] = thrown["value"] % 6 + 1
    forged[index]["draw"] = {**thrown["draw"], "outcome": str(thrown["value"] % 6 + 1)}
    _write(tmp_path / "forged.jsonl", _relinked(forged))
    code, said = _verify(game, tmp_path / "forged.jsonl")
    assert code == 1 and "chain holds" in said and "die:301" in said, said


def _docs_checker(export: Path) -> str:
    """Run the Python of docs/verifying.md on an export, as a player would (no speakerbot)."""
    result = run_docs_checker(export)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def _revealed_count(game: RunningGame) -> int:
    return sum(1 for data in game.events() if data["type"] == "SeedRevealed")


def test_nomicam_judges_are_drawn_provably_and_a_seed_stays_sealed_until_revealed(
        make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game("nomicam", {**QUICK, "voting_period": period(3)})
    game.begin((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave"))
    # The Speaker calls for judgement: a random Voter judges (nomicam 214).
    game.send(SPEAKER, "cfj", "CFJ Proposals may be sung.\n")
    game.wait_subject("CFJ 1")
    seed = _unrevealed_seed(game)
    code, said = _verify(game)
    assert code == 0 and "0 draws verified, 1 awaiting reveal" in said, said
    # A voting period closes: the seed used during it is revealed with the results.
    game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
    game.wait_subject("Proposal 301")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    results = body_of(game.wait_subject("Proposal 301 ADOPTED", timeout=patience(60)))
    assert seed in results, results

    # The next seed: another Judge drawn with it, sealed until the host reveals it.
    game.send(SPEAKER, "cfj", "CFJ Tea is hot.\n")
    game.wait_subject("CFJ 2")
    second = _unrevealed_seed(game)
    assert second != seed
    published = _published(game, tmp_path, "sealed")
    assert _nowhere(second, published) == []
    assert _nowhere(seed, published) != []  # the search finds a seed that was revealed
    code, said = _verify(game)
    assert code == 0 and "1 draws verified, 1 awaiting reveal" in said, said

    reply = body_of(_admin(game, "REVEAL"))
    assert "Done" in reply or "revealed" in reply, reply
    # Every player is told the seed, in the announcement of the host's override.
    game.wait_for(lambda m: DAVE in m.rcpt_tos and second in body_of(m))
    assert game.stop() == 0
    export = tmp_path / "public.jsonl"
    lines = _export(game, export)
    labels = [line["draw"]["label"] for line in lines if "draw" in line]
    assert labels == ["judge:cfj-1", "judge:cfj-2"], labels
    code, said = _verify(game, export)
    assert code == 0 and "2 draws verified, 0 awaiting reveal" in said, said


def _admin(game: RunningGame, line: str) -> Any:
    game.send(SPEAKER, "admin", admin_mail(f"ADMIN {line}"))
    return game.wait_subject("Re: admin", to=SPEAKER)
