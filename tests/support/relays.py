"""What scripted relays share: ``send_each`` made of their own ``send``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from speakerbot.adapters.smtp import DeliveryResult, Transaction


class OneByOne:
    """A scripted relay's ``send_each``: its ``send`` for each, stopping at a failure for now."""

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Say how the scripted relay answers one transaction (each relay its own)."""
        raise NotImplementedError

    def send_each(self, transactions: Iterable[Transaction], *,
                  may_send: Callable[[], bool] | None = None) -> list[DeliveryResult]:
        """Send each in turn, taking the next only when it is sent; stop after a failure."""
        results: list[DeliveryResult] = []
        for mail_from, recipients, raw in transactions:
            if may_send is not None and not may_send():
                break
            results.append(self.send(mail_from, recipients, raw))
            if results[-1].temporary_failure is not None:
                break
        return results
