/**
 * The hover tooltip of a line chart built from a ChartModel (scalars and custom scalars cards): one row per
 * hovered series at the point nearest the cursor, and the tooltip placed beside the cursor without measuring.
 */
import type uPlot from "uplot";
import { nearestIndex } from "@charts/aggregate";
import { formatDuration, formatNumber } from "@charts/format";
import type { TooltipRow } from "@charts/tooltip";
import type { ChartModel, HoverSeries } from "./model";

/** The index of `h`'s point nearest `x` (a binary search when its x are sorted, else a scan); -1 if none. */
export function nearest(h: HoverSeries, x: number): number {
  if (h.sorted) return nearestIndex(h.x, x);
  let best = -1;
  let bd = Infinity;
  for (let i = 0; i < h.x.length; i++) {
    const d = Math.abs(h.x[i] - x);
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

/** A row per hovered series at x value `x`, with its pixel distance from the cursor's `top` (for sorting). */
export function hoverRows(u: uPlot, model: ChartModel, x: number, top: number): TooltipRow[] {
  const rows: TooltipRow[] = [];
  for (const h of model.hover) {
    const i = nearest(h, x);
    if (i < 0) continue;
    const y = h.smoothed[i];
    const py = Number.isFinite(y) ? u.valToPos(y, "y") : Infinity;
    rows.push({
      label: h.label,
      colour: h.colour,
      smoothed: y,
      raw: h.raw[i],
      step: h.step[i],
      time: h.wall ? formatDuration(h.wall[i] - h.wall[0]) : "",
      extra: h.bandLow ? `${formatNumber(h.bandLow[i])} – ${formatNumber(h.bandHigh![i])}` : undefined,
      distance: Math.abs(py - top),
    });
  }
  return rows;
}

/**
 * Shows `tip` beside the cursor at `left`. No measuring (a forced layout per mouse move): right of the cursor
 * on the left half, left of it on the right; kept inside the card (a wide tooltip on a narrow card was cut off
 * by the page's edge) by CSS clamping it against its own width (100%), still without measuring.
 */
export function placeTooltip(u: uPlot, tip: HTMLDivElement, left: number): void {
  tip.hidden = false;
  const x0 = u.bbox.left / devicePixelRatio + left;
  const flip = left > u.over.clientWidth / 2;
  tip.style.transform = flip
    ? `translate(max(-4px, calc(${Math.round(x0 - 16)}px - 100%)), 4px)`
    : `translate(clamp(-4px, ${Math.round(x0 + 16)}px, calc(${Math.round(u.width + 4)}px - 100%)), 4px)`;
}
