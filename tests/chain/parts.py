"""The mail chain's parts, each in a folder of its own, on loopback, on free ports.

unbound (the made-up zones); a sending Postfix that signs with OpenDKIM (the players'
provider); the receiving Postfix with OpenDKIM (verify) and OpenDMARC as milters, the
recipe of ``deploy/postfix/`` filled in, handing mail by LMTP to speakerbot. Every part
is started at once and then waited for, so the chain starts in the time of its slowest part.

Needs root (Postfix's queue, a mount namespace) and the programs of
``scripts/install-system-deps``; ``missing()`` says what this machine lacks.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.chain.zones import AUTHSERV_ID, GAME_DOMAIN, SELECTOR, WRONG_KEY, unbound_conf
from tests.support.patience import patience
from tests.support.ports import LOOPBACK, free_port, wait_for_port

RECIPE = Path(__file__).resolve().parents[2] / "deploy" / "postfix"
PROGRAMS = ("postfix", "opendkim", "opendkim-genkey", "opendmarc", "unbound", "unshare")
NO_HOST = "192.0.2.1"
"""A documentation address: the milters' lists of hosts to skip hold only this one."""
SIGNER_HEADER = "X-Chain-Signer"
"""Which key the sending OpenDKIM signs with: an address at the key's name (SenderHeaders)."""


def program(name: str) -> str | None:
    """The path of ``name``, looked for in /usr/sbin too (not on every user's PATH)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def missing() -> str | None:
    """Why this machine cannot run the chain, or None when it can."""
    if os.geteuid() != 0:
        return "the mail chain needs root (Postfix's queue, a mount namespace for OpenDMARC)"
    absent = [name for name in PROGRAMS if program(name) is None]
    if absent:
        return (f"the mail chain needs {', '.join(absent)}: run `bash "
                "scripts/install-system-deps` as root")
    # What OpenDMARC is started with: a resolv.conf of its own, in a mount namespace.
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "mount",
                            "--bind", "/dev/null", "/etc/resolv.conf"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return ("the mail chain needs a mount namespace with /etc/resolv.conf bound over "
                f"(unshare: {probe.stderr.strip()})")
    return None


def render(template: str, values: Mapping[str, object]) -> str:
    """A file of the recipe with each ``{{NAME}}`` filled in; every one must be given."""
    text = (RECIPE / template).read_text()
    filled = re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: str(values[m.group(1)]), text)
    return filled


def dns_address() -> str:
    """A loopback address whose port 53 is free (TCP and UDP), outside 127.0.0.0/24."""
    for _ in range(50):
        address = f"127.{random.randint(1, 254)}.{random.randint(0, 255)}.{random.randint(1, 254)}"
        try:
            for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                with socket.socket(socket.AF_INET, kind) as sock:
                    sock.bind((address, 53))
        except OSError:
            continue
        return address
    raise RuntimeError("no loopback address with a free port 53")


@dataclass
class Daemon:
    """A program of the chain run in the foreground, its output in ``log``."""

    name: str
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None
    host: str = LOOPBACK

    def start(self, command: list[str]) -> None:
        """Start ``command``; it must then listen on ``host:port``."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def wait(self, timeout: float) -> None:
        """Return once the program listens; fail with its log if it exited first."""
        def alive() -> None:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}):\n"
                                   + self.log.read_text(errors="replace")[-3000:])
        wait_for_port(self.port, self.host, timeout=timeout, check=alive)

    def halt(self) -> None:
        """Kill the program: it keeps nothing a test needs (``reap`` waits for it).

        On SIGTERM a milter waits out its connections' timeouts, ten seconds or more.
        """
        if self.process is not None and self.process.poll() is None:
            self.process.kill()

    def reap(self) -> None:
        """Wait until the program has gone."""
        if self.process is not None:
            self.process.wait(patience(10))


