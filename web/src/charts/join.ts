/**
 * Aligning series logged at different x values onto the one x array uPlot draws against.
 *
 * uPlot (mode 1) wants a shared x array and one y array per line. When the union of all x values is small
 * enough (cells = union × lines within `budget`), the join is exact: each line has its own values at its own
 * x and `undefined` elsewhere (uPlot bridges over undefined). When it is larger — e.g. 100 runs whose reduced
 * series kept different steps — every line is linearly interpolated onto an even grid of `gridPoints` x
 * values, which is as fine as the pixels it is drawn on (the reduction bands still show every spike).
 * Non-finite values become `null`, which uPlot draws as a gap.
 */
import { interpolateAt, unionGrid } from "./aggregate";

export type Cell = number | null | undefined;

export interface JoinInput {
  x: ArrayLike<number>;
  /** y columns sharing this x (e.g. raw, smoothed, band low, band high). */
  columns: ArrayLike<number>[];
}

export interface Joined {
  x: number[];
  /** One array per input column, in input order (series 0's columns first). */
  columns: Cell[][];
  exact: boolean;
}

function isAscending(x: ArrayLike<number>): boolean {
  for (let i = 1; i < x.length; i++) if (!(x[i] > x[i - 1])) return false;
  return true;
}

/** Sorts a series by x (stable) and drops repeated x values (the last one wins), for series out of order. */
export function sortByX(input: JoinInput): JoinInput {
  if (isAscending(input.x)) return input;
  const idx = Array.from({ length: input.x.length }, (_, i) => i).filter((i) => Number.isFinite(input.x[i]));
  idx.sort((a, b) => input.x[a] - input.x[b] || a - b);
  const keep: number[] = [];
  for (const i of idx) {
    if (keep.length && input.x[keep[keep.length - 1]] === input.x[i]) keep[keep.length - 1] = i;
    else keep.push(i);
  }
  return {
    x: Float64Array.from(keep, (i) => input.x[i]),
    columns: input.columns.map((c) => Float64Array.from(keep, (i) => c[i])),
  };
}

const cell = (v: number): number | null => (Number.isFinite(v) ? v : null);

export function joinSeries(inputs: JoinInput[], gridPoints: number, budget = 1_500_000): Joined {
  const sorted = inputs.map(sortByX);
  const nCols = sorted.reduce((n, s) => n + s.columns.length, 0);
  // Fast path: every series has the very same x (same logging steps, nothing reduced differently).
  const first = sorted[0]?.x;
  const same =
    first !== undefined &&
    sorted.every((s) => s.x.length === first.length && (s.x === first || everyEqual(s.x, first)));
  if (same) {
    return {
      x: Array.from(first),
      columns: sorted.flatMap((s) => s.columns.map((c) => Array.from(c, cell))),
      exact: true,
    };
  }
  const limit = Math.max(2, Math.floor(budget / Math.max(1, nCols)));
  let union = unionGrid(
    sorted.map((s) => s.x),
    Infinity,
  );
  const exact = union.length <= limit;
  if (!exact) union = unionGrid(sorted.map((s) => s.x), gridPoints);
  const x = Array.from(union);
  const columns: Cell[][] = [];
  for (const s of sorted) {
    if (exact) {
      // Walk both ascending arrays: each of the series' x values is in the union.
      const pos = new Int32Array(s.x.length);
      let j = 0;
      for (let i = 0; i < s.x.length; i++) {
        while (union[j] < s.x[i]) j++;
        pos[i] = j;
      }
      for (const c of s.columns) {
        const out: Cell[] = new Array(union.length);
        for (let i = 0; i < pos.length; i++) out[pos[i]] = cell(c[i]);
        columns.push(out);
      }
    } else {
      for (const c of s.columns) {
        const v = interpolateAt(s.x, c, union);
        const out: Cell[] = new Array(union.length);
        const lo = s.x[0];
        const hi = s.x[s.x.length - 1];
        for (let i = 0; i < union.length; i++) {
          // Inside the series' range a non-finite neighbour makes a gap (null); outside it nothing (undefined).
          if (union[i] >= lo && union[i] <= hi) out[i] = cell(v[i]);
        }
        columns.push(out);
      }
    }
  }
  return { x, columns, exact };
}

function everyEqual(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
