"""The real servers of the integration tests, for the archive's browser test."""

from __future__ import annotations

from tests.integration.conftest import dovecot, smtp_sink

__all__ = ["dovecot", "smtp_sink"]
