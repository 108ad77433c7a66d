"""Start-up benchmark: how long ``speakerbot --help`` and ``speakerbot parse FILE`` take.

Each is run as a fresh process five times; prints the fastest and the median (the issue's
bound is 0.3 s), and ``speakerbot status`` (which opens the database) beside them.

Run: .venv/bin/python bench/startup.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
            print(f"{label:>40}: fastest {min(runs):.3f} s, median "
                  f"{statistics.median(runs):.3f} s")


if __name__ == "__main__":
    main()
