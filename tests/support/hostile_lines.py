"""A hostile line of a proposal, repeated, must be read in linear time: one check, shared."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from speakerbot.mail.inbound.language import ParseResult, parse_commands
from tests.support.cpu_time import cpu_seconds, growth


def assert_read_in_linear_time(line: str, titles: Mapping[int, str] | None = None) -> None:
    """Read ``line`` repeated to 16 and 64 KiB inside a proposal, with ``titles`` in hand.

    64 KiB costs under a second of CPU, and four times the text under eight times the time
    (a backtracking pattern would cost the square).
    """
    def body(size: int) -> str:
        return f"PROPOSE T\nRepeal Rule 6.\n{line * (size // len(line))}\nEND PROPOSE\n"

    def parsing(size: int) -> Callable[[], ParseResult]:
        return lambda: parse_commands("", body(size), titles=titles)

    assert cpu_seconds(parsing(65536), enough=1.0) < 1.0
    assert growth(parsing(16384), parsing(65536), enough=8) < 8
