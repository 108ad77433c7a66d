"""The unit of work: one transaction per message or tick, and the outbox's policy."""
