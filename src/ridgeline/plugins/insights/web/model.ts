/**
 * The insights page's pure parts: the shapes of /api/alerts, /api/diagnosis, /api/phases and /api/forecast,
 * merging streamed alerts, sorting and filtering them, the links that open the scalars dashboard on a spot,
 * and what a chart draws for phases, forecasts and alerts. No DOM, no fetching: tested alone (model.test.ts).
 */
import { exactRunsPattern } from "@app/filters";
import type { Answer } from "@api/types";

export type AlertKind = "outlier" | "nan" | "inf" | "spike" | "stalled";
export const ALERT_KINDS: readonly AlertKind[] = ["outlier", "nan", "inf", "spike", "stalled"];

export interface Alert {
  run: string;
  tag: string;
  step: number;
  wall_time: number | null;
  kind: AlertKind;
  value: number | null;
  expected_low: number | null;
  expected_high: number | null;
}

/** `GET /api/alerts?since=cursor`: the alerts after the cursor, and the cursor to ask from next. */
export type AlertsResponse = Answer<"/api/alerts", { alerts: Alert[]; cursor: number }>;

/** A place on a chart a finding's evidence comes from: the run and tag, the step, what is seen there. */
export interface Spot {
  run: string;
  tag: string;
  step: number;
  what: string;
  chart: "scalars" | "histograms";
}

export interface Finding {
  run: string;
  kind: string;
  confidence: number;
  step: number | null;
  tags: string[];
  evidence: Record<string, number | string>;
  message: string;
  spots?: Spot[];
}

/** What the diagnosis looked at for one group of runs (reported under `run`), in plain words. */
export interface Checked {
  run: string;
  runs: string[];
  checked: string[];
}

export type Phase = "warmup" | "descent" | "convergence";

export interface Segment {
  phase: Phase;
  start_step: number;
  end_step: number;
}

export interface Forecast {
  model: string;
  step: number[];
  value: number[];
  low: number[];
  high: number[];
  final: { step: number; value: number; low: number; high: number };
}

/** One alert's identity: the server may send an alert again after a restart of its stream. */
export function alertKey(a: Alert): string {
  return `${a.run}\u0000${a.tag}\u0000${a.step}\u0000${a.kind}`;
}

/** `base` plus the alerts of `more` it does not hold yet (in arrival order); `added` are the new ones. */
export function mergeAlerts(base: readonly Alert[], more: readonly Alert[]): { alerts: Alert[]; added: Alert[] } {
  const seen = new Set(base.map(alertKey));
  const added: Alert[] = [];
  for (const a of more) {
    const k = alertKey(a);
    if (seen.has(k)) continue;
    seen.add(k);
    added.push(a);
  }
  return { alerts: added.length ? [...base, ...added] : [...base], added };
}

export type AlertSortKey = "run" | "tag" | "step" | "kind" | "value";

/** A sorted copy: by `key` (numbers numerically, null last), ties by run, tag and step. */
export function sortAlerts(alerts: readonly Alert[], key: AlertSortKey, descending = false): Alert[] {
  const text = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });
  const num = (a: number | null, b: number | null) => {
    const fa = a != null && Number.isFinite(a);
    const fb = b != null && Number.isFinite(b);
    if (!fa || !fb) return fa === fb ? 0 : fa ? -1 : 1;
    return a! - b!;
  };
  const primary = (a: Alert, b: Alert): number => {
    switch (key) {
      case "run":
        return text(a.run, b.run);
      case "tag":
        return text(a.tag, b.tag);
      case "step":
        return a.step - b.step;
      case "kind":
        return text(a.kind, b.kind);
      case "value":
        return num(a.value, b.value);
    }
  };
  const tie = (a: Alert, b: Alert) => text(a.run, b.run) || text(a.tag, b.tag) || a.step - b.step;
  return [...alerts].sort((a, b) => {
    const p = primary(a, b);
    // Nulls stay last in either direction.
    if (key === "value" && (a.value == null || b.value == null || !Number.isFinite(a.value) || !Number.isFinite(b.value)))
      return p || tie(a, b);
    return (descending ? -p : p) || tie(a, b);
  });
}

