"""Charts drawn as SVG on the server: a line chart and a grouped bar chart.

No script draws them and nothing is fetched, so they pass the site's CSP and show without
JavaScript. Colors come from the stylesheet (classes ``series-0``, ``series-1``...: the site's
light and dark themes each give them colors), and every series also differs by something other
than color, for readers who cannot tell the colors apart: a line by its dash and its point
marks, a bar by its hatching. Every chart has a title and a description for screen readers, and
the page shows its numbers as a table beside it.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH = 640
HEIGHT = 260
MARGIN_LEFT = 56
MARGIN_RIGHT = 16
MARGIN_TOP = 16
MARGIN_BOTTOM = 48
DASHES = ("", "8 4", "2 4", "10 4 2 4")
MARKS = ("circle", "square", "triangle", "diamond")


@dataclass(frozen=True)
class Series:
    """One line or one kind of bar: its name in the legend and its values."""

    label: str
    points: Sequence[tuple[float, float]] = ()  # a line's (x, y)
    values: Sequence[float | None] = ()  # a bar chart's value per group (None: no bar)


def _nice_step(span: float, ticks: int = 5) -> float:
    """A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `ticks`."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _axis(low: float, high: float) -> tuple[float, float, list[float]]:
    """A range that holds `low` to `high` on round ticks, and its ticks."""
    if high <= low:
        high = low + 1
    step = _nice_step(high - low)
    start = math.floor(low / step) * step
    stop = math.ceil(high / step) * step
    count = round((stop - start) / step)
    return start, stop, [start + step * index for index in range(count + 1)]


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _mark(kind: str, x: float, y: float, css: str) -> str:
    if kind == "square":
        return f'<rect class="{css}" x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7"/>'
    if kind == "triangle":
        points = f"{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y + 3.5:.1f} {x - 4.5:.1f},{y + 3.5:.1f}"
        return f'<polygon class="{css}" points="{points}"/>'
    if kind == "diamond":
        points = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
        return f'<polygon class="{css}" points="{points}"/>'
    return f'<circle class="{css}" cx="{x:.1f}" cy="{y:.1f}" r="4"/>'


def _frame(title: str, description: str, body: list[str], legend: list[str]) -> SafeString:
    svg = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title><desc>{escape(description)}</desc>",
        *body,
        "</svg>",
    ]
    items = "".join(legend)
    return mark_safe(
        f'<figure class="chart-figure">{"".join(svg)}<ul class="chart-legend">{items}</ul></figure>'
    )


def _y_grid(low: float, high: float, ticks: list[float], fmt: Callable[[float], str]):
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM

    def y_of(value: float) -> float:
        return MARGIN_TOP + plot_h * (1 - (value - low) / (high - low))

    parts = []
    for tick in ticks:
        y = y_of(tick)
        parts.append(
            f'<line class="grid" x1="{MARGIN_LEFT}" x2="{WIDTH - MARGIN_RIGHT}" '
            f'y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{MARGIN_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(fmt(tick))}</text>"
        )
    return y_of, parts


def _hatch(uid: str, index: int) -> str:
    """The hatching of the `index`-th kind of bar (the first has none), as an SVG pattern."""
    return (
        f'<pattern id="{uid}-hatch-{index}" class="hatch" width="6" height="6" '
        f'patternUnits="userSpaceOnUse" patternTransform="rotate({45 * index})">'
        f'<line x1="0" y1="0" x2="0" y2="6"/></pattern>'
    )


