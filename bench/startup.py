"""Start-up benchmark: how long ``speakerbot --help``, ``parse FILE`` and the queries take.

Each is run as a fresh process five times; prints the fastest and the median beside the
interpreter's own start, and marks ``--help`` or ``parse`` when its fastest run is over the
bound of 0.3 s. The queries (``status``, ``player list`` of a started SQLite game) open the
database, so they have no such bound: they are printed to be compared before and after.
The speed is measured here only: the tests check what these commands import
(tests/cli/test_startup.py), which a busy machine cannot change.

Run: .venv/bin/python bench/startup.py
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOUND = 0.3  # seconds, for --help and parse

MESSAGE = b"From: alice@example.org\r\nSubject: votes\r\n\r\nVOTE 301 FOR\r\n"

CONFIG = """
[game]
name = "Bench Nomic"
ruleset = "nomicam"
address = "game@bench.test"
speaker = "chuck@bench.test"
speaker_name = "Chuck"
admin_password = "pw"

[database]
url = "sqlite:///{db}"

[smtp]
host = "127.0.0.1"
port = 2525
security = "none"
"""


def timed(command: list[str]) -> tuple[list[float], list[float]]:
    """Run ``command`` five times; return the seconds of each run, and of CPU each used.

    The CPU seconds (user and system) vary little on a machine busy with other work, where
    the seconds on the clock can double.
    """
    seconds, cpu = [], []
    for _ in range(5):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        seconds.append(time.perf_counter() - start)
        done = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(done.ru_utime - used.ru_utime + done.ru_stime - used.ru_stime)
    return seconds, cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        message = Path(tmp) / "vote.eml"
        message.write_bytes(MESSAGE)
        config = Path(tmp) / "game.toml"
        config.write_text(CONFIG.format(db=Path(tmp) / "game.db"))
        subprocess.run([sys.executable, "-m", "speakerbot", "-c", str(config), "init"],
                       capture_output=True, check=True)
        for label, args in (("speakerbot --help", ["--help"]),
                            ("speakerbot parse FILE", ["parse", str(message)]),
                            ("speakerbot status", ["-c", str(config), "status"]),
                            ("speakerbot player list", ["-c", str(config), "player", "list"]),
                            ("python -c pass (the interpreter alone)", None)):
            command = [sys.executable, *(["-m", "speakerbot", *args] if args else ["-c", "pass"])]
            runs, cpu = timed(command)
            bounded = args is not None and "-c" not in args
            over = f"  OVER the {BOUND} s bound" if bounded and min(runs) >= BOUND else ""
            print(f"{label:>40}: fastest {min(runs):.3f} s, median "
                  f"{statistics.median(runs):.3f} s; CPU fastest {min(cpu):.3f} s{over}")


if __name__ == "__main__":
    main()