/** The alerts of the shown runs whose tag passes the tag filter and whose kind is chosen (empty: every kind). */
export function filterAlerts(
  alerts: readonly Alert[],
  runs: ReadonlySet<string>,
  tagFilter: RegExp | null,
  kinds: readonly string[],
): Alert[] {
  const kindSet = new Set(kinds);
  return alerts.filter((a) => runs.has(a.run) && (!tagFilter || tagFilter.test(a.tag)) && (!kindSet.size || kindSet.has(a.kind)));
}

/** How many alerts of each kind (every kind listed, zeros included). */
export function countKinds(alerts: readonly Alert[]): Record<AlertKind, number> {
  const out = { outlier: 0, nan: 0, inf: 0, spike: 0, stalled: 0 } as Record<AlertKind, number>;
  for (const a of alerts) if (a.kind in out) out[a.kind]++;
  return out;
}

/** "0.1 – 0.5", "≥ 0.1", "≤ 0.5" or "" for an alert's expected range. */
/** What a metric's tag says its values can be: a loss or an error is never negative, an accuracy (precision,
 * recall, F1, AUC) lies in [0, 1]; null bounds for anything else. */
export function naturalBounds(tag: string): [number | null, number | null] {
  const leaf = tag.toLowerCase();
  if (/acc|accuracy|precision|recall|\bf1\b|_f1|f1_|auc|iou|dice/.test(leaf)) return [0, 1];
  if (/loss|err|mse|mae|rmse|nll|perplexity|ppl|wer|cer|latency|time/.test(leaf)) return [0, null];
  return [null, null];
}

/** An alert's expected range clipped to its metric's natural bounds (a band of ±3σ would say a loss may be -0.47). */
export function expectedRange(a: Pick<Alert, "tag" | "expected_low" | "expected_high">): [number | null, number | null] {
  const [min, max] = naturalBounds(a.tag);
  const low = a.expected_low != null && min != null ? Math.max(min, a.expected_low) : a.expected_low;
  const high = a.expected_high != null && max != null ? Math.min(max, a.expected_high) : a.expected_high;
  return [low, high];
}

export function formatRange(low: number | null, high: number | null, fmt: (x: number) => string): string {
  const lo = low != null && Number.isFinite(low);
  const hi = high != null && Number.isFinite(high);
  if (lo && hi) return `${fmt(low!)} – ${fmt(high!)}`;
  if (lo) return `≥ ${fmt(low!)}`;
  if (hi) return `≤ ${fmt(high!)}`;
  return "";
}

/** The value an alert reports, in words for the non-finite kinds. */
export function formatAlertValue(a: Alert, fmt: (x: number) => string): string {
  if (a.kind === "nan") return "NaN";
  if (a.kind === "inf") return a.value != null && a.value < 0 ? "-Inf" : a.value == null ? "±Inf" : "+Inf";
  if (a.value == null) return "—";
  if (Number.isNaN(a.value)) return "NaN";
  if (!Number.isFinite(a.value)) return a.value > 0 ? "+Inf" : "-Inf";
  return fmt(a.value);
}

/** A regex matching exactly these names (the shell's run and tag filters are regexes). */
export function exactPattern(names: readonly string[]): string {
  return exactRunsPattern([...new Set(names)]);
}

/** URL key of the scalars cards to zoom onto a step: [tag, step], or [[tags], step] for every tag a finding cites
 * (kept in the URL so the link is shareable). */
export const FOCUS_KEY = "s.focus";

/** The scalars settings a drill-down turns off, as they would hide the point it shows: outlier clipping (the
 * flagged value would fall off the axis) and smoothing (it would flatten the spike). */
export const EVIDENCE_SETTINGS: Record<string, number> = { "s.outliers": 0, "s.smooth": 0 };

