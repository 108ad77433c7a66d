"""Every ADMIN action, wherever its command is defined, needs the PASSWORD line to be read."""

from __future__ import annotations

import pytest

from speakerbot.mail.inbound import language as lang

LINES = (
    "ADMIN PAUSE snow", "ADMIN RESUME", "ADMIN SKIP",
    "ADMIN ABSENT bob@example.org UNTIL 2099-01-01", "ADMIN END GAME", "ADMIN NEW GAME",
    "ADMIN DIGEST", "ADMIN CLOSE 301", "ADMIN SCORE bob@example.org +1 a riddle",
)


@pytest.mark.parametrize("line", LINES)
def test_an_admin_line_without_the_password_line_is_an_error(line: str) -> None:
    parsed = lang.parse_commands("", f"{line}\n")
    assert parsed.errors and "PASSWORD" in parsed.errors[0].reason
    with_password = lang.parse_commands("", f"PASSWORD kettle-42\n{line}\n")
    assert not with_password.errors
    assert all(isinstance(cmd, lang.AdminCommand) for cmd in with_password.commands)
