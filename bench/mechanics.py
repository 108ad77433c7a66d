"""Mechanic reading benchmark: how long reading a mechanic from a rule takes, per KB of rule.

SHOW MECHANICS and the archive's page of mechanics read each phrased mechanic from its rule,
and a rule may be 64 KB. Issue 37: a rule of "7d" over and over took 5.7 s. For each
family of hostile text (the worst its kind of words can do, repeated to ``--size`` KB,
the families of tests/engine/test_readings_time.py) and for ordinary rule text (the rules
of the five rulesets, once), it prints the CPU time of a reading, in µs per KB, for each
kind of value with the phrase "{}" and with words around the value that the text lacks
(every value is read all the same), then the slowest reading of the family in ms. Each
figure is the least of ``--rounds`` runs, in CPU time of this thread.

The script runs against whatever speakerbot is first on the path, so the same script
measures an older checkout: ``PYTHONPATH=/path/to/old/checkout python bench/mechanics.py``.

Run: .venv/bin/python bench/mechanics.py [--size KB] [--rounds N]
"""

from __future__ import annotations

import argparse
import random
import time

from speakerbot.engine.readings import read_mechanic
from speakerbot.presets import load_preset

FAMILIES = {
    "figures written onto a unit": "7d",
    "figures and a unit": "7d ",
    "figures and a unit in words": "7 days ",
    "one run of digits": "7",
    "digits apart": "7 ",
    "figures with commas": "1,000 ",
    "a chain of units": "1w1d1h1m1s ",
    "percent signs": "%",
    "percentages": "1%",
    "fractions": "2/3 ",
    "decimal points": "1.",
    "signs": "-",
    "signed figures": " -5",
    "spaces": " ",
    "blank lines and tabs": "\n\t \n",
    "a number in words": "one hundred and ",
    "and a half": "and a half ",
    "the word a": "a ",
    "the phrase's words with a value": "reach 100 points ",
    "the phrase's words alone": "reach points ",
    "a choice in words": "more than half ",
}
READS = [("voting_period", "{}"), ("voting_period", "lasts {}"), ("win_points", "{}"),
         ("win_points", "reach {} points"), ("quorum_percent", "{} of voters"),
         ("refused_consent_threshold", "{}"), ("adoption", "{}")]
HEADS = ["duration", "lasts …", "count", "reach … points", "… of voters", "fraction",
         "choice"]


def texts(size: int) -> dict[str, str]:
    """Return each text to read by its name: the families, values all different, rules."""
    found = {name: (unit * (size // len(unit) + 1))[:size] for name, unit in FAMILIES.items()}
    # No value twice, so that nothing read once is read again for nothing.
    found["durations all different"] = "".join(f"{n}d" for n in range(1, size))[:size]
    found["figures all different"] = " ".join(str(n) for n in range(1, size))[:size]
    draw = random.Random(37)
    found["29 durations in no order"] = "".join(
        f"{draw.randrange(1, 30)}d " for _ in range(size))[:size]
    found["the issue's rule (80 KB)"] = "7d" * 40_000
    found["the rules of the five rulesets"] = "\n\n".join(
        rule.text for preset in ("suber", "nomicam", "rurru", "locked-open", "speaker")
        for rule in load_preset(preset).rules)
    return found


def least_seconds(name: str, phrase: str, text: str, rounds: int) -> float:
    """Return the least CPU time of this thread that reading ``text`` took in ``rounds``."""
    best = float("inf")
    for _ in range(rounds):
        started = time.thread_time()
        read_mechanic(name, phrase, text)
        best = min(best, time.thread_time() - started)
    return best


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="KB of each family")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"µs per KB of rule, the least of {args.rounds} runs; the slowest reading in ms")
    print(f"{'text':<34}" + "".join(f"{head:>15}" for head in HEADS) + f"{'slowest ms':>12}")
    for label, text in texts(args.size * 1024).items():
        kb = len(text.encode()) / 1024
        seconds = [least_seconds(name, phrase, text, args.rounds) for name, phrase in READS]
        print(f"{label:<34}" + "".join(f"{s / kb * 1e6:>15.1f}" for s in seconds)
              + f"{max(seconds) * 1000:>12.1f}")


if __name__ == "__main__":
    main()
