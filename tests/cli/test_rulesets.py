"""`speakerbot rulesets` and `speakerbot rulesets show NAME`: a contract read by users and tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from speakerbot.presets import PRESET_NAMES, load_preset
from tests.support.patience import patience

ROOT = Path(__file__).resolve().parents[2]
HEADER = re.compile(r"^(\d+) \((mutable|immutable)\)$")
EXPECTED_NUMBERS = {
    "suber": [*range(101, 117), *range(201, 214)],
    "locked-open": [*range(101, 113), *range(201, 211)],
    "speaker": [*range(101, 117), *range(201, 220)],
    "rurru": [*range(100, 108), *range(109, 114), *range(200, 216)],
    "nomicam": [*range(101, 117), *range(201, 220)],
}


def run(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "speakerbot", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=patience(60))


def parse_show(output: str) -> list[tuple[int, bool, str]]:
    """Read the show format: a header line, the text, a blank line, for each rule."""
    rules = []
    blocks = output.split("\n\n")
    assert blocks[-1] == "", "the output ends with the blank line after the last rule"
    for block in blocks[:-1]:
        header, _, text = block.partition("\n")
        match = HEADER.match(header)
        assert match, f"bad header line {header!r}"
        assert text and not text.startswith(" ")
        rules.append((int(match.group(1)), match.group(2) == "mutable", text))
    return rules


def test_rulesets_lists_name_title_and_number_of_rules() -> None:
    result = run("rulesets")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(PRESET_NAMES)
    for line, name in zip(lines, PRESET_NAMES, strict=True):
        assert load_preset(name).title in line
        assert line.endswith(f"{len(EXPECTED_NUMBERS[name])} rules")


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_rulesets_show_prints_every_rule_with_number_mutability_and_seed_text(name: str) -> None:
    result = run("rulesets", "show", name)
    assert result.returncode == 0, result.stderr
    shown = parse_show(result.stdout)
    assert [number for number, _, _ in shown] == EXPECTED_NUMBERS[name]
    for number, mutable, text in shown:
        if name == "rurru":
            assert mutable
        else:
            assert mutable == (number >= 200), number
        spec = next(rule for rule in load_preset(name).rules if rule.number == number)
        assert text == spec.text


def test_rulesets_show_spot_checks_against_the_seeds() -> None:
    suber = dict((n, t) for n, _, t in parse_show(run("rulesets", "show", "suber").stdout))
    assert suber[203] == ("A rule change is adopted if and only if the vote is unaminous\n"
                          "among the eligible voters.").replace("\n", " ")
    nomicam = dict((n, t) for n, _, t in parse_show(run("rulesets", "show", "nomicam").stdout))
    assert "keeps it's original number" in nomicam[109]
    assert "Jack Rudd" in nomicam[104]


def test_rulesets_show_refuses_an_unknown_preset_clearly() -> None:
    result = run("rulesets", "show", "calvinball")
    assert result.returncode == 2 and result.stdout == ""
    assert "no preset 'calvinball'" in result.stderr and "nomicam" in result.stderr
    missing = run("rulesets", "show")
    assert missing.returncode == 2 and "usage" in missing.stderr


def test_the_presets_ship_inside_the_wheel(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=patience(300),
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("speakerbot-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "site")
    for name in PRESET_NAMES:
        assert f"speakerbot/_shipped/rulesets/{name}.toml" in names
    # Run from the unpacked wheel, away from the checkout: the shipped files must be found.
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    where = subprocess.run([sys.executable, "-c", "import speakerbot; print(speakerbot.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
    assert where.stdout.startswith(str(tmp_path / "site"))
    result = run("rulesets", "show", "rurru", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert parse_show(result.stdout)[0][2].startswith("All players must always abide by the rurrus")
    # The example configuration ships too: a host copies it with ``config example``.
    assert "speakerbot/_shipped/config/speakerbot.example.toml" in names
    example = run("config", "example", cwd=tmp_path, env=env)
    assert example.returncode == 0, example.stderr
    assert example.stdout == (ROOT / "config" / "speakerbot.example.toml").read_text(
        encoding="utf-8")