/** The focus of a drill-down onto `tags` at `step`. */
export function focusOf(tags: readonly string[], step: number): unknown[] {
  return [tags.length > 1 ? [...tags] : tags[0], step];
}

/** Whether a focus names `tag`. */
export function focusNames(focus: unknown, tag: string): boolean {
  if (!Array.isArray(focus) || typeof focus[1] !== "number") return false;
  return focus[0] === tag || (Array.isArray(focus[0]) && focus[0].includes(tag));
}

/**
 * The query string of the scalars dashboard showing `runs`, the `tags` filtered, and (given a step) the
 * card of the first tag zoomed and centred on it. Other settings in `search` are kept.
 */
export function scalarsLink(search: string, runs: readonly string[], tags: readonly string[], step: number | null): string {
  const params = new URLSearchParams(search);
  params.set("tab", "scalars");
  params.set("runFilter", exactPattern(runs));
  params.delete("runs"); // every run the filter shows
  if (tags.length) params.set("tagFilter", exactPattern(tags));
  else params.delete("tagFilter");
  if (step != null && tags.length) params.set(FOCUS_KEY, JSON.stringify(focusOf(tags, step)));
  else params.delete(FOCUS_KEY);
  for (const [key, value] of Object.entries(EVIDENCE_SETTINGS)) params.set(key, String(value));
  return `?${params.toString()}`;
}

/**
 * The query string that opens the chart a spot is on: the scalars dashboard zoomed onto the step (see
 * `scalarsLink`), or the histograms dashboard on that run and tag.
 */
export function spotLink(search: string, spot: Spot): string {
  if (spot.chart !== "histograms") return scalarsLink(search, [spot.run], [spot.tag], spot.step);
  const params = new URLSearchParams(search);
  params.set("tab", "histograms");
  params.set("runFilter", exactPattern([spot.run]));
  params.delete("runs");
  params.set("tagFilter", exactPattern([spot.tag]));
  params.delete(FOCUS_KEY);
  return `?${params.toString()}`;
}

/** The text of a spot's link: "validation at its best (0.3): val/loss at step 850". */
export function spotText(spot: Spot, fmtStep: (x: number) => string): string {
  return `${spot.what}: ${spot.tag} at step ${fmtStep(spot.step)}`;
}

/**
 * What was checked for each shown run that has no finding (its group's findings are reported under the
 * group's run, which may be a sibling: `exp/train` answers for `exp/validation`), in the order of `runs`.
 */
export function checkedWithoutFindings(
  checked: readonly Checked[],
  findings: readonly Finding[],
  runs: readonly string[],
): { run: string; checked: string[] }[] {
  const reported = new Set(findings.map((f) => f.run));
  const out: { run: string; checked: string[] }[] = [];
  for (const run of runs) {
    const group = checked.find((c) => c.run === run || c.runs.includes(run));
    if (!group || reported.has(group.run)) continue;
    out.push({ run, checked: group.checked });
  }
  return out;
}

/** The x range centring `x` within a chart whose data spans [lo, hi]: a tenth of the span on each side. */
export function focusRange(x: number, lo: number, hi: number): [number, number] {
  const span = Number.isFinite(hi - lo) && hi > lo ? hi - lo : Math.max(1, Math.abs(x));
  const half = Math.max(span * 0.1, 2);
  return [x - half, x + half];
}

/** Phase colours (warm-up red, descent amber, convergence green), drawn faint behind the curve. */
export const PHASE_COLOURS: Record<Phase, string> = {
  warmup: "#e5484d",
  descent: "#f5a524",
  convergence: "#30a46c",
};

export const PHASE_LABELS: Record<Phase, string> = {
  warmup: "warm-up",
  descent: "descent",
  convergence: "convergence",
};

/** A background band: the x range of one phase of one run, in a lane of the plot (one lane per run). */
export interface PhaseBand {
  x0: number;
  x1: number;
  phase: Phase;
  lane: number;
  lanes: number;
  run: string;
}

