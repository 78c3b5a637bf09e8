/**
 * The data of the histogram and distribution cards (the histograms, distributions and time series dashboards): fetching `/api/histograms` and
 * `/api/distributions`, the tags of the selected runs, and the pure geometry of a ridgeline plot.
 */
import { getJson } from "@api/client";
import type { RunInfo } from "@app/types";
import type { Answer } from "@api/types";

/** One step of `GET /api/histograms?bins=N`: counts on the response's common bins, or why it is unreadable. */
export interface BinnedHistogram {
  step: number;
  wall_time: number;
  count?: number[];
  total?: number;
  error?: string;
}

interface HistogramsBody {
  run: string;
  tag: string;
  steps: number[];
  total_steps: number;
  sampled: boolean;
  bins: number;
  /** The bins span [min, max]; null when no histogram of the sample holds anything. */
  range: [number, number] | null;
  histograms: BinnedHistogram[];
}

interface DistributionsBody {
  run: string;
  tag: string;
  basis_points: number[];
  step: number[];
  wall_time: number[];
  /** One column per basis point, one value per step (null: an empty histogram). */
  values: (number | null)[][];
  empty_steps: number[];
  errors: { step: number; error: string }[];
  total_steps: number;
  sampled: boolean;
}

/** `GET /api/histograms`: a run's tag, sampled to at most `max_steps` steps on `bins` common bins. */
export type HistogramsResponse = Answer<"/api/histograms", HistogramsBody>;
/** `GET /api/distributions`: a run's tag as percentile bands over its (sampled) steps. */
export type DistributionsResponse = Answer<"/api/distributions", DistributionsBody>;

/** Steps drawn per histogram card (sampled server-side; the step slider reaches the others) and bins. */
export const MAX_STEPS = 50;
export const BINS = 40;
/** Steps a distribution plot uses at most (as TensorBoard's reservoir of 500), evenly spread. */
export const DISTRIBUTION_STEPS = 500;

export function fetchHistograms(
  run: string,
  tag: string,
  opts: { step?: number; range?: [number, number] | null; signal?: AbortSignal } = {},
): Promise<HistogramsResponse> {
  return getJson<HistogramsResponse>(
    "/api/histograms",
    {
      run,
      tag,
      bins: BINS,
      max_steps: opts.step === undefined ? MAX_STEPS : undefined,
      step: opts.step,
      range_min: opts.range ? opts.range[0] : undefined,
      range_max: opts.range ? opts.range[1] : undefined,
    },
    { signal: opts.signal },
  );
}

export function fetchDistributions(run: string, tag: string, signal?: AbortSignal): Promise<DistributionsResponse> {
  return getJson<DistributionsResponse>("/api/distributions", { run, tag, max_steps: DISTRIBUTION_STEPS }, { signal });
}

/** Every histogram tag of the selected runs. */
export function histogramTags(runs: RunInfo[]): string[] {
  const tags = new Set<string>();
  for (const r of runs) for (const t of r.tags.histograms ?? []) tags.add(t);
  return [...tags];
}

/** The selected runs that have `tag`. */
export function runsWithTag(runs: RunInfo[], tag: string): RunInfo[] {
  return runs.filter((r) => (r.tags.histograms ?? []).includes(tag));
}

/** The sorted union of several step lists. */
export function unionSteps(lists: number[][]): number[] {
  const all = new Set<number>();
  for (const l of lists) for (const s of l) all.add(s);
  return [...all].sort((a, b) => a - b);
}

/** Geometry of an offset (ridgeline) plot: each of `n` curves gets a baseline, the oldest at the top. */
export interface OffsetLayout {
  /** y of curve i's baseline in CSS px (i = 0 the oldest). */
  baseline(i: number): number;
  /** Height in px of the tallest bin. */
  peak: number;
}

export function offsetLayout(n: number, top: number, bottom: number, overlap = 4): OffsetLayout {
  const height = Math.max(1, bottom - top);
  // Curves overlap: the tallest one is `overlap` times the spacing between baselines (at most 60% of the plot).
  const spacing = n > 1 ? height / (n - 1 + overlap) : 0;
  const peak = n > 1 ? Math.min(height * 0.6, spacing * overlap) : height;
  const first = bottom - (n > 1 ? spacing * (n - 1) : 0);
  return { baseline: (i) => first + spacing * i, peak };
}

/** The bin holding x among `bins` equal bins over [left, right], or -1 outside. */
export function binAt(x: number, left: number, right: number, bins: number): number {
  if (x < left || x > right || right <= left) return -1;
  return Math.min(bins - 1, Math.floor(((x - left) / (right - left)) * bins));
}

/** Bin i's [low, high] edges for `bins` equal bins over `range`. */
export function binEdges(range: [number, number], bins: number, i: number): [number, number] {
  const w = (range[1] - range[0]) / bins;
  return [range[0] + i * w, range[0] + (i + 1) * w];
}
