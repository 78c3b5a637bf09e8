/**
 * A drawn chart as a picture to download: PNG from the chart's own canvas (axes, curves and marks as they are on
 * screen) under its title and legend, and SVG built from what the chart plots — its axes and their ticks as drawn,
 * one path per curve in its colour (a run's raw curve behind its smoothed one is a second, faint path), the
 * bands between curves as filled paths — a vector drawing, not a bitmap wrapped in SVG.
 */
import uPlot from "uplot";
import type { BandSpec, LineSpec } from "./plot";

/** What a picture is made from: a drawn uPlot and what its series are (a Plot is one; the PR curves' mode-2 chart,
 * whose series each carry their own x, is another). */
export interface Pictured {
  u: uPlot;
  cfg: {
    lines: ReadonlyArray<Pick<LineSpec, "label" | "colour" | "width" | "alpha" | "dash" | "bandEdge" | "faint">>;
    bands: ReadonlyArray<BandSpec>;
  };
}

const TITLE_HEIGHT = 24;
const LEGEND_ROW = 16;
const FONT = "system-ui, sans-serif";

export interface LegendItem {
  label: string;
  colour: string;
  x: number;
  y: number;
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

function colours() {
  return {
    background: cssVar("--card-bg", "#ffffff"),
    text: cssVar("--fg", "#1b1f24"),
    axis: cssVar("--chart-axis", cssVar("--muted", "#888888")),
    grid: cssVar("--chart-grid", "rgba(128,128,128,0.15)"),
  };
}

/** The curves a legend names: one per label (a run, a group or a run's tag), the raw and band edges left out. */
export function legendEntries(plot: Pictured): { label: string; colour: string }[] {
  const seen = new Set<string>();
  const out: { label: string; colour: string }[] = [];
  plot.cfg.lines.forEach((line, i) => {
    if (line.faint || line.bandEdge || plot.u.series[i + 1]?.show === false || seen.has(line.label)) return;
    seen.add(line.label);
    out.push({ label: line.label, colour: line.colour });
  });
  return out;
}

/** Where each legend entry goes in a `width`-wide header below the title, and the header's height. */
export function legendLayout(entries: { label: string; colour: string }[], width: number): { items: LegendItem[]; height: number } {
  const items: LegendItem[] = [];
  let x = 8;
  let row = 0;
  for (const e of entries) {
    const w = 14 + Math.min(e.label.length, 60) * 6.5 + 14;
    if (x > 8 && x + w > width) {
      x = 8;
      row++;
    }
    items.push({ ...e, x, y: TITLE_HEIGHT + row * LEGEND_ROW });
    x += w;
  }
  return { items, height: TITLE_HEIGHT + (entries.length ? (row + 1) * LEGEND_ROW : 0) + 4 };
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

const num = (v: number) => (Math.round(v * 100) / 100).toString();

/** The plot area in CSS pixels of the uPlot root. */
function plotArea(u: uPlot) {
  const r = uPlot.pxRatio || 1;
  return { left: u.bbox.left / r, top: u.bbox.top / r, width: u.bbox.width / r, height: u.bbox.height / r };
}

/** Runs of consecutive finite points of series `si` as [x, y] pixel pairs (gaps break the line, as on screen). */
function segments(u: uPlot, si: number): [number, number][][] {
  // Mode 2 (x per series: PR curves) holds [xs, ys] for each series; mode 1 shares the x of u.data[0].
  const facets = (u as unknown as { mode?: number }).mode === 2 ? (u.data[si] as unknown as [ArrayLike<number | null>, ArrayLike<number | null>]) : null;
  const xs = facets ? facets[0] : u.data[0];
  const ys = (facets ? facets[1] : u.data[si]) as ArrayLike<number | null | undefined>;
  const scale = u.series[si].scale ?? "y";
  const area = plotArea(u);
  const out: [number, number][][] = [];
  let current: [number, number][] = [];
  for (let j = 0; j < xs.length; j++) {
    const x = xs[j];
    const y = ys[j];
    const px = x == null || !Number.isFinite(x) ? NaN : area.left + u.valToPos(x, "x");
    const py = y == null || !Number.isFinite(y) ? NaN : area.top + u.valToPos(y, scale);
    if (Number.isFinite(px) && Number.isFinite(py)) current.push([px, py]);
    else if (current.length) {
      out.push(current);
      current = [];
    }
  }
  if (current.length) out.push(current);
  return out;
}

function pathData(segs: [number, number][][]): string {
  return segs
    .map((seg) => `M${num(seg[0][0])} ${num(seg[0][1])}` + (seg.length === 1 ? "l0 0" : seg.slice(1).map(([x, y]) => `L${num(x)} ${num(y)}`).join("")))
    .join("");
}

interface AxisInternals {
  _splits?: number[] | null;
  _values?: (string | number | null)[] | null;
}

/** Each axis's ticks and labels as uPlot drew them (grid lines across the plot area, labels outside it). */
function axesSvg(u: uPlot, c: ReturnType<typeof colours>): string {
  const area = plotArea(u);
  const right = area.left + area.width;
  const bottom = area.top + area.height;
  const parts: string[] = [];
  u.axes.forEach((axis, ai) => {
    if (axis.show === false) return;
    const { _splits: splits, _values: values } = axis as unknown as AxisInternals;
    const scale = axis.scale ?? (ai === 0 ? "x" : "y");
    const side = axis.side ?? (ai === 0 ? 2 : 3);
    const ticks: string[] = [];
    (splits ?? []).forEach((value, k) => {
      const label = values?.[k];
      const pos = u.valToPos(value, scale);
      if (!Number.isFinite(pos)) return;
      if (side === 2 || side === 0) {
        const x = num(area.left + pos);
        ticks.push(`<line x1="${x}" y1="${num(area.top)}" x2="${x}" y2="${num(bottom + 4)}" stroke="${escapeXml(c.grid)}"/>`);
        if (label != null) ticks.push(`<text x="${x}" y="${num(bottom + 16)}" text-anchor="middle">${escapeXml(String(label))}</text>`);
      } else {
        const y = num(area.top + pos);
        const grid = side === 3 ? `<line x1="${num(area.left - 4)}" y1="${y}" x2="${num(right)}" y2="${y}" stroke="${escapeXml(c.grid)}"/>` : "";
        ticks.push(grid);
        if (label != null) {
          const x = side === 3 ? area.left - 6 : right + 6;
          ticks.push(`<text x="${num(x)}" y="${y}" dy="0.35em" text-anchor="${side === 3 ? "end" : "start"}">${escapeXml(String(label))}</text>`);
        }
      }
    });
    if (axis.label) {
      const label = escapeXml(String(axis.label));
      if (side === 2) ticks.push(`<text x="${num(area.left + area.width / 2)}" y="${num(u.height - 2)}" text-anchor="middle">${label}</text>`);
      else {
        const x = side === 3 ? 10 : u.width - 4;
        ticks.push(`<text transform="translate(${num(x)} ${num(area.top + area.height / 2)}) rotate(-90)" text-anchor="middle">${label}</text>`);
      }
    }
    parts.push(`<g class="axis" data-axis="${escapeXml(scale)}" data-side="${side}">${ticks.join("")}</g>`);
  });
  return parts.join("");
}

/** The chart as an SVG document: title, legend, axes, bands and one path per drawn curve. */
export function chartSvg(plot: Pictured, title: string): string {
  const u = plot.u;
  const c = colours();
  const { items, height: header } = legendLayout(legendEntries(plot), u.width);
  const width = u.width;
  const height = header + u.height;
  const area = plotArea(u);
  const body: string[] = [];
  body.push(`<clipPath id="plot-area"><rect x="${num(area.left)}" y="${num(area.top)}" width="${num(area.width)}" height="${num(area.height)}"/></clipPath>`);
  body.push(`<g font-size="11" fill="${escapeXml(c.axis)}">${axesSvg(u, c)}</g>`);
  const curves: string[] = [];
  plot.cfg.bands.forEach((band) => {
    if (u.series[band.upper]?.show === false || u.series[band.lower]?.show === false) return;
    const upper = segments(u, band.upper);
    const lower = segments(u, band.lower);
    const d = upper
      .map((seg, k) => {
        const back = (lower[k] ?? []).slice().reverse();
        return pathData([[...seg, ...back]]) + "Z";
      })
      .join("");
    if (d) curves.push(`<path data-role="band" d="${d}" fill="${escapeXml(band.colour)}" fill-opacity="${band.alpha ?? 0.15}" stroke="none"/>`);
  });
  plot.cfg.lines.forEach((line, i) => {
    const si = i + 1;
    if (line.bandEdge || u.series[si]?.show === false) return;
    const d = pathData(segments(u, si));
    if (!d) return;
    const dash = line.dash?.length ? ` stroke-dasharray="${line.dash.join(" ")}"` : "";
    curves.push(
      `<path data-role="${line.faint ? "raw" : "line"}" data-label="${escapeXml(line.label)}" d="${d}" fill="none" stroke="${escapeXml(line.colour)}" stroke-opacity="${line.alpha ?? 1}" stroke-width="${line.width ?? 1.5}" stroke-linejoin="round" stroke-linecap="round"${dash}/>`,
    );
  });
  body.push(`<g clip-path="url(#plot-area)">${curves.join("")}</g>`);
  body.push(`<rect x="${num(area.left)}" y="${num(area.top)}" width="${num(area.width)}" height="${num(area.height)}" fill="none" stroke="${escapeXml(c.grid)}"/>`);
  const legend = items
    .map(
      (it) =>
        `<g data-role="legend"><rect x="${num(it.x)}" y="${num(it.y + 3)}" width="10" height="10" rx="2" fill="${escapeXml(it.colour)}"/>` +
        `<text x="${num(it.x + 14)}" y="${num(it.y + 12)}">${escapeXml(it.label)}</text></g>`,
    )
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT}">` +
    `<rect width="100%" height="100%" fill="${escapeXml(c.background)}"/>` +
    `<text x="8" y="17" font-size="13" font-weight="600" fill="${escapeXml(c.text)}">${escapeXml(title)}</text>` +
    `<g font-size="11" fill="${escapeXml(c.text)}">${legend}</g>` +
    `<g transform="translate(0 ${header})">${body.join("")}</g>` +
    `</svg>\n`
  );
}

