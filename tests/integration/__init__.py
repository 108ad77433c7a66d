"""Integration tests: speakerbot against real Dovecot, SMTP and PostgreSQL servers on loopback."""
