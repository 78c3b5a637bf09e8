/**
 * Combining series that were logged at different steps: linear interpolation onto other x values (used to
 * plot one tag against another, joined by step) and run-group statistics (mean, σ, min, max across the
 * runs of a group at each x of a shared grid).
 */

/**
 * Values of (xs, ys) at each of `at`, by linear interpolation between the neighbouring finite points.
 * Outside the series' x range the result is NaN (a run that stopped early does not extend flat). `xs`
 * must be ascending.
 */
export function interpolateAt(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  at: ArrayLike<number>,
): Float64Array {
  const out = new Float64Array(at.length).fill(NaN);
  const n = xs.length;
  if (n === 0) return out;
  let j = 0;
  for (let i = 0; i < at.length; i++) {
    const x = at[i];
    if (!(x >= xs[0] && x <= xs[n - 1])) continue;
    // at is usually ascending: walk forward, restart from 0 when it goes back.
    if (j > 0 && xs[j] > x) j = 0;
    while (j + 1 < n && xs[j + 1] <= x) j++;
    if (xs[j] === x) {
      out[i] = ys[j];
      continue;
    }
    const x0 = xs[j];
    const x1 = xs[j + 1];
    const y0 = ys[j];
    const y1 = ys[j + 1];
    if (!Number.isFinite(y0) || !Number.isFinite(y1)) continue;
    out[i] = y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return out;
}

/** The sorted union of several ascending arrays, thinned to at most `maxPoints` evenly spaced values. */
export function unionGrid(arrays: ArrayLike<number>[], maxPoints: number): Float64Array {
  let min = Infinity;
  let max = -Infinity;
  let total = 0;
  for (const a of arrays) {
    if (a.length === 0) continue;
    total += a.length;
    if (a[0] < min) min = a[0];
    if (a[a.length - 1] > max) max = a[a.length - 1];
  }
  if (total === 0) return new Float64Array(0);
  if (total <= maxPoints) {
    const all = new Float64Array(total);
    let k = 0;
    for (const a of arrays) for (let i = 0; i < a.length; i++) all[k++] = a[i];
    all.sort();
    let u = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[u - 1]) all[u++] = all[i];
    return all.slice(0, u);
  }
  const n = Math.max(2, maxPoints);
  const grid = new Float64Array(n);
  for (let i = 0; i < n; i++) grid[i] = min + ((max - min) * i) / (n - 1);
  return grid;
}

export interface GroupStats {
  x: Float64Array;
  mean: Float64Array;
  std: Float64Array;
  min: Float64Array;
  max: Float64Array;
  /** How many runs contributed at each x. */
  count: Uint16Array;
}

/**
 * Mean, population σ, min and max across members at each x of the union of their steps (at most
 * `maxPoints`), each member interpolated linearly; NaN where no member has a value.
 */
export function groupStats(
  members: { x: ArrayLike<number>; y: ArrayLike<number> }[],
  maxPoints = 2000,
): GroupStats {
  const x = unionGrid(
    members.map((m) => m.x),
    maxPoints,
  );
  const n = x.length;
  const sum = new Float64Array(n);
  const sq = new Float64Array(n);
  const min = new Float64Array(n).fill(Infinity);
  const max = new Float64Array(n).fill(-Infinity);
  const count = new Uint16Array(n);
  for (const m of members) {
    const v = interpolateAt(m.x, m.y, x);
    for (let i = 0; i < n; i++) {
      const y = v[i];
      if (!Number.isFinite(y)) continue;
      sum[i] += y;
      sq[i] += y * y;
      if (y < min[i]) min[i] = y;
      if (y > max[i]) max[i] = y;
      count[i]++;
    }
  }
  const mean = new Float64Array(n);
  const std = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const c = count[i];
    if (c === 0) {
      mean[i] = std[i] = min[i] = max[i] = NaN;
      continue;
    }
    mean[i] = sum[i] / c;
    std[i] = Math.sqrt(Math.max(0, sq[i] / c - mean[i] * mean[i]));
  }
  return { x, mean, std, min, max, count };
}

/** The index of the x closest to `target` in an ascending array (binary search); -1 when empty. */
export function nearestIndex(xs: ArrayLike<number>, target: number): number {
  const n = xs.length;
  if (n === 0) return -1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(xs[lo - 1] - target) <= Math.abs(xs[lo] - target)) return lo - 1;
  return lo;
}