def _legend_item(index: int, label: str, kind: str, uid: str = "") -> str:
    css = f"series-{index % len(DASHES)}"
    if kind == "line":
        dash = DASHES[index % len(DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        key = (
            f'<svg class="legend-key" viewBox="0 0 28 12" aria-hidden="true">'
            f'<line class="line {css}" x1="1" x2="27" y1="6" y2="6"{dashed}/>'
            f"{_mark(MARKS[index % len(MARKS)], 14, 6, css + ' mark')}</svg>"
        )
    else:
        hatch = index % len(DASHES)
        overlay = (
            f"<defs>{_hatch(f'{uid}-key{index}', hatch)}</defs>"
            f'<rect class="bar-hatch" x="1" y="1" width="12" height="12" '
            f'fill="url(#{uid}-key{index}-hatch-{hatch})"/>'
            if hatch
            else ""
        )
        key = (
            f'<svg class="legend-key" viewBox="0 0 14 14" aria-hidden="true">'
            f'<rect class="bar {css}" x="1" y="1" width="12" height="12"/>{overlay}</svg>'
        )
    return f"<li>{key} {escape(label)}</li>"


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    description: str,
    x_format: Callable[[float], str] = _number,
    y_format: Callable[[float], str] = _number,
) -> SafeString:
    """Lines through each series' points (x ascending), on shared axes."""
    xs = [x for line in series for x, _ in line.points]
    ys = [y for line in series for _, y in line.points]
    if not xs:
        return _frame(title, description, [], [])
    x_low, x_high = min(xs), max(xs)
    if x_high == x_low:
        x_low, x_high = x_low - 1, x_high + 1
    y_low, y_high, y_ticks = _axis(min(ys), max(ys))
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    y_of, body = _y_grid(y_low, y_high, y_ticks, y_format)

    def x_of(value: float) -> float:
        return MARGIN_LEFT + plot_w * (value - x_low) / (x_high - x_low)

    x_ticks = [x for x in _axis(x_low, x_high)[2] if x_low <= x <= x_high]
    if all(float(x).is_integer() for x in xs):  # counts: no tick between two of them
        x_ticks = [x for x in x_ticks if float(x).is_integer()]
    # The last label ends at the plot's right edge: centred there, it would be cut off.
    for x in x_ticks:
        anchor = "end" if x == x_high and len(x_ticks) > 1 else "middle"
        body.append(
            f'<text class="tick" x="{x_of(x):.1f}" y="{HEIGHT - MARGIN_BOTTOM + 18}" '
            f'text-anchor="{anchor}">{escape(x_format(x))}</text>'
        )
    for index, line in enumerate(series):
        css = f"series-{index % len(DASHES)}"
        dash = DASHES[index % len(DASHES)]
        points = " ".join(f"{x_of(x):.1f},{y_of(y):.1f}" for x, y in line.points)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        body.append(f'<polyline class="line {css}" points="{points}"{dashed}/>')
        body += [
            _mark(MARKS[index % len(MARKS)], x_of(x), y_of(y), f"{css} mark")
            for x, y in line.points
        ]
    legend = [_legend_item(index, line.label, "line") for index, line in enumerate(series)]
    return _frame(title, description, body, legend)


def bar_chart(
    groups: Sequence[str],
    series: Sequence[Series],
    *,
    title: str,
    description: str,
    y_format: Callable[[float], str] = _number,
) -> SafeString:
    """For each group, a bar per series (side by side), from zero."""
    uid = f"c{zlib.crc32(repr((title, tuple(groups))).encode()):08x}"
    values = [value for bars in series for value in bars.values if value is not None]
    top = max(values, default=0) or 1
    y_low, y_high, y_ticks = _axis(0, top)
    y_of, body = _y_grid(y_low, y_high, y_ticks, y_format)
    body.append(f"<defs>{''.join(_hatch(uid, index) for index in range(1, len(DASHES)))}</defs>")
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    slot = plot_w / max(len(groups), 1)
    width = slot * 0.8 / max(len(series), 1)
    for group_index, group in enumerate(groups):
        left = MARGIN_LEFT + slot * group_index + slot * 0.1
        body.append(
            f'<text class="tick" x="{left + slot * 0.4:.1f}" y="{HEIGHT - MARGIN_BOTTOM + 18}" '
            f'text-anchor="middle">{escape(group)}</text>'
        )
        for index, bars in enumerate(series):
            value = bars.values[group_index] if group_index < len(bars.values) else None
            if value is None:
                continue
            y = y_of(value)
            x = left + width * index
            css = f"series-{index % len(DASHES)}"
            height = max(y_of(0) - y, 0)
            shape = f'x="{x:.1f}" y="{y:.1f}" width="{width - 2:.1f}" height="{height:.1f}"'
            body.append(
                f'<rect class="bar {css}" {shape}><title>{escape(bars.label)}, '
                f"{escape(group)}: {escape(y_format(value))}</title></rect>"
            )
            if index % len(DASHES):
                hatch = f"url(#{uid}-hatch-{index % len(DASHES)})"
                body.append(f'<rect class="bar-hatch" {shape} fill="{hatch}"/>')
    legend = [_legend_item(index, bars.label, "bar", uid) for index, bars in enumerate(series)]
    return _frame(title, description, body, legend)