@dataclass
class Postfix:
    """A Postfix instance from a config folder of its own (``postfix -c``)."""

    name: str
    root: Path
    port: int
    starting: subprocess.Popen[bytes] | None = None
    master: int | None = None

    @property
    def config(self) -> Path:
        return self.root / "conf"

    @property
    def maillog(self) -> Path:
        return self.root / "maillog"

    def write(self, recipe: str, master: str, hostname: str) -> None:
        """Write main.cf (``recipe``, then the instance's own lines) and master.cf."""
        self.config.mkdir(parents=True)
        (self.root / "queue").mkdir()
        data = self.root / "data"
        data.mkdir()
        shutil.chown(data, "postfix")
        instance = f"""
# --- The test instance's own lines, not part of the recipe. ---
compatibility_level = 3.6
queue_directory = {self.root / "queue"}
data_directory = {data}
mail_owner = postfix
setgid_group = postdrop
myhostname = {hostname}
mydestination =
# LOOPBACK-ONLY: a test instance listens on loopback alone, on a free port (master.cf).
inet_interfaces = {LOOPBACK}
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
biff = no
maillog_file = {self.maillog}
maillog_file_prefixes = {self.root}
# Nothing here needs DNS: every next hop is an address, and the machine's own resolver
# may not answer at all.
smtpd_peername_lookup = no
smtp_dns_support_level = disabled
lmtp_dns_support_level = disabled
# A message deferred (a listener busy for a moment) is tried again within seconds, not
# the default five minutes and more, which would outlast any test's patience.
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
"""
        (self.config / "main.cf").write_text(recipe + instance)
        (self.config / "master.cf").write_text(master)
        # Postfix reads a file changed within the last second again and again, 300 ms
        # apart, until it is older (it may be half-written): dated a minute ago, it is
        # read at once.
        past = time.time() - 60
        for name in ("main.cf", "master.cf"):
            os.utime(self.config / name, (past, past))

    def start(self) -> None:
        """Start the instance; ``wait`` returns once it is up."""
        _make_queue(self.root / "queue")
        # Postfix prints its errors only to a terminal or its log: keep both.
        self.starting = subprocess.Popen(
            [str(program("postfix")), "-c", str(self.config), "start"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait(self, timeout: float) -> None:
        """Wait for ``postfix start`` (master -w: ready when it returns) and the listener."""
        assert self.starting is not None
        output, _ = self.starting.communicate(timeout=timeout)
        if self.starting.returncode != 0:
            log = self.maillog.read_text(errors="replace") if self.maillog.exists() else ""
            raise RuntimeError(f"postfix {self.name} did not start: {output!r}\n{log[-3000:]}")
        wait_for_port(self.port, timeout=timeout)

    def halt(self) -> None:
        """Ask the instance to stop, as "postfix stop" does (``reap`` waits for it)."""
        pid_file = self.root / "queue" / "pid" / "master.pid"
        if pid_file.exists():
            self.master = int(pid_file.read_text().split()[0])
            # SIGTERM to the master, which stops its children and exits: "postfix stop"
            # without its shell script's checks.
            os.kill(self.master, signal.SIGTERM)

    def reap(self) -> None:
        """Wait until the master process has gone (it is not our child: it forked)."""
        if self.master is None:
            return
        deadline = time.monotonic() + patience(10)
        while _alive(self.master):
            if time.monotonic() > deadline:
                os.kill(self.master, signal.SIGKILL)
                break
            time.sleep(0.02)  # a poll: the master's exit has no other signal


POSTFIX_FILES = Path("/etc/postfix/postfix-files")


def _make_queue(queue: Path) -> None:
    """Make the queue's folders as Postfix's own list says, and skip its start-up checks.

    ``postfix start`` on an empty queue runs ``post-install create-missing`` and a search
    of the whole installation for wrong permissions: two seconds here, for folders this
    does in a millisecond. Without the list (another layout), Postfix makes them itself.
    """
    if not POSTFIX_FILES.exists():
        return
    names = {"$mail_owner": "postfix", "$setgid_group": "postdrop"}
    for line in POSTFIX_FILES.read_text().splitlines():
        fields = line.split(":")
        if len(fields) < 5 or fields[1] != "d" or not fields[0].startswith("$queue_directory"):
            continue
        folder = queue / fields[0].removeprefix("$queue_directory").lstrip("/")
        folder.mkdir(exist_ok=True)
        group = names.get(fields[3], fields[3])
        shutil.chown(folder, names.get(fields[2], fields[2]), None if group == "-" else group)
        folder.chmod(int(fields[4], 8))
    (queue / "quick-start").touch()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _master(listen: str) -> str:
    return render("master.cf", {"SMTPD_LISTEN": listen})


@dataclass
class Chain:
    """The running chain: where to send mail in, and where each part keeps its files."""

    lmtp_port: int
    sink_port: int
    keys: dict[str, Path]
    dns: str = field(default_factory=dns_address)
    started_in: float = 0.0
    parts: list[Daemon | Postfix] = field(default_factory=list)
    # Under the system's temporary folder, not pytest's: Postfix's own processes run as
    # the postfix user and must reach their queue through every folder above it.
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="speakerbot-chain-")))

    def __post_init__(self) -> None:
        self.root.chmod(0o755)
        self.unbound = Daemon("unbound", 53, self.root / "unbound.log", host=self.dns)
        self.signer = Daemon("opendkim (sign)", free_port(), self.root / "opendkim-sign.log")
        self.verifier = Daemon("opendkim (verify)", free_port(),
                               self.root / "opendkim-verify.log")
        self.dmarc = Daemon("opendmarc", free_port(), self.root / "opendmarc.log")
        self.sending = Postfix("sending", self.root / "sending", free_port())
        self.receiving = Postfix("receiving", self.root / "receiving", free_port())
        self.parts = [self.unbound, self.signer, self.verifier, self.dmarc, self.sending,
                      self.receiving]

    def start(self) -> None:
        """Write every part's files, start them all, and wait until each one answers."""
        commands = self._write()
        began = time.monotonic()
        for daemon, command in commands:
            daemon.start(command)
        self.sending.start()
        self.receiving.start()
        for part in self.parts:
            part.wait(patience(15))
        self.started_in = time.monotonic() - began

    def stop(self) -> None:
        """Stop every part that was started, and delete the chain's folder."""
        try:
            # All at once: each takes a while to go, and none needs another to.
            for part in self.parts:
                part.halt()
            for part in self.parts:
                part.reap()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def logs(self) -> str:
        """The end of every part's log, for a failing test's message."""
        files = [self.receiving.maillog, self.sending.maillog, self.verifier.log,
                 self.dmarc.log, self.signer.log, self.unbound.log]
        return "\n".join(f"--- {path.name} ---\n{path.read_text(errors='replace')[-2000:]}"
                         for path in files if path.exists())

    def _write(self) -> list[tuple[Daemon, list[str]]]:
        root = self.root
        (root / "unbound.conf").write_text(unbound_conf(root, self.dns, self.keys))
        (root / "resolv.conf").write_text(f"nameserver {self.dns}\noptions timeout:2\n")
        (root / "no-hosts").write_text(f"{NO_HOST}\n")
        # DMARC's organizational domain: every made-up domain is a child of "test".
        (root / "public_suffix_list.dat").write_text("test\n")
        (root / "verify.conf").write_text(render("opendkim.conf", {
            "DKIM_PORT": self.verifier.port, "DKIM_HOST": LOOPBACK,
            "AUTHSERV_ID": AUTHSERV_ID, "INTERNAL_HOSTS_FILE": root / "no-hosts",
            "NAMESERVER": self.dns, "RESOLVER_CONFIGURATION": root / "libunbound.conf",
            "PID_FILE": root / "opendkim-verify.pid"}))
        # OpenDKIM's libunbound answers every name under .test NXDOMAIN by itself (a
        # special-use name, RFC 6761) and queries no loopback address: unless told.
        (root / "libunbound.conf").write_text(
            'server:\n  do-not-query-localhost: no\n  local-zone: "test." nodefault\n')
        (root / "opendmarc.conf").write_text(render("opendmarc.conf", {
            "DMARC_PORT": self.dmarc.port, "DMARC_HOST": LOOPBACK,
            "AUTHSERV_ID": AUTHSERV_ID, "PUBLIC_SUFFIX_LIST": root / "public_suffix_list.dat",
            "IGNORE_HOSTS_FILE": root / "no-hosts", "SPF_SELF_VALIDATE": "no",
            "PID_FILE": root / "opendmarc.pid"}))
        self._write_signer()
        self.receiving.write(render("main.cf", {
            "GAME_DOMAIN": GAME_DOMAIN, "LMTP_HOST": LOOPBACK, "LMTP_PORT": self.lmtp_port,
            "DKIM_HOST": LOOPBACK, "DKIM_PORT": self.verifier.port,
            "DMARC_HOST": LOOPBACK, "DMARC_PORT": self.dmarc.port,
        }), _master(f"{LOOPBACK}:{self.receiving.port}"), AUTHSERV_ID)
        # The players' provider: mail for the game goes to the receiving server, mail for
        # the list to the sink (where a test plays the list), each by address, no DNS.
        self.sending.write(f"""
transport_maps = inline:{{ {GAME_DOMAIN}=smtp:[{LOOPBACK}]:{self.receiving.port}, \
list.test=smtp:[{LOOPBACK}]:{self.sink_port} }}
smtpd_milters = inet:{LOOPBACK}:{self.signer.port}
milter_default_action = tempfail
""", _master(f"{LOOPBACK}:{self.sending.port}"), "mail.players.test")
        resolver = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                    'mount --bind "$0" /etc/resolv.conf && exec "$@"', str(root / "resolv.conf")]
        return [
            (self.unbound, [str(program("unbound")), "-d", "-c", str(root / "unbound.conf")]),
            (self.signer, [str(program("opendkim")), "-f", "-x", str(root / "sign.conf")]),
            (self.verifier, [str(program("opendkim")), "-f", "-x", str(root / "verify.conf")]),
            # OpenDMARC (and libspf2 inside it) has no resolver setting: it reads
            # /etc/resolv.conf, so it gets a private one pointing at unbound.
            (self.dmarc, [*resolver, str(program("opendmarc")), "-f", "-c",
                          str(root / "opendmarc.conf")]),
        ]

    def _write_signer(self) -> None:
        root = self.root
        table = ""
        signing = ""
        for name, private in self.keys.items():
            private.chmod(0o600)
            domain = "players.test" if name == WRONG_KEY else name
            table += f"{name} {domain}:{SELECTOR}:{private}\n"
            signing += f"*@{name} {name}\n"
        (root / "key.table").write_text(table)
        (root / "signing.table").write_text(signing)
        (root / "sign.conf").write_text(f"""Mode s
Socket inet:{self.signer.port}@{LOOPBACK}
KeyTable file:{root / "key.table"}
SigningTable refile:{root / "signing.table"}
# The key is chosen by this header's address (its domain names the key), not by From:
# a test signs in a player's name with another domain's key, or the wrong one.
SenderHeaders {SIGNER_HEADER}
Canonicalization relaxed/simple
# The keys are under /tmp, which anyone may write to: OpenDKIM refuses such keys unless
# told not to (these are made-up keys of a test run).
RequireSafeKeys no
Background no
Syslog no
PidFile {root / "opendkim-sign.pid"}
""")
