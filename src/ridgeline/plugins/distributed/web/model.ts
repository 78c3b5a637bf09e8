/**
 * The distributed dashboard's data: the answers of /api/distributed/runs and /api/distributed/series, and the
 * chart data built from them (pure functions, tested in model.test.ts).
 *
 * A chart shows either one aggregated line over the ranks (mean, median, min or max per step) with a band
 * (min–max, or mean ± σ), or every rank's own line; x is the step, or (rank lines) the seconds since the job's
 * first point on aligned clocks (each rank's clock offset subtracted by the server).
 */
import type { Answer } from "@api/types";

export type Statistic = "mean" | "median" | "min" | "max";
export type BandKind = "minmax" | "sigma" | "none";
export type View = "aggregate" | "ranks";
export type XAxis = "step" | "relative";

export interface RankRow {
  rank: number;
  run: string;
  host: string | null;
  offset_ms: number | null;
  offset_uncertainty_ms: number | null;
  score: number | null;
  flagged: boolean;
  straggler: boolean;
  restart_count: number | null;
}

export interface DistributedRun {
  run: string;
  world_size: number;
  clock_source: "sync" | "steps" | "none";
  score_source: "sync" | "step_rate";
  ranks: RankRow[];
  sync_delay_ms: { median: number; p95: number } | null;
  straggler: { rank: number; cost_s: number } | null;
  restarts: { rank: number; restart_count: number; wall_time: number; host: string | null }[];
  load_balance: { gpu_utilisation_std_pp: number | null; gpu_utilisation_flagged: boolean; input_bound_ranks: number[] };
  tags: string[];
}

type Num = number | null;

export interface SeriesAnswerBody {
  run: string;
  tag: string;
  step: number[];
  mean: Num[];
  median: Num[];
  min: Num[];
  max: Num[];
  std: Num[];
  count: number[];
  min_rank: number[];
  max_rank: number[];
  /** How many steps the whole aggregate has, and whether this answer left some out (`points`). */
  total_points?: number;
  reduced?: boolean;
  ranks: { rank: number; step: number[]; time: number[]; value: Num[] }[];
}

/**
 * The steps the first chart's series is reduced to (`first_chart_points`): about one per device pixel of the
 * window, more than the chart is wide; web/public/boot.js computes the same figure for its request.
 */
export function firstChartPoints(width: number, pixelRatio: number): number {
  return Math.min(20000, Math.max(64, Math.round(width * (pixelRatio || 1))));
}

export type SeriesAnswer = Answer<"/api/distributed/series", SeriesAnswerBody>;

/** With `first_chart` asked: the series (without rank lines) of the first tag of that run, null when it has none. */
export type RunsAnswer = Answer<"/api/distributed/runs", { runs: DistributedRun[]; first_chart?: SeriesAnswerBody | null }>;

/** One chart's uPlot data and what each of its series is. */
export interface ChartData {
  x: number[];
  columns: (number | null | undefined)[][];
  labels: string[];
  /** Index (in columns) of the band's upper and lower edges, or null without a band. */
  band: { upper: number; lower: number } | null;
}

function value(v: Num | undefined): number | null {
  return v === null || v === undefined || !Number.isFinite(v) ? null : v;
}

/** The aggregated line and its band, by step. */
export function aggregateChart(body: SeriesAnswerBody, statistic: Statistic, band: BandKind): ChartData {
  const line = body[statistic].map(value);
  const columns: (number | null)[][] = [line];
  const labels: string[] = [statistic];
  if (band === "minmax") {
    columns.push(body.max.map(value), body.min.map(value));
    labels.push("max", "min");
  } else if (band === "sigma") {
    columns.push(
      body.mean.map((m, i) => (value(m) === null || value(body.std[i]) === null ? null : m! + body.std[i]!)),
      body.mean.map((m, i) => (value(m) === null || value(body.std[i]) === null ? null : m! - body.std[i]!)),
    );
    labels.push("mean + σ", "mean − σ");
  }
  return { x: body.step.slice(), columns, labels, band: band === "none" ? null : { upper: 1, lower: 2 } };
}

/** Every rank's own line, on the union of their x values (undefined where a rank has no point). */
export function rankChart(body: SeriesAnswerBody, xAxis: XAxis): ChartData {
  const xs = new Set<number>();
  for (const r of body.ranks) for (const x of xAxis === "step" ? r.step : r.time) xs.add(x);
  const x = [...xs].sort((a, b) => a - b);
  const index = new Map(x.map((v, i) => [v, i]));
  const columns = body.ranks.map((r) => {
    const column: (number | null | undefined)[] = new Array(x.length).fill(undefined);
    const own = xAxis === "step" ? r.step : r.time;
    own.forEach((v, i) => {
      column[index.get(v)!] = value(r.value[i]);
    });
    return column;
  });
  return { x, columns, labels: body.ranks.map((r) => `rank ${r.rank}`), band: null };
}

/** "step 12: min rank 3, max rank 0" at the step nearest `step`, or "" outside the data. */
export function extremesAt(body: SeriesAnswerBody, step: number): string {
  const steps = body.step;
  if (!steps.length) return "";
  let lo = 0;
  let hi = steps.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid] < step) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(steps[lo - 1] - step) <= Math.abs(steps[lo] - step)) lo -= 1;
  if (body.min_rank[lo] < 0) return `step ${steps[lo]}: no finite value`;
  return `step ${steps[lo]}: min rank ${body.min_rank[lo]}, max rank ${body.max_rank[lo]} (${body.count[lo]} ranks)`;
}

/** The system metric tags (sys/...) apart: they get their own section, collapsed at first. */
export function splitTags(tags: string[]): { training: string[]; system: string[] } {
  return { training: tags.filter((t) => !t.startsWith("sys/")), system: tags.filter((t) => t.startsWith("sys/")) };
}

export function formatOffset(row: RankRow): string {
  if (row.offset_ms === null) return "—";
  const unc = row.offset_uncertainty_ms;
  return `${row.offset_ms.toFixed(1)}${unc === null ? "" : ` ± ${unc.toFixed(2)}`}`;
}
