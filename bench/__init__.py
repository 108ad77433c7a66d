"""Benchmarks: scripts that print figures, each beside its baseline (see ``against.py``)."""
