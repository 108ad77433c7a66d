"""A real Dovecot IMAP server on loopback, confined to a temporary directory.

The server gets its own ``dovecot.conf``, passwd-file, Maildirs, sockets, state and
log under one temporary directory; nothing in ``/etc/dovecot`` is read or changed.
It listens for plain IMAP (no TLS, plaintext logins allowed) on a free port of
127.0.0.1 and can be restarted on the same port with the same mail.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

# imapclient ships no type information.
from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]

from .patience import patience
from .ports import INSTALL_HINT, MissingServerBinary, wait_for_port
from .servers import ScratchServer

DOVECOT_BINARY = "/usr/sbin/dovecot"

# Dovecot refuses to give mail to uid 0, so when the tests run as root the mail is
# owned by Debian's ``mail`` system user (from base-passwd, always present); root
# can still read it. The internal and login users are the ones the dovecot-core
# package creates.
_ROOT_MAIL_USER = "mail"
_ROOT_INTERNAL_USER = "dovecot"
_ROOT_LOGIN_USER = "dovenull"

_USERNAME = re.compile(r"^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]*$")
_APPENDUID = re.compile(rb"\[APPENDUID \d+ (\d+)\]")

_CONFIG = """\
# Written by tests/support/dovecot.py for one test server; not a system config.
base_dir = {root}/run
state_dir = {root}/state
instance_name = {instance}
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
auth_verbose = yes

protocols = imap
listen = {host}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0

default_internal_user = {internal_user}
default_internal_group = {internal_group}
default_login_user = {login_user}
first_valid_uid = {mail_uid}
last_valid_uid = {mail_uid}
first_valid_gid = {mail_gid}
last_valid_gid = {mail_gid}

mail_location = maildir:~/Maildir
mail_fsync = never
namespace inbox {{
  inbox = yes
  separator = /
}}

# "* OK Still here" every {idle_notify} s while a client IDLEs; new mail itself
# is pushed by inotify, or found by the mailbox_idle_check_interval poll.
imap_idle_notify_interval = {idle_notify} secs
mailbox_idle_check_interval = 1 secs

# One passwd-file per user: Dovecot rereads a changed passwd-file at most once a
# second, but opens a new user's file at its first login.
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd.d/%u
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/passwd.d/%u
}}

protocol imap {{
  mail_max_userip_connections = 200
}}

