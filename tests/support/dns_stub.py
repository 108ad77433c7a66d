"""A DNS server on loopback for the tests of ``speakerbot doctor``: it knows no name."""

from __future__ import annotations

import socket
import threading

import dns.message
import dns.rcode

from .patience import patience
from .ports import LOOPBACK

_STOP = b"stop"


class NoSuchDomain:
    """A DNS server on loopback that answers every query NXDOMAIN, at once."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((LOOPBACK, 0))
        self.port = int(self.sock.getsockname()[1])
        self.thread = threading.Thread(target=self._serve, name="no-such-domain", daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        """The server as ``--nameserver`` takes it: ``ADDRESS:PORT``."""
        return f"{LOOPBACK}:{self.port}"

    def __enter__(self) -> NoSuchDomain:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _serve(self) -> None:
        while True:
            data, peer = self.sock.recvfrom(4096)
            if data == _STOP:
                return
            answer = dns.message.make_response(dns.message.from_wire(data))
            answer.set_rcode(dns.rcode.NXDOMAIN)
            self.sock.sendto(answer.to_wire(), peer)

    def close(self) -> None:
        """Stop serving: a datagram of its own ends the loop, which recvfrom cannot be told."""
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as stopper:
            stopper.sendto(_STOP, (LOOPBACK, self.port))
        self.thread.join(patience(10))
        self.sock.close()
