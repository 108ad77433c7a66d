"""The chart of scores over time: an SVG file whose cost the game's length does not set.

The chart is redrawn after every close that changes a score, and the archive is kept page
by page: what it costs is paid on every close. So it is drawn from a bounded number of
moments: every moment a score changed while there are few (``SAMPLES`` or fewer), else
``SAMPLES`` moments spread evenly from the game's first score to its latest change, each
player's score read at each by bisection. At the chart's width (a phone's) the moments
are a few pixels apart: it looks the same as every step drawn, whatever the length of the
game. It was drawn by pygal, whose cost grew with every step of every player (a second
at 50,000 events); the SVG here is the same kind of picture, written directly: no script,
no random id, no date of drawing, so that one record always gives the same bytes.
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import UTC, datetime
from html import escape

from speakerbot.site.archive import GameArchive, PlayerRecord

__all__ = ["SAMPLES", "charted", "scores_chart"]

# The chart is drawn as wide as a phone shows it (375 px, less the page's margins), so that
# its type is shown at the size it is written: no text under 11 px on a phone.
WIDTH = 340
SMALLEST_TYPE = 12
"""The size of the chart's smallest text, in pixels at its drawn width."""

SAMPLES = 120
"""The most moments a player's line is drawn through (about three pixels apart)."""

_PLOT_TOP, _PLOT_HEIGHT, _LEFT, _RIGHT = 40, 200, 52, 12
_LEGEND_LINE = 18
_COLOURS = ("#F44336", "#3F51B5", "#009688", "#FFC107", "#FF5722", "#9C27B0", "#03A9F4",
            "#8BC34A", "#FF9800", "#E91E63", "#2196F3", "#4CAF50", "#FFEB3B", "#673AB7",
            "#00BCD4", "#CDDC39", "#9E9E9E", "#607D8B")
# Past the colours, lines are told apart by their dashes too.
_DASHES = ("", "6 3", "2 2", "8 2 2 2")


def charted(game: GameArchive) -> list[PlayerRecord]:
    """Return the players the chart shows: every one playing now, the Speaker included.

    The same players as the scores' table beside it: the Speaker has a score and a line
    of their own, and a line the legend does not name is a line no one can read. A removed
    player is not one a visitor compares scores with.
    """
    return [player for player in game.players.values() if player.active]


def scores_chart(game: GameArchive) -> bytes | None:
    """Return the SVG of the current players' scores over the game, or None with none."""
    players = charted(game)
    if not players:
        return None
    # Up to the latest change of any player's score (or a join, a leaving), not to the
    # last event: so the chart changes only with the scores, and a proposal or a CFJ need
    # not draw it again (the archive is kept page by page).
    end = max((player.stamps[-1] for player in game.players.values() if player.stamps),
              default=None)
    starts = [player.stamps[0] for player in players if player.stamps]
    if end is None or not starts:
        return None
    moments = _moments(players, min(starts), end)
    lines = [_line(player, moments, end) for player in players]
    scores = [score for line in lines for _, score in line] or [0.0]
    frame = _Frame(moments[0], moments[-1], min(scores), max(scores))
    height = _PLOT_TOP + _PLOT_HEIGHT + 60 + _LEGEND_LINE * len(players)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="scores" width="{WIDTH}" '
             f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img">',
             f"<style>text{{font-family:sans-serif;font-size:{SMALLEST_TYPE}px;"
             f"fill:#222}}.title{{font-size:{SMALLEST_TYPE + 3}px}}"
             f".legend text{{font-size:{SMALLEST_TYPE + 1}px}}"
             "path{fill:none;stroke-width:1.5}</style>",
             f'<rect width="{WIDTH}" height="{height}" fill="#f9f9f9"/>',
             f'<text class="title" x="{WIDTH // 2}" y="22" text-anchor="middle">'
             "Scores over time</text>", *frame.axes()]
    across = {at: f"{frame.x(at):.1f}" for line in lines for at, _ in line}
    for index, (player, line) in enumerate(zip(players, lines, strict=True)):
        colour, dash = _style(index)
        if line:
            parts.append(f'<path d="{_steps(line, across, frame)}" stroke="{colour}"{dash}/>')
        top = _PLOT_TOP + _PLOT_HEIGHT + 56 + _LEGEND_LINE * index
        parts.append(f'<g class="legend reactive activate-serie"><line x1="8" x2="30" '
                     f'y1="{top - 4}" y2="{top - 4}" stroke="{colour}" stroke-width="3"'
                     f'{dash}/><text x="36" y="{top}">{escape(_short(player.name))}</text></g>')
    parts.append("</svg>\n")
    return "".join(parts).encode("utf-8")


