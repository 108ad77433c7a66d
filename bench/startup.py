"""Start-up benchmark: how long ``speakerbot --help`` and ``speakerbot parse FILE`` take.

Each is run as a fresh process five times; prints the fastest and the median beside the
interpreter's own start, and marks a command whose fastest run is over the bound of 0.3 s.
The speed is measured here only: the tests check what these commands import
(tests/cli/test_startup.py), which a busy machine cannot change.

Run: .venv/bin/python bench/startup.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOUND = 0.3  # seconds, for --help and parse

MESSAGE = b"From: alice@example.org\r\nSubject: votes\r\n\r\nVOTE 301 FOR\r\n"


def timed(args: list[str]) -> list[float]:
    """Run ``python -m speakerbot ARGS`` five times; return the seconds of each run."""
    seconds = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "speakerbot", *args], capture_output=True,
                       check=False)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        message = Path(tmp) / "vote.eml"
        message.write_bytes(MESSAGE)
        for label, args in (("speakerbot --help", ["--help"]),
                            ("speakerbot parse FILE", ["parse", str(message)]),
                            ("python -c pass (the interpreter alone)", None)):
            if args is None:
                runs = []
                for _ in range(5):
                    start = time.perf_counter()
                    subprocess.run([sys.executable, "-c", "pass"], check=True)
                    runs.append(time.perf_counter() - start)
            else:
                runs = timed(args)
            over = f"  OVER the {BOUND} s bound" if args and min(runs) >= BOUND else ""
            print(f"{label:>40}: fastest {min(runs):.3f} s, median "
                  f"{statistics.median(runs):.3f} s{over}")


if __name__ == "__main__":
    main()
