"""Run a bench on this checkout and on an earlier commit, in turn, in one run.

A figure measured on another day, or on a busier machine, says little about a change: the
two commits are measured here side by side, round after round (base, this, base, ...),
each bench run in a fresh process with its own checkout's code first on the path (a git
worktree of the base commit in a temporary folder). Every line the bench prints is
printed, prefixed by the commit it measured, so that the figures can be read side by side.

With ``--bench-here``, both commits are measured by this checkout's bench script (the
base's code still first on the path): for a bench, or a bench option, newer than the base.

Run: .venv/bin/python bench/against.py REV [--rounds N] [--bench-here] -- pipeline.py [bench
arguments]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def run_bench(tree: Path, script: str, arguments: list[str], label: str,
              bench_from: Path | None = None) -> None:
    """Run one bench in ``tree``'s code and print what it says, line by line, labelled.

    The script is ``bench_from``'s (by default ``tree``'s own).
    """
    bench_from = bench_from or tree
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(
        [str(tree), str(bench_from)]))}
    completed = subprocess.run(
        [sys.executable, str(bench_from / "bench" / script), *arguments], cwd=tree,
        env=environment, capture_output=True, text=True, check=False)
    for line in (completed.stdout + completed.stderr).splitlines():
        print(f"{label:>10} | {line}", flush=True)
    if completed.returncode:
        raise SystemExit(f"{label}: the bench exited with {completed.returncode}")


def main() -> None:
    """Measure both commits in turn."""
    parser = argparse.ArgumentParser()
    parser.add_argument("base", help="the commit to measure against (e.g. a tag or hash)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench-here", action="store_true",
                        help="measure the base with this checkout's bench script too")
    # Everything after "--" is the bench's: its script in bench/, then its own arguments.
    words = sys.argv[1:]
    split = words.index("--") if "--" in words else len(words)
    args = parser.parse_args(words[:split])
    bench = words[split + 1:]
    if not bench:
        parser.error("name the bench to run, after --")
    script, arguments = bench[0], bench[1:]
    base = subprocess.run(["git", "rev-parse", "--short", args.base], cwd=HERE, check=True,
                          capture_output=True, text=True).stdout.strip()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, check=True,
                          capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), base],
                       cwd=HERE, check=True)
        try:
            for _ in range(args.rounds):
                run_bench(tree, script, arguments, base, HERE if args.bench_here else None)
                run_bench(HERE, script, arguments, head)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=HERE,
                           check=False)


if __name__ == "__main__":
    main()
