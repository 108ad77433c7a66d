"""A real PostgreSQL server on loopback, with its cluster in a temporary directory.

``initdb`` makes a throwaway cluster (trust authentication, fsync off), ``pg_ctl``
runs it on a free port of 127.0.0.1 with its unix socket in the same directory.
PostgreSQL refuses to run as root, so under root the cluster belongs to, and the
server runs as, the ``postgres`` system user that Debian's package creates.
"""

from __future__ import annotations

import itertools
import math
import os
import pwd
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import psycopg
from psycopg import sql

from .patience import patience
from .ports import INSTALL_HINT, MissingServerBinary
from .servers import ScratchServer

DEBIAN_POSTGRES_ROOT = Path("/usr/lib/postgresql")
_SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
_RUN_AS_WHEN_ROOT = "postgres"
_DBNAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def find_postgres_bindir() -> Path:
    """Return the directory holding ``initdb``, ``pg_ctl`` and ``postgres``.

    Looks where ``pg_config --bindir`` says, then in ``/usr/lib/postgresql/*/bin``
    (newest version first, where Debian puts them), then on ``PATH``.
    """
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        result = subprocess.run(
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        )
        if result.returncode == 0 and result.stdout.strip():
            candidates.append(Path(result.stdout.strip()))
    candidates.extend(
        sorted(
            DEBIAN_POSTGRES_ROOT.glob("*/bin"),
            key=lambda p: _version_key(p.parent.name),
            reverse=True,
        )
    )
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for bindir in candidates:
        if all(os.access(bindir / name, os.X_OK) for name in _SERVER_PROGRAMS):
            return bindir
    raise MissingServerBinary(
        "the PostgreSQL server (initdb, pg_ctl, postgres) is not installed: " + INSTALL_HINT
    )


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name))


class PostgresServer(ScratchServer):
    """A PostgreSQL server on ``host:port`` whose cluster lives in ``root``.

    ``start()`` creates the cluster on first use, starts the server and creates the
    database ``database``; ``url`` is its SQLAlchemy URL. ``create_database()`` makes
    further empty databases (one per test, say). ``stop()`` stops the server,
    ``close()`` also deletes the cluster; the server is a context manager doing
    ``start()`` and ``close()``.
    """

    def __init__(
        self,
        *,
        bindir: Path | None = None,
        port: int | None = None,
        user: str = "speakerbot",
        database: str = "speakerbot",
        startup_timeout: float = patience(30),
    ) -> None:
        self.bindir = bindir or find_postgres_bindir()
        self.user = user
        self.database = _check_dbname(database)
        self.startup_timeout = startup_timeout
        self._running = False
        self._counter = itertools.count(1)

        self._run_as: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self._run_as = pwd.getpwnam(_RUN_AS_WHEN_ROOT)
            except KeyError:
                raise MissingServerBinary(
                    "PostgreSQL refuses to run as root, and there is no "
                    f"{_RUN_AS_WHEN_ROOT!r} system user to run it as: {INSTALL_HINT}"
                ) from None

        super().__init__(port, prefix="speakerbot-postgres-", log_name="postgres.log")
        self.data_dir = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.socket_dir.mkdir()
        if self._run_as is not None:
            for path in (self.root, self.socket_dir):
                os.chown(path, self._run_as.pw_uid, self._run_as.pw_gid)

    # -- addresses -----------------------------------------------------------------

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the main database."""
        return self.url_for(self.database)

    def url_for(self, database: str) -> str:
        """Return the SQLAlchemy URL (psycopg 3 driver, trust auth) of ``database``."""
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{database}"

    def conninfo(self, database: str) -> str:
        """Return a libpq connection string for ``database``, for psycopg directly."""
        return f"host={self.host} port={self.port} user={self.user} dbname={database}"

    # -- process -----------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether this object started the server and has not stopped it."""
        return self._running

    def start(self) -> None:
        """Create the cluster if needed and start the server; returns once it accepts logins."""
        if self._running:
            return
        fresh = not (self.data_dir / "PG_VERSION").exists()
        if fresh:
            self._initdb()
        self._run(
            [
                str(self.bindir / "pg_ctl"),
                "start",
                "-D",
                str(self.data_dir),
                "-l",
                str(self.log_path),
                # -w: wait until the server reports it accepts connections.
                "-w",
                "-t",
                str(math.ceil(self.startup_timeout)),
            ],
            what="pg_ctl start",
            # Its own session, so a ^C meant for pytest does not reach the server
            # before the fixtures' finalizers stop it.
            new_session=True,
        )
        self._running = True
        if fresh:
            self.create_database(self.database)

    def _initdb(self) -> None:
        self._run(
            [
                str(self.bindir / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                self.user,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ],
            what="initdb",
        )
        settings = {
            "listen_addresses": f"'{self.host}'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.socket_dir}'",
            # A throwaway cluster: durability buys nothing and costs time.
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
        }
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write("\n# Added by tests/support/postgres.py\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def stop(self) -> None:
        """Stop the server (fast shutdown: open connections are cut); the cluster is kept."""
        if not self._running:
            return
        self._running = False
        self._run(
            [str(self.bindir / "pg_ctl"), "stop", "-D", str(self.data_dir), "-m", "fast", "-w",
             "-t", str(math.ceil(patience(60)))],
            what="pg_ctl stop",
        )

    def _run(self, argv: Sequence[str], *, what: str, new_session: bool = False) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        run_as = self._run_as
        if run_as is not None:
            env.update(HOME=str(self.root), USER=run_as.pw_name, LOGNAME=run_as.pw_name)
        result = subprocess.run(
            argv,
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            start_new_session=new_session,
            user=run_as.pw_uid if run_as else None,
            group=run_as.pw_gid if run_as else None,
            extra_groups=[] if run_as else None,
        )
        if result.returncode != 0:
            log = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
            raise RuntimeError(
                f"{what} failed with status {result.returncode}:\n"
                f"{result.stdout}{result.stderr}\n{log[-3000:]}"
            )

    # -- databases -----------------------------------------------------------------

    def create_database(self, name: str | None = None) -> str:
        """Create an empty database and return its name (a fresh unique one by default)."""
        name = _check_dbname(name or f"test_{os.getpid()}_{next(self._counter)}")
        self._admin(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return name

    def drop_database(self, name: str) -> None:
        """Drop the database ``name``, disconnecting whoever is still connected to it."""
        self._admin(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(_check_dbname(name))
            )
        )

    def _admin(self, statement: sql.Composed) -> None:
        if not self._running:
            raise RuntimeError("the PostgreSQL server is not running: call start() first")
        with psycopg.connect(
            self.conninfo("postgres"), autocommit=True, connect_timeout=math.ceil(patience(10))
        ) as conn:
            conn.execute(statement)


def _check_dbname(name: str) -> str:
    if not _DBNAME.match(name):
        raise ValueError(f"unusable database name {name!r} (want [a-z_][a-z0-9_]*)")
    return name
