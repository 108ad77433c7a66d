"""Run ``speakerbot`` commands for the integration tests, each in a process of its own.

The harnesses run dozens of short commands per test (``init``, ``player add``, ``status``,
``record verify``...), and most of each one's time went on starting Python and importing
speakerbot's stack again. Here a helper process imports that stack once, then forks a child
per command: the child takes the command's environment, working directory and standard
streams, runs ``speakerbot.entrypoints.cli.main`` as ``python -m speakerbot`` would, and
exits with its status. Every command is still a process apart (its own database
connections, its own exit status), started from a parent that holds no connection, no
thread and no open game.

The first start of the command line stays tested as users meet it, in fresh processes:
``tests/cli/test_startup.py`` checks what each kind of command imports,
``tests/cli/test_forked_commands.py`` that a forked command answers as a fresh one does, and
the tests of a closed pipe, of the umask, of the wheel and of the daemons start their own.
``SPEAKERBOT_TEST_FRESH_CLI=1`` makes every command here a fresh ``python -m speakerbot``.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import locale
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NoReturn

from .patience import patience

FRESH_ENV = "SPEAKERBOT_TEST_FRESH_CLI"
ROOT = Path(__file__).resolve().parents[2]

# The modules the command line's handlers live in (cli._MODULES, and the default one), and
# what they import when they run: imported once by the helper, never by a child.
PRELOADED = ("speakerbot.entrypoints.cli", "speakerbot.entrypoints.commands",
             "speakerbot.entrypoints.games", "speakerbot.entrypoints.desk",
             "speakerbot.entrypoints.rulesets", "speakerbot.entrypoints.record",
             "speakerbot.entrypoints.parse", "speakerbot.entrypoints.site",
             "sqlalchemy.dialects.sqlite", "sqlalchemy.dialects.postgresql", "psycopg",
             "speakerbot.entrypoints.doctor", "jinja2",
             # init and db upgrade migrate the schema: alembic, and the SQLite driver.
             "alembic.command", "alembic.config", "alembic.operations",
             "alembic.runtime.migration", "sqlite3")


def speakerbot(args: Sequence[str], *, env: Mapping[str, str], cwd: Path | str,
               timeout: float = patience(120), stdin: str | None = None, umask: int = -1
               ) -> subprocess.CompletedProcess[str]:
    """Run ``python -m speakerbot ARGS`` in ``cwd`` with exactly ``env``; capture its output.

    As ``subprocess.run(..., capture_output=True, text=True, input=stdin)`` would: the output
    decoded, newlines made ``\\n``; ``subprocess.TimeoutExpired`` after ``timeout`` seconds.
    Without ``stdin``, standard input is empty; ``umask`` as subprocess's (-1: this one's).
    """
    command = [sys.executable, "-m", "speakerbot", *args]
    if os.environ.get(FRESH_ENV):
        return subprocess.run(command, capture_output=True, text=True, env=dict(env),
                              cwd=cwd, timeout=timeout, input=stdin, umask=umask)
    folder = Path(tempfile.mkdtemp(prefix="speakerbot-command-"))
    try:
        (folder / "in").write_text(stdin or "")
        returncode = _HELPER.run({"args": list(args), "env": dict(env), "cwd": str(cwd),
                                  "in": str(folder / "in"), "out": str(folder / "out"),
                                  "err": str(folder / "err"), "timeout": timeout,
                                  "umask": umask})
        if returncode is None:
            raise subprocess.TimeoutExpired(command, timeout)
        return subprocess.CompletedProcess(command, returncode, _text(folder / "out"),
                                           _text(folder / "err"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _text(path: Path) -> str:
    # What subprocess's text mode does with a pipe's bytes.
    data = path.read_bytes().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")


class _Helper:
    """The helper process of this test process, started at the first command."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        atexit.register(self.close)

    def run(self, request: dict[str, object]) -> int | None:
        """Have the helper run one command; return its exit status (None: timed out)."""
        with self._lock:
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(json.dumps(request) + "\n")
                process.stdin.flush()
                answer = process.stdout.readline()
            except BaseException:
                # Interrupted (a test's timeout): its answer would be read as the next
                # command's, so this helper goes, and the next command starts another.
                self._process = None
                os.killpg(process.pid, signal.SIGKILL)  # the helper, and the command it runs
                process.wait()
                raise
            if not answer:
                self._process = None
                raise RuntimeError(f"the command helper ended (status {process.wait()})")
            returncode: int | None = json.loads(answer)["returncode"]
            return returncode

    def _started(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-c", "from tests.support.commands import serve; serve()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
                start_new_session=True)
        return self._process

    def close(self) -> None:
        """End the helper: it stops at the end of its input."""
        process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            process.stdin.close()
            process.wait(patience(30))


_HELPER = _Helper()


def serve() -> None:
    """The helper's loop: import the stack, then one forked child per request line."""
    for name in PRELOADED:
        importlib.import_module(name)
    for line in sys.stdin:
        request = json.loads(line)
        # What the helper holds is out of the children's collections (the gc module's
        # advice before a fork): a child's cycle collections, the last one at its exit
        # above all, would otherwise walk the whole imported stack, and every page it
        # touched is copied. A child's own objects are collected as in any process.
        gc.freeze()
        pid = os.fork()
        if pid == 0:
            _child([str(arg) for arg in request["args"]],
                   {str(key): str(value) for key, value in request["env"].items()},
                   str(request["cwd"]), (str(request["in"]), str(request["out"]),
                                         str(request["err"])), int(request["umask"]))
        sys.stdout.write(json.dumps({"returncode": _wait(pid, float(request["timeout"]))})
                         + "\n")
        sys.stdout.flush()


def _wait(pid: int, timeout: float) -> int | None:
    """Wait for the child to exit, at most ``timeout`` seconds (then kill it: None)."""
    ended = os.pidfd_open(pid)
    try:
        readable, _, _ = select.select([ended], [], [], timeout)
    finally:
        os.close(ended)
    if not readable:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _child(args: list[str], env: dict[str, str], cwd: str, streams: tuple[str, str, str],
           umask: int) -> NoReturn:
    """Become the command: its environment, folder and streams; exit with its status."""
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        if umask >= 0:
            os.umask(umask)
        _redirect(0, streams[0], os.O_RDONLY)
        _redirect(1, streams[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        _redirect(2, streams[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        # Fresh stream objects on the redirected descriptors: nothing of the helper's own
        # buffers (its requests, its answers) can reach the command or come out of it.
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        sys.argv = [str(ROOT / "speakerbot" / "__main__.py"), *args]
        status = _exit_status(args)
    except BaseException:
        traceback.print_exc()  # as the interpreter reports an uncaught error: status 1
        status = 1
    # Out through the helper's loop, which catches nothing: the interpreter ends as it ends
    # any command, waiting for the threads it left (run --once), running the handlers
    # registered at exit and flushing the streams.
    raise SystemExit(status)


def _exit_status(args: list[str]) -> int:
    """Run the command line as ``raise SystemExit(main())`` in ``__main__`` ends a process."""
    from speakerbot.entrypoints.cli import main

    try:
        code: object = main(args)
    except SystemExit as done:
        code = done.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _redirect(target: int, path: str, flags: int) -> None:
    descriptor = os.open(path, flags, 0o600)
    os.dup2(descriptor, target)
    os.close(descriptor)
