/**
 * What a scalar card draws besides its curves: the tooltip (rows per hovered curve and notes on what is near the
 * cursor), annotation lines and the markers of non-finite values on the chart's edges.
 */
import type uPlot from "uplot";
import { formatDuration, formatNumber, formatStep, formatWallTime } from "../format";
import { hoverRows, placeTooltip } from "../lines/hover";
import type { ChartModel } from "../lines/model";
import type { Settings } from "../lines/settings";
import type { CardOverlay } from "../overlays";
import { tooltipHtml } from "../tooltip";

/** An annotation in the chart's x units, in its run's colour. */
export interface AnnotationMark {
  x: number;
  text: string;
  colour: string;
}

const TOOLTIP_ROWS = 8;

/**
 * The card's tooltip at the cursor: a row per hovered curve, under a header naming the x value, then notes on
 * what is near the cursor (non-finite values, annotations, what the overlays say).
 */
export function showTooltip(
  u: uPlot,
  own: boolean,
  tip: HTMLDivElement | null,
  model: ChartModel | null,
  anns: AnnotationMark[],
  settings: Settings,
  overlays: readonly CardOverlay[],
): void {
  if (!tip) return;
  const left = u.cursor.left;
  if (!own || !model || left == null || left < 0) {
    tip.hidden = true;
    return;
  }
  const x = u.posToVal(left, "x");
  const rows = hoverRows(u, model, x, u.cursor.top ?? 0);
  const xm = settings.xAxis;
  const header =
    xm === "step" ? `step ${formatStep(x)}` : xm === "wall" ? formatWallTime(x) : xm === "relative" ? formatDuration(x) : `${settings.xTag} = ${formatNumber(x)}`;
  const near = (mx: number) => Math.abs(u.valToPos(mx, "x") - left) <= 5;
  const kinds = { nan: "NaN", inf: "+Inf", "-inf": "-Inf" } as const;
  const many = model.hover.length > 1;
  const notes = [
    ...new Set([
      ...model.markers.filter((m) => near(m.x)).map((m) => `${kinds[m.kind]} at step ${formatStep(m.step)}${many ? ` (${m.label})` : ""}`),
      ...anns.filter((a) => near(a.x)).map((a) => `Annotation: ${a.text}`),
      ...overlays.flatMap((o) => o.notes(u, x, left)),
    ]),
  ];
  tip.innerHTML = tooltipHtml(header, rows, settings.tooltipSort, TOOLTIP_ROWS, notes);
  placeTooltip(u, tip, left);
}

/** Non-finite markers and annotation lines, on the chart's canvas. */
export function drawMarks(u: uPlot, model: ChartModel | null, anns: AnnotationMark[]): void {
  if (!model) return;
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const dpr = devicePixelRatio || 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  for (const a of anns) {
    const px = u.valToPos(a.x, "x", true);
    if (!(px >= left && px <= left + width)) continue;
    ctx.strokeStyle = a.colour;
    ctx.globalAlpha = 0.8;
    ctx.lineWidth = 1 * dpr;
    ctx.setLineDash([4 * dpr, 3 * dpr]);
    ctx.beginPath();
    ctx.moveTo(px, top);
    ctx.lineTo(px, top + height);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = a.colour;
    ctx.beginPath();
    ctx.arc(px, top + 5 * dpr, 3.5 * dpr, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  const s = 5 * dpr;
  for (const m of model.markers) {
    const px = u.valToPos(m.x, "x", true);
    if (!(px >= left - s && px <= left + width + s)) continue;
    ctx.fillStyle = m.colour;
    ctx.strokeStyle = m.colour;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    if (m.kind === "inf") {
      ctx.moveTo(px, top + 1);
      ctx.lineTo(px - s, top + 1 + 1.6 * s);
      ctx.lineTo(px + s, top + 1 + 1.6 * s);
      ctx.closePath();
      ctx.fill();
    } else if (m.kind === "-inf") {
      const b = top + height - 1;
      ctx.moveTo(px, b);
      ctx.lineTo(px - s, b - 1.6 * s);
      ctx.lineTo(px + s, b - 1.6 * s);
      ctx.closePath();
      ctx.fill();
    } else {
      // NaN: a cross on the bottom edge (non-finite markers live on the edges, never among the values).
      const y = top + height - 1 - 0.8 * s;
      ctx.moveTo(px - s, y - s);
      ctx.lineTo(px + s, y + s);
      ctx.moveTo(px + s, y - s);
      ctx.lineTo(px - s, y + s);
      ctx.stroke();
    }
  }
  ctx.restore();
}