/**
 * The bands for each run's segments (x = step). With several runs the plot's height is split into one lane
 * per run, so their phases do not paint over each other. Unknown phases and empty segments are skipped.
 */
export function phaseBands(perRun: ReadonlyArray<{ run: string; segments: readonly Segment[] }>): PhaseBand[] {
  const out: PhaseBand[] = [];
  const lanes = perRun.length;
  perRun.forEach(({ run, segments }, lane) => {
    for (const s of segments) {
      if (!(s.phase in PHASE_COLOURS) || !(s.end_step >= s.start_step)) continue;
      out.push({ x0: s.start_step, x1: s.end_step, phase: s.phase, lane, lanes, run });
    }
  });
  return out;
}

/** The phase of `run` at step `x` (for the tooltip), or null. */
export function phaseAt(bands: readonly PhaseBand[], run: string, x: number): Phase | null {
  for (const b of bands) if (b.run === run && x >= b.x0 && x <= b.x1) return b.phase;
  return null;
}

/** The last step a forecast reaches (or -Infinity): the chart's x range grows to show it. */
export function forecastEnd(forecasts: ReadonlyArray<{ forecast: Forecast }>): number {
  let end = -Infinity;
  for (const { forecast } of forecasts) {
    for (const s of forecast.step) if (s > end) end = s;
    if (forecast.final && forecast.final.step > end) end = forecast.final.step;
  }
  return end;
}

/** A plain-words line for a forecast: "forecast (power-law): 0.123 at step 1,200 (0.1 – 0.15)". */
export function forecastText(f: Forecast, fmtNum: (x: number) => string, fmtStep: (x: number) => string): string {
  const { final } = f;
  return `forecast (${f.model}): ${fmtNum(final.value)} at step ${fmtStep(final.step)} (${fmtNum(final.low)} – ${fmtNum(final.high)})`;
}

/** An alert's x in a chart's units: its step, wall time, or wall time since the run's `start`; null otherwise. */
export function alertX(a: Alert, xAxis: string, start: number): number | null {
  if (xAxis === "step") return a.step;
  if (a.wall_time == null) return null;
  if (xAxis === "wall") return a.wall_time;
  if (xAxis === "relative") return a.wall_time - start;
  return null;
}

/** The text of a desktop notification for newly arrived alerts. */
export function notificationText(added: readonly Alert[], fmt: (x: number) => string): { title: string; body: string } {
  const title = added.length === 1 ? "ridgeline: 1 new alert" : `ridgeline: ${added.length} new alerts`;
  const lines = added.slice(0, 4).map((a) => {
    const range = formatRange(a.expected_low, a.expected_high, fmt);
    return `${a.kind} on ${a.tag} (${a.run}) at step ${a.step}: ${formatAlertValue(a, fmt)}${range ? `, expected ${range}` : ""}`;
  });
  if (added.length > 4) lines.push(`and ${added.length - 4} more`);
  return { title, body: lines.join("\n") };
}

/** Evidence values as short text ("gap: 0.31"). */
export function evidenceText(evidence: Record<string, number | string>, fmt: (x: number) => string): string[] {
  return Object.entries(evidence ?? {}).map(([k, v]) => `${k.replace(/_/g, " ")}: ${typeof v === "number" ? fmt(v) : v}`);
}

/** Findings grouped per run (in run order), each run's by confidence, highest first. */
export function groupFindings(findings: readonly Finding[], runOrder: readonly string[]): [string, Finding[]][] {
  const by = new Map<string, Finding[]>();
  for (const f of findings) {
    let list = by.get(f.run);
    if (!list) by.set(f.run, (list = []));
    list.push(f);
  }
  const order = new Map(runOrder.map((r, i) => [r, i]));
  return [...by.entries()]
    .sort(([a], [b]) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity) || a.localeCompare(b))
    .map(([run, list]) => [run, [...list].sort((a, b) => b.confidence - a.confidence)]);
}
