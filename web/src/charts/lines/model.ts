/**
 * From fetched series and the dashboard's settings to what one chart draws: x values per run (step, relative
 * or wall time, or another tag's value joined by step), the smoothed and raw curves, reduction bands,
 * run-group means with their bands, non-finite markers, and the aligned data uPlot takes. Pure: tested alone.
 */
import type uPlot from "uplot";
import { groupStats, interpolateAt } from "@charts/aggregate";
import { joinSeries, type JoinInput } from "@charts/join";
import type { BandSpec, LineSpec } from "@charts/plot";
import { smooth, smoothWindow, type Smoother } from "@charts/smoothing";
import type { SeriesData } from "@charts/series/data";

export type XAxis = "step" | "relative" | "wall" | "tag";

export interface RunSeries {
  run: string;
  colour: string;
  data: SeriesData;
  /** The run's first wall time (relative time counts from it, also when zoomed in). */
  start: number;
  /** The x tag's series, for the "another tag" x axis. */
  xData?: SeriesData | null;
  scale?: "y" | "y2";
  /** Shown after the run name in tooltips (the tag, on a two-axis chart). */
  suffix?: string;
  /**
   * When `data` is a zoomed-in window: the whole run as first fetched. The window's smoothing continues the
   * whole run's (smoothWindow) instead of restarting at the window's first point.
   */
  context?: SeriesData | null;
  /** Dash pattern of the curve (custom scalars tell tags apart by it); default: solid, dashed on y2. */
  dash?: number[];
}

export interface ModelSettings {
  smoothing: number;
  smoother: Smoother;
  xAxis: XAxis;
  yLog: boolean;
  /** Log x axis: points at x <= 0 (step 0) cannot be drawn and are left out. */
  xLog?: boolean;
  /** Run groups (label -> runs), or null to draw every run. */
  groups: Map<string, string[]> | null;
  groupBand: "std" | "minmax";
  groupColour: (label: string) => string;
  /** Width of the plot in pixels: the resolution of a resampled join. */
  width: number;
}

/** What the tooltip needs per drawn curve. */
export interface HoverSeries {
  label: string;
  colour: string;
  x: Float64Array;
  sorted: boolean;
  smoothed: Float64Array;
  raw: Float64Array;
  step: Float64Array;
  wall: Float64Array | null;
  /** Run groups: the band's half width (σ) or its low and high. */
  bandLow?: Float64Array;
  bandHigh?: Float64Array;
  members?: number;
}

export interface Marker {
  x: number;
  kind: "nan" | "inf" | "-inf";
  colour: string;
  /** The step and the curve's label, for the tooltip ("NaN at step 10"). */
  step: number;
  label: string;
}

export interface ChartModel {
  lines: LineSpec[];
  bands: BandSpec[];
  data: uPlot.AlignedData;
  hover: HoverSeries[];
  markers: Marker[];
  /** Points drawn (the series' lengths), for data-points. */
  points: number;
  nonfinite: { nan: number; inf: number; ninf: number };
  /** Finite values <= 0 left out because the y axis is logarithmic (0 on a linear axis). */
  nonPositive: number;
  /** Points at x <= 0 left out because the x axis is logarithmic. */
  xNonPositive: number;
  /** Changes when the uPlot instance must be rebuilt (lines or bands differ). */
  structure: string;
  reduced: boolean;
}

function xOf(s: RunSeries, axis: XAxis): Float64Array {
  const d = s.data;
  switch (axis) {
    case "relative":
      return d.wall.map((w) => w - s.start);
    case "wall":
      return d.wall.slice();
    case "tag":
      return s.xData ? interpolateAt(s.xData.step, s.xData.value, d.step) : new Float64Array(d.step.length).fill(NaN);
    default:
      return d.step.slice();
  }
}

function isSorted(x: Float64Array): boolean {
  for (let i = 1; i < x.length; i++) if (!(x[i] >= x[i - 1])) return false;
  return true;
}

const positive = (a: Float64Array, log: boolean) => (log ? a.map((v) => (v > 0 ? v : NaN)) : a);

/** Above this many curves in one chart, they are drawn 1 px wide. */
export const MANY_LINES = 12;

