"""The chart of scores over time, as an SVG file drawn by pygal.

pygal is a maintained charting library that writes SVG with no browser and no native
code; it is imported only when a site is built, so that nothing else pays for it. Its
scripts (tooltips) are left out: the archive needs none, and the chart is shown as an
image. The chart's random id and its date of drawing are replaced or left out, so that
one record always gives the same bytes.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

from speakerbot.site.archive import GameArchive, PlayerRecord

__all__ = ["scores_chart"]

_CHART_ID = re.compile(r"chart-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_DRAWN_ON = re.compile(r"<!--Generated with [^>]*-->")
# pygal writes its tooltips' configuration inline whatever ``js`` says; an image runs no
# script, and the archive carries none.
_SCRIPT = re.compile(r"<script\b.*?</script>", re.DOTALL)


def scores_chart(game: GameArchive) -> bytes | None:
    """Return the SVG of every player's score over the game, or None with no players."""
    players = list(game.players.values())
    if not players:
        return None
    import pygal  # lazily: only a site build draws charts
    from pygal.style import DefaultStyle

    # Large type: on a phone the chart is drawn at about half its size.
    style = DefaultStyle(label_font_size=16, major_label_font_size=16, legend_font_size=18,
                         title_font_size=20, value_font_size=16, tooltip_font_size=16)
    chart = pygal.DateTimeLine(
        js=[], disable_xml_declaration=True, width=640, height=420, style=style,
        title="Scores over time", show_dots=False, legend_at_bottom=True,
        legend_at_bottom_columns=2, truncate_legend=24, x_label_rotation=20,
        x_labels_major_count=4, show_minor_x_labels=False,
        x_value_formatter=lambda moment: moment.strftime("%Y-%m-%d %H:%M"),
        print_values=False, dynamic_print_values=False,
    )
    end = game.timeline[-1].at if game.timeline else None
    for player in players:
        chart.add(player.name, _steps(player, end))
    svg: str = chart.render()
    svg = _SCRIPT.sub("", _DRAWN_ON.sub("", _CHART_ID.sub("chart-scores", svg)))
    return svg.encode("utf-8")


def _steps(player: PlayerRecord, end: datetime | None) -> list[tuple[datetime, float]]:
    """Return a player's score as steps: it holds until the moment it changes.

    The line runs on to the game's last event (or to the player's leaving), so that a
    player whose score has not changed for a while is still drawn up to now.
    """
    points: list[tuple[datetime, float]] = []
    last: Decimal | None = None
    for at, score in player.series:
        if last is not None:
            points.append((at, float(last)))
        points.append((at, float(score)))
        last = score
    stop = player.left_at or end
    if points and stop is not None and stop > points[-1][0]:
        points.append((stop, points[-1][1]))
    return points
