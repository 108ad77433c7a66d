"""Adapters to the outside world (the database, LMTP in, SMTP out); they know nothing of Nomic."""
