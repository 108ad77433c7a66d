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


# The chart is drawn as wide as a phone shows it (375 px, less the page's margins), so that
# its type is shown at the size it is written: no text under 11 px on a phone.
WIDTH = 340
SMALLEST_TYPE = 12
"""The size of the chart's smallest text, in pixels at its drawn width."""


def charted(game: GameArchive) -> list[PlayerRecord]:
    """Return the players the chart shows: those playing now, the Speaker's role left out.

    A removed player, and the game's own addresses (the host as Speaker), are not players
    a visitor compares scores with.
    """
    return [player for player in game.players.values()
            if player.active and player.role != "speaker"]


def scores_chart(game: GameArchive) -> bytes | None:
    """Return the SVG of the current players' scores over the game, or None with none."""
    players = charted(game)
    if not players:
        return None
    import pygal  # lazily: only a site build draws charts
    from pygal.style import DefaultStyle

    style = DefaultStyle(label_font_size=SMALLEST_TYPE, major_label_font_size=SMALLEST_TYPE,
                         legend_font_size=SMALLEST_TYPE + 1, title_font_size=SMALLEST_TYPE + 3,
                         value_font_size=SMALLEST_TYPE, tooltip_font_size=SMALLEST_TYPE,
                         value_label_font_size=SMALLEST_TYPE)
    chart = pygal.DateTimeLine(
        js=[], disable_xml_declaration=True, width=WIDTH, height=300 + 18 * len(players),
        style=style, title="Scores over time", show_dots=False, legend_at_bottom=True,
        legend_at_bottom_columns=1, truncate_legend=40, x_label_rotation=20,
        x_labels_major_count=3, show_minor_x_labels=False,
        x_value_formatter=lambda moment: moment.strftime("%Y-%m-%d"),
        print_values=False, dynamic_print_values=False,
    )
    # Up to the latest change of any player's score (or a join, a leaving), not to the
    # last event: so the chart changes only with the scores, and a proposal or a CFJ need
    # not draw it again (the archive is kept page by page).
    end = max((player.series[-1][0] for player in game.players.values() if player.series),
              default=None)
    for player in players:
        chart.add(player.name, _steps(player, end))
    svg: str = chart.render()
    svg = _SCRIPT.sub("", _DRAWN_ON.sub("", _CHART_ID.sub("chart-scores", svg)))
    return svg.encode("utf-8")


def _steps(player: PlayerRecord, end: datetime | None) -> list[tuple[datetime, float]]:
    """Return a player's score as steps: it holds until the moment it changes.

    The line runs on to ``end``, the latest change of anyone's score (or to the player's
    leaving), so that a player whose score has not changed for a while is still drawn up
    to the others.
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
