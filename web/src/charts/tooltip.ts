/**
 * The hover tooltip: one row per curve near the cursor (smoothed value, raw value, step, time), sorted by
 * distance to the cursor, by value or by name, limited to the first few with a "+N more" line. Rendered
 * imperatively (no framework work per mouse move) into one element per chart.
 */
import { formatNumber, formatStep } from "./format";

export type TooltipSort = "nearest" | "value-desc" | "value-asc" | "name";

export interface TooltipRow {
  label: string;
  colour: string;
  smoothed: number;
  raw: number;
  step: number;
  time: string;
  /** Extra text (a group's band). */
  extra?: string;
  /** |y - cursor y| in pixels, for the "nearest" order. */
  distance: number;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function sortRows(rows: TooltipRow[], sort: TooltipSort): TooltipRow[] {
  const val = (r: TooltipRow) => (Number.isFinite(r.smoothed) ? r.smoothed : -Infinity);
  const sorted = [...rows];
  if (sort === "nearest") sorted.sort((a, b) => a.distance - b.distance || a.label.localeCompare(b.label));
  else if (sort === "value-desc") sorted.sort((a, b) => val(b) - val(a));
  else if (sort === "value-asc") sorted.sort((a, b) => val(a) - val(b));
  else sorted.sort((a, b) => a.label.localeCompare(b.label));
  return sorted;
}

/** The tooltip's HTML: a header line, then at most `max` rows and a "+N more" line. */
export function tooltipHtml(header: string, rows: TooltipRow[], sort: TooltipSort, max: number, notes: string[] = []): string {
  const sorted = sortRows(rows, sort);
  const shown = sorted.slice(0, max);
  const body = shown
    .map(
      (r) =>
        `<tr><td><span class="rl-swatch" style="background:${esc(r.colour)}"></span>${esc(r.label)}</td>` +
        `<td class="num">${formatNumber(r.smoothed)}</td><td class="num">${formatNumber(r.raw)}</td>` +
        `<td class="num">${formatStep(r.step)}</td><td>${esc(r.time)}</td>${r.extra !== undefined ? `<td class="num">${esc(r.extra)}</td>` : ""}</tr>`,
    )
    .join("");
  const more = sorted.length > shown.length ? `<div class="rl-more">+${sorted.length - shown.length} more</div>` : "";
  const noteHtml = notes.map((n) => `<div class="rl-note">${esc(n)}</div>`).join("");
  const hasExtra = shown.some((r) => r.extra !== undefined);
  return (
    `<div class="rl-tip-head">${esc(header)}</div>${noteHtml}` +
    `<table><thead><tr><th>Run</th><th>Smoothed</th><th>Value</th><th>Step</th><th>Time</th>${hasExtra ? "<th>Band</th>" : ""}</tr></thead>` +
    `<tbody>${body}</tbody></table>${more}`
  );
}
