"""The mail chain as a fixture: started once per module, every part in parallel.

Where the machine cannot run it (not root, a program missing, no mount namespace), every
test that uses it is skipped with the reason; ``scripts/install-system-deps`` installs
the programs from the system's packages.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.chain.game import ALICE, ChainGame
from tests.chain.harness import MailChain, compose
from tests.chain.parts import Chain, missing
from tests.chain.zones import make_keys
from tests.support.ports import free_port
from tests.support.smtp_sink import SmtpSink


@pytest.fixture(scope="session")
def dkim_keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The made-up domains' DKIM keys, made once per test run."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    return make_keys(tmp_path_factory.mktemp("dkim-keys"))


@pytest.fixture(scope="module")
def mail_chain(dkim_keys: dict[str, Path],
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailChain]:
    """The chain with speakerbot behind it, and a proposal of Alice's open to vote on."""
    lmtp_port = free_port()
    with SmtpSink() as sink:
        chain = Chain(lmtp_port, sink.port, dkim_keys)
        game = ChainGame(tmp_path_factory.mktemp("chain-game"), lmtp_port, sink.port)
        try:
            # The daemon starts (Python, the database) while the chain's parts do.
            with ThreadPoolExecutor(1) as pool:
                starting = pool.submit(game.start)
                chain.start()
                starting.result()
            running = MailChain(chain, game, sink)
            proposed = running.send_signed(compose(ALICE, "Tea is served at four.\n",
                                                   subject="PROPOSE: Tea"),
                                           "players.test")
            row = game.wait_handled(proposed)
            assert row.status == "processed", running.failure(proposed)
            [running.proposal] = game.state().proposals
            yield running
        finally:
            game.stop()
            chain.stop()
