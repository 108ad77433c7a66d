"""Real servers on loopback (Dovecot, an SMTP sink, PostgreSQL) for the integration tests."""
