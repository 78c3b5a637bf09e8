/**
 * The custom scalars dashboard's pure half: the layout answered by GET /api/custom_scalars, which series each
 * chart draws for the selected runs, the dash pattern that tells a chart's tags apart (runs keep their
 * colours), and the margin chart's model (a value line per run and series, with a filled band between its
 * lower and upper tags). Multiline charts are modelled by the scalars dashboard's `buildModel`.
 */
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { interpolateAt } from "@charts/aggregate";
import { joinSeries, type JoinInput } from "@charts/join";
import type { BandSpec, LineSpec } from "@charts/plot";
import type { SeriesData } from "@charts/series/data";
import type { ChartModel, HoverSeries, XAxis } from "@charts/lines/model";

export interface MarginSeries {
  value: string;
  lower: string;
  upper: string;
}

export interface ChartSpec {
  title: string;
  kind: "multiline" | "margin" | "empty";
  /** Multiline: the regexes as written, the scalar tags they match (server side, Python's re.match), and
   * a message per regex that does not compile. */
  tags?: string[];
  matched?: string[];
  errors?: string[];
  /** Margin: three tag names per series. */
  series?: MarginSeries[];
}

export interface Category {
  title: string;
  closed: boolean;
  runs: string[];
  charts: ChartSpec[];
}

export interface LayoutAnswer {
  runs: string[];
  categories: Category[];
  problems: { run: string; error: string }[];
}

export interface Key {
  run: string;
  tag: string;
}

/** Dash patterns (CSS px) for the tags of one chart, in order: solid first. */
export const DASHES: (number[] | undefined)[] = [undefined, [7, 4], [2, 3], [10, 3, 2, 3], [14, 5], [4, 2, 1, 2], [1, 5]];

export function dashFor(index: number): number[] | undefined {
  return DASHES[index % DASHES.length];
}

/** An SVG `stroke-dasharray` for the legend's swatch of a dash pattern. */
export function dashArray(dash: number[] | undefined): string {
  return dash ? dash.join(" ") : "none";
}

function scalarSet(cache: WeakMap<string[], Set<string>>, run: RunInfo): Set<string> {
  const list = run.tags.scalars ?? [];
  let set = cache.get(list);
  if (!set) cache.set(list, (set = new Set(list)));
  return set;
}
const sets = new WeakMap<string[], Set<string>>();

/** The tags a multiline chart draws for these runs: the matched tags some of the runs have, in order. */
export function multilineTags(chart: ChartSpec, runs: RunInfo[]): string[] {
  const matched = chart.matched ?? [];
  return matched.filter((t) => runs.some((r) => scalarSet(sets, r).has(t)));
}

/** The (run, tag) series a chart needs: each run's matched tags (multiline) or each margin series' three
 * tags where the run has its value tag. */
export function chartKeys(chart: ChartSpec, runs: RunInfo[]): Key[] {
  const keys: Key[] = [];
  for (const r of runs) {
    const has = scalarSet(sets, r);
    if (chart.kind === "multiline") {
      for (const t of chart.matched ?? []) if (has.has(t)) keys.push({ run: r.run, tag: t });
    } else if (chart.kind === "margin") {
      for (const s of chart.series ?? []) {
        if (!has.has(s.value)) continue;
        keys.push({ run: r.run, tag: s.value });
        if (has.has(s.lower)) keys.push({ run: r.run, tag: s.lower });
        if (has.has(s.upper)) keys.push({ run: r.run, tag: s.upper });
      }
    }
  }
  return keys;
}

/** The tags a chart is about (for the tag filter): its matched tags, or its margin series' tags. */
export function chartTags(chart: ChartSpec): string[] {
  if (chart.kind === "multiline") return chart.matched ?? [];
  if (chart.kind === "margin") return (chart.series ?? []).flatMap((s) => [s.value, s.lower, s.upper]);
  return [];
}