export function buildModel(series: RunSeries[], st: ModelSettings): ChartModel {
  const lines: LineSpec[] = [];
  const bands: BandSpec[] = [];
  const inputs: JoinInput[] = [];
  const hover: HoverSeries[] = [];
  const markers: Marker[] = [];
  const nonfinite = { nan: 0, inf: 0, ninf: 0 };
  let points = 0;
  let reduced = false;
  let nonPositive = 0;
  let xNonPositive = 0;
  const smoothing = st.smoothing > 0;

  const prepared = series.map((given) => {
    let s = given;
    let x = xOf(s, st.xAxis);
    if (st.xLog) {
      const kept = positiveX(s, x);
      xNonPositive += x.length - kept.x.length;
      s = kept.s;
      x = kept.x;
    }
    let context = given.context ?? null;
    if (context && st.xLog) context = positiveX({ ...given, data: context }, xOf({ ...given, data: context }, st.xAxis)).s.data;
    const smoothed = context
      ? smoothWindow(st.smoother, { x: context.step, values: context.value }, s.data.step, s.data.value, st.smoothing)
      : smooth(st.smoother, s.data.step, s.data.value, st.smoothing);
    points += s.data.step.length;
    reduced ||= s.data.reduced;
    if (st.yLog) for (const v of s.data.value) if (v <= 0) nonPositive++;
    for (const p of s.data.nonfinite) {
      if (p.value === "nan") nonfinite.nan++;
      else if (p.value === "inf") nonfinite.inf++;
      else nonfinite.ninf++;
      const i = indexOfStep(s.data.step, p.step);
      const mx = i >= 0 ? x[i] : st.xAxis === "step" ? p.step : NaN;
      const label = s.suffix ? `${s.run} · ${s.suffix}` : s.run;
      if (Number.isFinite(mx)) markers.push({ x: mx, kind: p.value, colour: s.colour, step: p.step, label });
    }
    return { s, x, smoothed };
  });

  if (st.groups) {
    const byRun = new Map(prepared.map((p) => [p.s.run, p]));
    for (const [label, runs] of st.groups) {
      const members = runs.map((r) => byRun.get(r)).filter((p): p is (typeof prepared)[number] => !!p);
      if (!members.length) continue;
      const stats = groupStats(
        members.map((m) => sortedXY(m.x, m.smoothed)),
        Math.max(200, st.width * 2),
      );
      const upper = st.groupBand === "std" ? stats.mean.map((m, i) => m + stats.std[i]) : stats.max;
      const lower = st.groupBand === "std" ? stats.mean.map((m, i) => m - stats.std[i]) : stats.min;
      const colour = st.groupColour(label);
      const base = lines.length + 1;
      lines.push(
        { label: `${label} (n=${members.length})`, colour, width: 2 },
        { label: `${label} upper`, colour, bandEdge: true },
        { label: `${label} lower`, colour, bandEdge: true },
      );
      bands.push({ upper: base + 1, lower: base + 2, colour, alpha: 0.18 });
      inputs.push({ x: stats.x, columns: [positive(stats.mean, st.yLog), positive(upper, st.yLog), positive(lower, st.yLog)] });
      hover.push({
        label: `${label} (n=${members.length})`,
        colour,
        x: stats.x,
        sorted: true,
        smoothed: stats.mean,
        raw: stats.mean,
        step: st.xAxis === "step" ? stats.x : new Float64Array(stats.x.length).fill(NaN),
        wall: null,
        bandLow: lower,
        bandHigh: upper,
        members: members.length,
      });
    }
  } else {
    // Many runs: 1 px lines. A canvas rasterises 1 px strokes as hairlines, several times faster than 1.5 px ones
    // (100 runs: ~35 ms instead of ~130 ms per draw in software rendering), and thin lines read better in a crowd.
    const lineWidth = prepared.length > MANY_LINES ? 1 : 1.5;
    for (const { s, x, smoothed } of prepared) {
      const scale = s.scale ?? "y";
      const label = s.suffix ? `${s.run} · ${s.suffix}` : s.run;
      const columns: Float64Array[] = [];
      const base = lines.length + 1;
      if (smoothing) {
        lines.push({ label: `${label} (raw)`, colour: s.colour, alpha: 0.25, width: 1, faint: true, scale });
        columns.push(positive(s.data.value, st.yLog));
      }
      lines.push({ label, colour: s.colour, width: lineWidth, scale, dash: s.dash ?? (scale === "y2" ? [6, 3] : undefined) });
      columns.push(positive(smoothed, st.yLog));
      if (s.data.low && s.data.high) {
        const at = lines.length + 1;
        lines.push({ label: `${label} max`, colour: s.colour, bandEdge: true, scale }, { label: `${label} min`, colour: s.colour, bandEdge: true, scale });
        bands.push({ upper: at, lower: at + 1, colour: s.colour, alpha: 0.15 });
        columns.push(positive(s.data.high, st.yLog), positive(s.data.low, st.yLog));
      }
      void base;
      inputs.push({ x, columns });
      hover.push({
        label,
        colour: s.colour,
        x,
        sorted: isSorted(x),
        smoothed,
        raw: s.data.value,
        step: s.data.step,
        wall: s.data.wall,
      });
    }
  }

  const joined = joinSeries(inputs, Math.max(200, st.width * 2));
  const data = [joined.x, ...joined.columns] as unknown as uPlot.AlignedData;
  const structure = JSON.stringify([lines, bands]);
  return { lines, bands, data, hover, markers, points, nonfinite, nonPositive, xNonPositive, structure, reduced };
}

/** The series without its points at x <= 0 (a log x axis cannot place them; uPlot drew nothing at all). */
function positiveX(s: RunSeries, x: Float64Array): { s: RunSeries; x: Float64Array } {
  let drop = 0;
  for (const v of x) if (v <= 0) drop++;
  if (drop === 0) return { s, x };
  const keep: number[] = [];
  x.forEach((v, i) => {
    if (!(v <= 0)) keep.push(i);
  });
  const pick = (a: Float64Array) => Float64Array.from(keep, (i) => a[i]);
  const pickOrNull = (a: Float64Array | null) => (a ? pick(a) : null);
  const d = s.data;
  const data = { ...d, step: pick(d.step), wall: pick(d.wall), value: pick(d.value), low: pickOrNull(d.low), high: pickOrNull(d.high) };
  return { s: { ...s, data }, x: pick(x) };
}

function indexOfStep(steps: Float64Array, step: number): number {
  let lo = 0;
  let hi = steps.length - 1;
  while (lo <= hi) {
    const m = (lo + hi) >> 1;
    if (steps[m] === step) return m;
    if (steps[m] < step) lo = m + 1;
    else hi = m - 1;
  }
  // Steps that went backwards: fall back to a scan.
  for (let i = 0; i < steps.length; i++) if (steps[i] === step) return i;
  return -1;
}

function sortedXY(x: Float64Array, y: Float64Array): { x: Float64Array; y: Float64Array } {
  if (isSorted(x)) return { x, y };
  const idx = Array.from({ length: x.length }, (_, i) => i)
    .filter((i) => Number.isFinite(x[i]))
    .sort((a, b) => x[a] - x[b]);
  return { x: Float64Array.from(idx, (i) => x[i]), y: Float64Array.from(idx, (i) => y[i]) };
}
