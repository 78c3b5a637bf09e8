/**
 * PR curves as uPlot draws them (mode 2: each run its own x and y arrays) and what hovering finds: for each
 * run, the point nearest the cursor in pixels, with its threshold and confusion counts.
 */
import type { StepEntry } from "@app/cards";

/** One step of a PR-curve tag as `GET /api/pr_curves` answers it (arrays of equal length; NaN as null). */
export interface PrStep extends StepEntry {
  thresholds?: number[];
  tp?: (number | null)[];
  fp?: (number | null)[];
  tn?: (number | null)[];
  fn?: (number | null)[];
  precision?: (number | null)[];
  recall?: (number | null)[];
}

/** A drawable curve: the finite (recall, precision) points in recall order, and where each came from. */
export interface Curve {
  recall: number[];
  precision: number[];
  /** Index into the step's arrays (thresholds, tp, ...) of each drawn point. */
  source: number[];
}

const finite = (v: number | null | undefined): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * The step's points with a finite precision and recall, sorted by recall (then by threshold, high first).
 * Thresholds at which nothing is predicted positive (TP + FP = 0) are left out: their precision is undefined
 * (the writers store 0), and drawing it would add a drop to (0, 0) that no classifier has.
 */
export function curveOf(entry: PrStep): Curve {
  const { precision = [], recall = [], thresholds = [], tp = [], fp = [] } = entry;
  const keep: number[] = [];
  for (let i = 0; i < Math.min(precision.length, recall.length); i++) {
    const none = tp[i] === 0 && fp[i] === 0;
    if (finite(precision[i]) && finite(recall[i]) && !none) keep.push(i);
  }
  keep.sort((a, b) => (recall[a] as number) - (recall[b] as number) || (thresholds[b] ?? 0) - (thresholds[a] ?? 0));
  return { recall: keep.map((i) => recall[i] as number), precision: keep.map((i) => precision[i] as number), source: keep };
}

/** The index (into the curve) of the point nearest (`x`, `y`) in pixels, or -1 for an empty curve. */
export function nearestIndex(curve: Curve, x: number, y: number, toX: (v: number) => number, toY: (v: number) => number): { index: number; distance: number } {
  let best = -1;
  let bestD = Infinity;
  for (let i = 0; i < curve.recall.length; i++) {
    const d = Math.hypot(toX(curve.recall[i]) - x, toY(curve.precision[i]) - y);
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return { index: best, distance: bestD };
}

/** What the tooltip shows for one run's point. */
export interface HoverRow {
  run: string;
  colour: string;
  step: number;
  threshold: number | null;
  precision: number | null;
  recall: number | null;
  tp: number | null;
  fp: number | null;
  tn: number | null;
  fn: number | null;
  distance: number;
}

/** The tooltip row of point `i` (an index into the step's arrays) of `entry`. */
export function hoverRow(run: string, colour: string, entry: PrStep, i: number, distance: number): HoverRow {
  const at = (a: (number | null)[] | undefined) => a?.[i] ?? null;
  return {
    run,
    colour,
    step: entry.step,
    threshold: entry.thresholds?.[i] ?? null,
    precision: at(entry.precision),
    recall: at(entry.recall),
    tp: at(entry.tp),
    fp: at(entry.fp),
    tn: at(entry.tn),
    fn: at(entry.fn),
    distance,
  };
}