/** The chart's canvas as drawn (at the screen's pixel ratio), under its title and legend, as a PNG. */
export function chartPng(plot: Pictured, title: string): Promise<Blob> {
  const u = plot.u;
  const c = colours();
  const source = u.ctx.canvas;
  const ratio = source.width / Math.max(1, u.width);
  const { items, height: header } = legendLayout(legendEntries(plot), u.width);
  const canvas = document.createElement("canvas");
  canvas.width = source.width;
  canvas.height = Math.round((header + u.height) * ratio);
  const ctx = canvas.getContext("2d")!;
  ctx.scale(ratio, ratio);
  ctx.fillStyle = c.background;
  ctx.fillRect(0, 0, u.width, header + u.height);
  ctx.fillStyle = c.text;
  ctx.font = `600 13px ${FONT}`;
  ctx.fillText(title, 8, 17, u.width - 16);
  ctx.font = `11px ${FONT}`;
  for (const it of items) {
    ctx.fillStyle = it.colour;
    ctx.fillRect(it.x, it.y + 3, 10, 10);
    ctx.fillStyle = c.text;
    ctx.fillText(it.label, it.x + 14, it.y + 12);
  }
  ctx.drawImage(source, 0, header, u.width, u.height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the chart could not be encoded as PNG"))), "image/png"),
  );
}