service imap-login {{
  {chroot}
  inet_listener imap {{
    address = {host}
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  {chroot}
  # No auth penalty: every test logs in from 127.0.0.1, and one test's failed
  # login would otherwise slow down the next tests' logins by seconds.
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"""


def find_dovecot() -> str:
    """Return the path of the ``dovecot`` master binary, or raise ``MissingServerBinary``."""
    candidates = [DOVECOT_BINARY, shutil.which("dovecot")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise MissingServerBinary(f"Dovecot is not installed (no {DOVECOT_BINARY}): {INSTALL_HINT}")


def _user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise MissingServerBinary(
            f"system user {name!r}, which Dovecot runs as, does not exist: {INSTALL_HINT}"
        ) from None


def _group_name(gid: int) -> str:
    return grp.getgrgid(gid).gr_name


def _pgrp(pid: int) -> int | None:
    """Return the process group of a live (not zombie) process, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Fields after "pid (comm) ": state, ppid, pgrp, ...; comm may contain spaces.
    state, _ppid, pgrp = stat[stat.rindex(")") + 2 :].split()[:3]
    return None if state in ("Z", "X") else int(pgrp)


def _end_process_group(pgid: int, timeout: float) -> None:
    """SIGTERM every process left in group ``pgid``, wait for them, SIGKILL stragglers."""
    pidfds: list[int] = []
    try:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or _pgrp(int(entry.name)) != pgid:
                continue
            try:
                fd = os.pidfd_open(int(entry.name))
            except ProcessLookupError:
                continue
            # The pidfd pins that very process; check it is still one of ours.
            if _pgrp(int(entry.name)) == pgid:
                pidfds.append(fd)
            else:
                os.close(fd)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for fd in pidfds:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(fd, sig)
            if _wait_pidfds(pidfds, timeout):
                return
        raise RuntimeError(f"dovecot processes of group {pgid} survived SIGKILL")
    finally:
        for fd in pidfds:
            os.close(fd)


def _wait_pidfds(pidfds: list[int], timeout: float) -> bool:
    """Wait until every process behind ``pidfds`` has exited; False on timeout."""
    poller = select.poll()
    for fd in pidfds:
        poller.register(fd, select.POLLIN)
    pending = set(pidfds)
    deadline = time.monotonic() + timeout
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        for fd, _event in poller.poll(remaining * 1000):
            pending.discard(fd)
            poller.unregister(fd)
    return True


def _clean_env() -> dict[str, str]:
    # Inherited systemd socket-activation variables would make Dovecot look for
    # listening sockets it was never given.
    drop = {"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET"}
    return {k: v for k, v in os.environ.items() if k not in drop}


class DovecotServer(ScratchServer):
    """A Dovecot IMAP server listening on ``host:port`` with its data in ``root``.

    Use ``start()`` / ``stop()`` / ``restart()`` for the process (a restart keeps the
    port and the mail) and ``close()`` to stop it and delete the directory; the
    server is also a context manager doing ``start()`` and ``close()``. Users come
    from passwd-files that ``add_user()`` writes, also while the server runs.
    """

    def __init__(
        self,
        *,
        binary: str | None = None,
        port: int | None = None,
        idle_notify_interval: int = 1,
        startup_timeout: float = patience(15),
    ) -> None:
        self.binary = binary or find_dovecot()
        self.startup_timeout = startup_timeout
        self._passwords: dict[str, str] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._validated = False

        if os.geteuid() == 0:
            mail = _user(_ROOT_MAIL_USER)
            internal = _user(_ROOT_INTERNAL_USER)
            login = _user(_ROOT_LOGIN_USER)
            chroot = ""  # root: keep the login processes' default chroot
        else:
            mail = internal = login = pwd.getpwuid(os.geteuid())
            chroot = "chroot ="  # chroot() needs root
        self._mail_uid = mail.pw_uid
        self._mail_gid = mail.pw_gid

        super().__init__(port, prefix="speakerbot-dovecot-", log_name="dovecot.log")
        self.config_path = self.root / "dovecot.conf"
        # One passwd-file per user, named after the user.
        self.passwd_dir = self.root / "passwd.d"
        # One home directory (with a Maildir) per user.
        self.mail_root = self.root / "mail"
        # The mail processes run as the mail user and must get through this directory.
        self.root.chmod(0o755)
        self.mail_root.mkdir()
        self.mail_root.chmod(0o755)
        self.passwd_dir.mkdir()
        self.passwd_dir.chmod(0o755)  # read by Dovecot's auth process (internal user)
        self.config_path.write_text(
            _CONFIG.format(
                root=self.root,
                instance=f"speakerbot-test-{self.port}",
                host=self.host,
                port=self.port,
                internal_user=internal.pw_name,
                internal_group=_group_name(internal.pw_gid),
                login_user=login.pw_name,
                mail_uid=self._mail_uid,
                mail_gid=self._mail_gid,
                idle_notify=idle_notify_interval,
                chroot=chroot,
            )
        )

    # -- paths -----------------------------------------------------------------

    def maildir(self, user: str) -> Path:
        """Return the Maildir of ``user`` (owned by the mail user; readable by root)."""
        return self.mail_root / user / "Maildir"

    # -- users -----------------------------------------------------------------

    def add_user(self, user: str, password: str) -> None:
        """Add ``user`` with ``password``; adding the same user again is a no-op.

        Users can be added while the server runs: each gets its own passwd-file,
        which Dovecot reads at the user's first login. Changing a password is
        refused, since Dovecot could keep the old one for up to a second.
        """
        if not _USERNAME.match(user):
            raise ValueError(f"unusable IMAP user name {user!r}")
        if any(c in password for c in ":\n\r"):
            raise ValueError("a passwd-file password cannot contain ':' or line breaks")
        known = self._passwords.get(user)
        if known is not None:
            if known != password:
                raise ValueError(f"IMAP user {user!r} already exists with another password")
            return
        home = self.mail_root / user
        home.mkdir()
        os.chown(home, self._mail_uid, self._mail_gid)
        home.chmod(0o700)
        line = f"{user}:{{PLAIN}}{password}:{self._mail_uid}:{self._mail_gid}::{home}::\n"
        # Written aside and renamed, so that Dovecot never reads half a file.
        tmp = self.passwd_dir / f".{user}.new"
        tmp.write_text(line)
        tmp.chmod(0o644)
        os.replace(tmp, self.passwd_dir / user)
        self._passwords[user] = password

    def password(self, user: str) -> str:
        """Return the password ``add_user()`` gave ``user``."""
        try:
            return self._passwords[user]
        except KeyError:
            raise KeyError(f"no IMAP user {user!r}: call add_user() first") from None

    # -- process ---------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the Dovecot master process is running."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start Dovecot and return once it greets IMAP clients on ``port``."""
        if self.running:
            return
        self.stop()  # what is left of a master that died
        if not self._validated:
            check = subprocess.run(
                [self.binary, "-n", "-c", str(self.config_path)],
                capture_output=True,
                env=_clean_env(),
                check=False,
            )
            if check.returncode != 0:
                raise RuntimeError(
                    f"dovecot rejected {self.config_path}:\n"
                    + check.stderr.decode(errors="replace")
                )
            self._validated = True
        with open(self.root / "master.out", "ab") as out:
            self._proc = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.root,
                env=_clean_env(),
                # Its own process group, so a ^C meant for pytest does not reach it
                # before the fixtures' finalizers stop it.
                start_new_session=True,
            )
        try:
            wait_for_port(
                self.port,
                self.host,
                timeout=self.startup_timeout,
                greeting=b"* OK",
                check=self._check_alive,
            )
        except BaseException:
            self.stop()
            raise

    def _check_alive(self) -> None:
        if self._proc is not None and self._proc.poll() is not None:
            raise RuntimeError(
                f"dovecot exited with status {self._proc.returncode} while starting:\n"
                + self.log_tail()
            )

    def stop(self, timeout: float = patience(10)) -> None:
        """Stop Dovecot, disconnecting every client; the port, users and mail are kept."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        # The master leaves logged-in imap processes (and the log process serving
        # them) running, so clients would not see the server go away. They are in
        # the master's process group (start_new_session), so end that group.
        _end_process_group(proc.pid, timeout)

    def restart(self) -> None:
        """Stop and start Dovecot again on the same port with the same users and mail."""
        self.stop()
        self.start()

    def log_tail(self, lines: int = 30) -> str:
        """Return the last ``lines`` lines of Dovecot's log and startup output."""
        parts = []
        for path in (self.root / "master.out", self.log_path):
            if path.exists():
                parts.extend(path.read_text(errors="replace").splitlines()[-lines:])
        return "\n".join(parts)

    # -- IMAP helpers ------------------------------------------------------------

    def connect(self, user: str, *, timeout: float = patience(10)) -> IMAPClient:
        """Return an IMAP connection logged in as ``user`` (close it with ``logout()``)."""
        client = IMAPClient(self.host, self.port, ssl=False, timeout=timeout)
        try:
            client.login(user, self.password(user))
        except BaseException:
            client.shutdown()
            raise
        return client

    def append(
        self,
        user: str,
        folder: str,
        raw: bytes,
        internaldate: datetime | None = None,
        flags: tuple[str, ...] = (),
    ) -> int | None:
        """Put the message ``raw`` into ``folder`` of ``user``, creating the folder if needed.

        ``internaldate`` should be timezone-aware (a naive one is taken as local
        time). Returns the new message's UID.
        """
        with self.connect(user) as client:
            if folder.upper() != "INBOX" and not client.folder_exists(folder):
                client.create_folder(folder)
            response = client.append(folder, raw, flags=flags, msg_time=internaldate)
        match = _APPENDUID.search(response)
        return int(match.group(1)) if match else None

    def append_many(self, user: str, folder: str, raws: list[bytes]) -> list[int]:
        """Put the messages ``raws`` into ``folder`` of ``user`` over one connection, in order.

        Creates the folder if needed; returns the new messages' UIDs.
        """
        uids = []
        with self.connect(user) as client:
            if folder.upper() != "INBOX" and not client.folder_exists(folder):
                client.create_folder(folder)
            for raw in raws:
                match = _APPENDUID.search(client.append(folder, raw))
                if match is None:
                    raise RuntimeError("the server did not report the appended message's UID")
                uids.append(int(match.group(1)))
        return uids

    def list_folder(self, user: str, folder: str = "INBOX") -> list[bytes]:
        """Return the raw messages in ``folder`` of ``user``, in UID order."""
        with self.connect(user) as client:
            client.select_folder(folder, readonly=True)
            uids = sorted(client.search("ALL"))
            if not uids:
                return []
            fetched: Mapping[int, Mapping[bytes, object]] = client.fetch(uids, [b"BODY.PEEK[]"])
        messages = []
        for uid in uids:
            if uid not in fetched:
                continue  # moved away (by the daemon) between the SEARCH and the FETCH
            body = fetched[uid].get(b"BODY[]")
            if not isinstance(body, bytes):
                continue  # expunged while fetched: the server answers its body NIL
            messages.append(body)
        return messages
