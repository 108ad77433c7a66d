"""[limits] max_absence: the longest absence a player may declare."""

from __future__ import annotations

from tests.unit.test_config import minimal, parse, refused


def test_max_absence_defaults_to_two_weeks_and_is_checked() -> None:
    assert parse(minimal()).limits.max_absence == 14 * 86400
    data = minimal()
    data["limits"] = {"max_absence": "30d"}
    assert parse(data).limits.max_absence == 30 * 86400
    for wrong, words in (("2h", "from 1d to 365d"), ("soon", "duration"), (14, "duration")):
        data["limits"] = {"max_absence": wrong}
        error = refused(data)
        assert error.key == "[limits] max_absence" and words in str(error), str(error)