/** Shown under the shell's tag filter: the chart's title or one of its tags matches (all when no filter). */
export function chartShown(chart: ChartSpec, filter: RegExp | null): boolean {
  if (!filter) return true;
  return filter.test(chart.title) || chartTags(chart).some((t) => filter.test(t));
}

/** Unique id of a chart on the page (category and title; a title may repeat across categories). */
export function chartId(category: string, chart: ChartSpec): string {
  return `${category}\u0000${chart.title}\u0000${chart.kind}`;
}

function xOf(d: SeriesData, axis: XAxis, start: number): Float64Array {
  if (axis === "relative") return d.wall.map((w) => w - start);
  if (axis === "wall") return d.wall.slice();
  return d.step.slice();
}

export interface MarginInput {
  run: string;
  colour: string;
  series: MarginSeries;
  /** Index of the series in the chart (its dash pattern). */
  index: number;
  value: SeriesData;
  lower: SeriesData | null;
  upper: SeriesData | null;
  /** The run's first wall time (relative time counts from it); default: the value series' first point. */
  start?: number;
}

/**
 * A margin chart: per run and series, the value line (the run's colour, the series' dash) and a band filled
 * between the lower and upper tags, both taken at the value's steps (linear interpolation when they were
 * logged at other steps; NaN outside their range, so the band stops where they stop).
 */
export function buildMarginModel(inputs: MarginInput[], xAxis: XAxis, yLog: boolean, width: number): ChartModel {
  const lines: LineSpec[] = [];
  const bands: BandSpec[] = [];
  const joins: JoinInput[] = [];
  const hover: HoverSeries[] = [];
  const nonfinite = { nan: 0, inf: 0, ninf: 0 };
  let points = 0;
  let reduced = false;
  let nonPositive = 0;
  const positive = (a: Float64Array) => (yLog ? a.map((v) => (v > 0 ? v : NaN)) : a);
  for (const m of inputs) {
    const d = m.value;
    const start = m.start ?? (d.wall.length ? d.wall[0] : 0);
    const x = xOf(d, xAxis === "tag" ? "step" : xAxis, start);
    const at = (s: SeriesData | null) => (s ? interpolateAt(s.step, s.value, d.step) : new Float64Array(d.step.length).fill(NaN));
    const low = at(m.lower);
    const high = at(m.upper);
    points += d.step.length;
    reduced ||= d.reduced;
    for (const p of d.nonfinite) {
      if (p.value === "nan") nonfinite.nan++;
      else if (p.value === "inf") nonfinite.inf++;
      else nonfinite.ninf++;
    }
    if (yLog) for (const v of d.value) if (v <= 0) nonPositive++;
    const label = `${m.run} · ${m.series.value}`;
    const base = lines.length + 1;
    lines.push({ label, colour: m.colour, width: 1.5, dash: dashFor(m.index) });
    if (!m.lower && !m.upper) {
      // A run without the bounds: its value line alone.
      joins.push({ x, columns: [positive(d.value)] });
      hover.push({ label, colour: m.colour, x, sorted: true, smoothed: d.value, raw: d.value, step: d.step, wall: d.wall });
      continue;
    }
    lines.push(
      { label: `${label} upper (${m.series.upper})`, colour: m.colour, bandEdge: true },
      { label: `${label} lower (${m.series.lower})`, colour: m.colour, bandEdge: true },
    );
    bands.push({ upper: base + 1, lower: base + 2, colour: m.colour, alpha: 0.2 });
    joins.push({ x, columns: [positive(d.value), positive(high), positive(low)] });
    hover.push({ label, colour: m.colour, x, sorted: true, smoothed: d.value, raw: d.value, step: d.step, wall: d.wall, bandLow: low, bandHigh: high });
  }
  const joined = joinSeries(joins, Math.max(200, width * 2));
  const data = [joined.x, ...joined.columns] as unknown as uPlot.AlignedData;
  return {
    lines,
    bands,
    data,
    hover,
    markers: [],
    points,
    nonfinite,
    nonPositive,
    xNonPositive: 0,
    structure: JSON.stringify([lines, bands]),
    reduced,
  };
}
