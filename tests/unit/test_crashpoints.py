"""The crash points are handed to the service: read from variables only by the entry point."""

from __future__ import annotations

from pathlib import Path

from speakerbot.service.crashpoints import NO_CRASHES, CrashPoints


def test_no_variables_means_no_crash_point() -> None:
    assert CrashPoints.from_variables({"SPEAKERBOT_SEED": "1"}) == NO_CRASHES


def test_the_variables_name_the_point_the_match_and_the_marker() -> None:
    points = CrashPoints.from_variables({"SPEAKERBOT_CRASHPOINT": "processing",
                                         "SPEAKERBOT_CRASHPOINT_MATCH": "poison",
                                         "SPEAKERBOT_CRASHPOINT_MARKER": "/tmp/marker"})
    assert points == CrashPoints("processing", "poison", "/tmp/marker")


def test_another_point_an_unmatched_subject_or_a_marker_left_behind_do_not_crash(
        tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    CrashPoints("after-fetch").reach("after-commit")
    CrashPoints("processing", match="poison").reach("processing", "a harmless subject")
    marker.write_text("processing")
    CrashPoints("processing", marker=str(marker)).reach("processing", "anything")
    NO_CRASHES.reach("processing", "poison")
