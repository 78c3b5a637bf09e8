"""Line charts as standalone SVG text (no scripts, fonts or external references): one tag, its runs' curves,
each run's forecast dashed inside its band, and the phases shaded (the plot background for a single run, a strip
per run under the axis otherwise: warm-up red, descent amber, convergence green)."""

from __future__ import annotations

import math
from html import escape

import numpy as np

from ridgeline.report.collect import SeriesInfo
from ridgeline.report.colours import PALETTE, colour

PHASE_COLOURS = {"warmup": "#e4572e", "descent": "#f3a712", "convergence": "#29a745"}
WIDTH, PLOT_HEIGHT = 720, 240
LEFT, RIGHT, TOP = 64, 16, 28
STRIP = 6
LEGEND_ROW = 16
MAX_LEGEND = 12


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round numbers (1, 2, 5 times a power of ten apart) covering [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 12) for i in range(int((high - first) / step + 1e-9) + 1)]


def label(value: float) -> str:
    """A tick or table number, short: 0.001234 -> 1.234e-3 style only when needed."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1e5 or magnitude < 1e-3:
        return f"{value:.3g}"
    return f"{value:.4g}"


def _path(xs: np.ndarray, ys: np.ndarray) -> str:
    return "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))


def line_chart(tag: str, series: list[SeriesInfo], run_order: list[str], chart_id: str = "c0") -> str:
    """The SVG of one tag's chart; run colours follow ``run_order`` so a run keeps its colour across charts.
    ``chart_id`` keeps the clip path's id unique when several charts share a page."""
    drawn = [s for s in series if len(s.step)]
    strips = len(series) if len(series) > 1 else 0
    shown_legend = min(len(series), MAX_LEGEND) + (1 if len(series) > MAX_LEGEND else 0)
    plot_bottom = TOP + PLOT_HEIGHT
    axis_bottom = plot_bottom + strips * (STRIP + 2) + 30
    height = axis_bottom + shown_legend * LEGEND_ROW + 8
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(tag)}" font-family="system-ui, sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="18" font-size="13" font-weight="600" fill="#222">{escape(tag)}</text>',
    ]
    if not drawn:
        out.append(f'<text x="{LEFT}" y="{TOP + 40}" fill="#666">no finite values</text></svg>')
        return "\n".join(out)

    xs_all = [s.step for s in drawn] + [s.forecast.step for s in drawn if s.forecast is not None]
    ys_all = [s.value for s in drawn] + [s.forecast.value for s in drawn if s.forecast is not None]
    x_low, x_high = float(min(x.min() for x in xs_all)), float(max(x.max() for x in xs_all))
    y_low, y_high = float(min(y.min() for y in ys_all)), float(max(y.max() for y in ys_all))
    if x_high == x_low:
        x_high = x_low + 1
    pad = (y_high - y_low) * 0.05 or abs(y_high) * 0.05 or 1.0
    y_low, y_high = y_low - pad, y_high + pad
    right = WIDTH - RIGHT

    def sx(x: np.ndarray | float) -> np.ndarray:
        return LEFT + (np.asarray(x, np.float64) - x_low) / (x_high - x_low) * (right - LEFT)

    def sy(y: np.ndarray | float) -> np.ndarray:
        clipped = np.clip(np.asarray(y, np.float64), y_low, y_high)
        return plot_bottom - (clipped - y_low) / (y_high - y_low) * PLOT_HEIGHT

    plot_box = f'x="{LEFT}" y="{TOP}" width="{right - LEFT}" height="{PLOT_HEIGHT}"'
    out.append(f'<clipPath id="{chart_id}-plot"><rect {plot_box}/></clipPath>')
    colours = {run: colour(i) for i, run in enumerate(run_order)}
    if len(series) == 1:  # one run: its phases shade the plot
        for seg in series[0].phases:
            x0, x1 = float(sx(seg.start_step)), float(sx(seg.end_step))
            out.append(
                f'<rect x="{x0:.1f}" y="{TOP}" width="{max(x1 - x0, 0.5):.1f}" height="{PLOT_HEIGHT}" '
                f'fill="{PHASE_COLOURS[seg.phase]}" fill-opacity="0.12"><title>{seg.phase}: steps {seg.start_step}'
                f"–{seg.end_step}</title></rect>"
            )
    for tick in nice_ticks(y_low, y_high):
        y = float(sy(tick))
        out.append(f'<line x1="{LEFT}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#555">{label(tick)}</text>')
    for tick in nice_ticks(x_low, x_high):
        x = float(sx(tick))
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{plot_bottom}" y2="{plot_bottom + 4}" stroke="#888"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_bottom - 14}" text-anchor="middle" fill="#555">{label(tick)}</text>')
    out.append(f'<rect {plot_box} fill="none" stroke="#bbb"/>')
    out.append(f'<g clip-path="url(#{chart_id}-plot)" fill="none" stroke-width="1.5">')
    for s in drawn:
        c = colours.get(s.run, "#333")
        if s.forecast is not None:
            f = s.forecast
            band = np.concatenate([sx(f.step), sx(f.step[::-1])]), np.concatenate([sy(f.high), sy(f.low[::-1])])
            out.append(f'<path d="{_path(*band)} Z" fill="{c}" fill-opacity="0.12" stroke="none"/>')
            start = (np.array([s.step[-1], *f.step]), np.array([s.value[-1], *f.value]))
            out.append(f'<path d="{_path(sx(start[0]), sy(start[1]))}" stroke="{c}" stroke-dasharray="5 4"/>')
        out.append(f'<path d="{_path(sx(s.step), sy(s.value))}" stroke="{c}"><title>{escape(s.run)}</title></path>')
    out.append("</g>")
    for row, s in enumerate(series[:] if strips else []):
        y = plot_bottom + 4 + row * (STRIP + 2)
        for seg in s.phases:
            x0, x1 = float(sx(seg.start_step)), float(sx(seg.end_step))
            out.append(
                f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 0.5):.1f}" height="{STRIP}" '
                f'fill="{PHASE_COLOURS[seg.phase]}" fill-opacity="0.7">'
                f"<title>{escape(s.run)} {seg.phase}</title></rect>"
            )
    out.append(f'<text x="{right}" y="{axis_bottom - 2}" text-anchor="end" fill="#777">step</text>')
    for row, s in enumerate(series[:MAX_LEGEND]):
        y = axis_bottom + row * LEGEND_ROW + 8
        swatch = colours.get(s.run, "#333")
        out.append(f'<line x1="{LEFT}" x2="{LEFT + 18}" y1="{y - 4}" y2="{y - 4}" stroke="{swatch}" stroke-width="2"/>')
        out.append(f'<text x="{LEFT + 24}" y="{y}" fill="#222">{escape(_short(s.run))}</text>')
    if len(series) > MAX_LEGEND:
        y = axis_bottom + MAX_LEGEND * LEGEND_ROW + 8
        out.append(f'<text x="{LEFT}" y="{y}" fill="#666">and {len(series) - MAX_LEGEND} more runs</text>')
    out.append("</svg>")
    return "\n".join(out)


def _short(text: str, most: int = 80) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


__all__ = ["PALETTE", "PHASE_COLOURS", "colour", "label", "line_chart", "nice_ticks"]