class _Frame:
    """Where a moment (POSIX seconds) and a score fall on the plot."""

    def __init__(self, first: float, last: float, low: float, high: float) -> None:
        self.first, self.last, self.span = first, last, max(last - first, 1.0)
        self.low = min(low, 0.0)
        self.high = max(high, self.low + 1.0)

    def x(self, at: float) -> float:
        """Return the abscissa of a moment."""
        return _LEFT + (at - self.first) / self.span * (WIDTH - _LEFT - _RIGHT)

    def y(self, score: float) -> float:
        """Return the ordinate of a score."""
        share = (score - self.low) / (self.high - self.low)
        return _PLOT_TOP + _PLOT_HEIGHT * (1 - share)

    def axes(self) -> list[str]:
        """Return the plot's frame, three scores up its side and three dates below it."""
        bottom, right = _PLOT_TOP + _PLOT_HEIGHT, WIDTH - _RIGHT
        parts = [f'<path d="M{_LEFT} {_PLOT_TOP}V{bottom}H{right}" stroke="#999" '
                 'fill="none"/>']
        for share in (0.0, 0.5, 1.0):
            score = self.low + share * (self.high - self.low)
            y = self.y(score)
            parts.append(f'<path d="M{_LEFT} {y:.1f}H{right}" stroke="#e0e0e0"/>'
                         f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">'
                         f"{_number(score)}</text>")
        middle = self.first + (self.last - self.first) / 2
        shown: set[str] = set()
        for at, anchor, (label, day) in zip(
                (self.first, middle, self.last), ("start", "middle", "end"),
                _labels((self.first, middle, self.last)), strict=True):
            if label in shown:  # a game of a moment: one label, not the same three times
                continue
            shown.add(label)
            x = f"{self.x(at):.1f}"
            parts.append(f'<text x="{x}" y="{bottom + 18}" text-anchor="{anchor}">{label}</text>')
            if day:
                parts.append(f'<text x="{x}" y="{bottom + 32}" text-anchor="{anchor}">'
                             f"{day}</text>")
        return parts


def _labels(moments: tuple[float, ...]) -> list[tuple[str, str]]:
    """Return the label of each moment under the plot, and the day written below it ("").

    Days while they differ; within a shorter span, times of day (UTC, to the second if the
    minutes are the same), each day written once below the first time of that day: a game
    of one afternoon showed the same date three times.
    """
    stamps = [datetime.fromtimestamp(at, UTC) for at in moments]
    days = [stamp.strftime("%Y-%m-%d") for stamp in stamps]
    if len(set(days)) == len(days):
        return [(day, "") for day in days]
    minutes = [stamp.strftime("%Y-%m-%d %H:%M") for stamp in stamps]
    clock = "%H:%M" if len(set(minutes)) == len(minutes) else "%H:%M:%S"
    return [(stamp.strftime(clock), day if index == 0 or day != days[index - 1] else "")
            for index, (stamp, day) in enumerate(zip(stamps, days, strict=True))]


def _moments(players: list[PlayerRecord], first: float, end: float) -> list[float]:
    """Return the moments the lines go through: every change while few, else evenly spread."""
    if sum(len(player.stamps) for player in players) <= SAMPLES:
        found = {at for player in players for at in player.stamps}
        return sorted(found | {end})
    step = (end - first) / (SAMPLES - 1)
    return [first + step * count for count in range(SAMPLES - 1)] + [end]


def _line(player: PlayerRecord, moments: list[float], end: float) -> list[tuple[float, float]]:
    """Return a player's score at each moment of ``moments`` where it differs from before.

    The first is at the first moment after the player's joining, the last at ``end`` (or
    at their leaving), so that a player whose score has not changed for a while is still
    drawn up to the others. The score holds between two: the line is drawn as steps.
    """
    series, stamps = player.series, player.stamps
    if not series:
        return []
    stop = min(player.left_at.timestamp(), end) if player.left_at else end
    points: list[tuple[float, float]] = []
    step, last = -1, None
    for at in moments:
        if at < stamps[0] or at > stop:
            continue
        # The step the score was left at by that moment; a step read once, when it is new.
        found = bisect_right(stamps, at, lo=max(step, 0)) - 1
        if found != step:
            step, score = found, series[found][1]
            if score != last:
                points.append((at, float(score)))
                last = score
    if points and stop > points[-1][0]:
        points.append((stop, points[-1][1]))
    return points


def _steps(line: list[tuple[float, float]], across: dict[float, str], frame: _Frame) -> str:
    """Return the SVG path of a line of steps: across to each moment, then up or down."""
    (first, score), *rest = line
    drawn = [f"M{across[first]} {frame.y(score):.1f}"]
    for at, score in rest:
        drawn.append(f"H{across[at]}V{frame.y(score):.1f}")
    return "".join(drawn)


def _style(index: int) -> tuple[str, str]:
    """Return the colour and the dashes (as an attribute) of the line of player ``index``."""
    colour = _COLOURS[index % len(_COLOURS)]
    dash = _DASHES[index // len(_COLOURS) % len(_DASHES)]
    return colour, f' stroke-dasharray="{dash}"' if dash else ""


def _number(score: float) -> str:
    return f"{score:.0f}" if abs(score) >= 10 or score == int(score) else f"{score:.1f}"


def _short(name: str, limit: int = 40) -> str:
    return name if len(name) <= limit else name[:limit - 1] + "…"
