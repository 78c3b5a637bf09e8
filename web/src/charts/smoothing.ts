/**
 * Smoothers for scalar curves. All take columnar arrays (no per-point objects) and return a new
 * Float64Array of the same length; non-finite values (NaN, ±Inf, and nulls turned into NaN) are passed
 * through unchanged at their positions and never contaminate their neighbours.
 *
 * - `emaTensorBoard`: TensorBoard's debiased exponential moving average over point index, reproduced
 *   exactly (tensorboard/webapp/widgets/line_chart_v2/data_transformer.ts `classicSmoothing`): a series
 *   whose values are all equal to the first is returned as is; the accumulator starts at 0 and the k-th
 *   finite value's average is divided by (1 - w^k); a weight of 1 gives no debiasing.
 * - `emaTimeWeighted`: the same debiased average but the decay between two points is w^(Δx / d), d being
 *   the median spacing of x, so uneven step spacing is respected; on evenly spaced points it equals the
 *   TensorBoard EMA.
 * - `gaussian`: a Gaussian kernel over x with σ = d · w / (1 - w) (so the slider means the same "amount"
 *   of smoothing as the EMA's time constant), truncated at 3σ.
 *
 * `smoothWindow` smooths a window of a series (a zoomed-in range fetched at full resolution) so that it
 * continues the smoothing of the whole series: the EMAs start from their state after the points before the
 * window (`emaTensorBoardFrom`, `emaTimeWeightedFrom`), the Gaussian sees its neighbours outside the window.
 */

export type Smoother = "ema" | "time-ema" | "gaussian";

export const SMOOTHERS: { value: Smoother; label: string }[] = [
  { value: "ema", label: "Exponential (TensorBoard)" },
  { value: "time-ema", label: "Time-weighted exponential" },
  { value: "gaussian", label: "Gaussian window" },
];

export type NumArray = ArrayLike<number | null>;

/** Clamps a smoothing weight to [0, 1]; a non-finite weight means no smoothing (as TensorBoard does). */
export function clampWeight(weight: number): number {
  if (!Number.isFinite(weight)) return 0;
  return Math.max(0, Math.min(weight, 1));
}

function toFloat(values: NumArray): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[i] = v === null ? NaN : v;
  }
  return out;
}

/** TensorBoard's constant-series rule: the (first) value when every value equals the first, else NaN. */
function constantValue(y: Float64Array): number {
  // Its `==` comparison: NaN never equals, so a series starting with NaN is smoothed like any other.
  const first = y[0];
  for (let i = 1; i < y.length; i++) if (y[i] !== first) return NaN;
  return first;
}

/**
 * The running state of the TensorBoard EMA: the (not yet debiased) accumulator and the number of finite values
 * it has taken, which is the exponent of its debiasing. Carrying both continues a series exactly.
 */
export interface EmaState {
  last: number;
  count: number;
}

/** TensorBoard's debiased EMA over point index (identical output to its `classicSmoothing`). */
export function emaTensorBoard(values: NumArray, weight: number): Float64Array {
  const y = toFloat(values);
  if (y.length === 0) return y;
  // TensorBoard returns a constant series untouched.
  if (constantValue(y) === y[0]) return y;
  return emaTensorBoardFrom(y, weight).out;
}

/**
 * The TensorBoard EMA of `values` continuing from `state` (the state after the values before them; a fresh
 * start by default), and its state after them. Without the constant-series rule, which concerns whole series.
 */
export function emaTensorBoardFrom(values: NumArray, weight: number, state: EmaState = { last: 0, count: 0 }): { out: Float64Array; state: EmaState } {
  const w = clampWeight(weight);
  const y = toFloat(values);
  const out = new Float64Array(y.length);
  let { last, count } = state;
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * w + (1 - w) * v;
    count++;
    const debias = w === 1 ? 1 : 1 - Math.pow(w, count);
    out[i] = last / debias;
  }
  return { out, state: { last, count } };
}

/** The median positive spacing of the finite x values (1 when there is none). */
export function medianSpacing(x: NumArray): number {
  const gaps: number[] = [];
  let prev = NaN;
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (v === null || !Number.isFinite(v)) continue;
    if (prev === prev && v > prev) gaps.push(v - prev);
    prev = v;
  }
  if (gaps.length === 0) return 1;
  gaps.sort((a, b) => a - b);
  return gaps[gaps.length >> 1];
}

/**
 * Debiased EMA where the decay between consecutive points is w^(Δx/d): a gap of ten typical spacings
 * forgets as much as ten points would. Steps that go backwards count as no gap.
 */
export function emaTimeWeighted(x: NumArray, values: NumArray, weight: number): Float64Array {
  if (clampWeight(weight) === 0) return toFloat(values);
  return emaTimeWeightedFrom(x, values, weight).out;
}

/**
 * The time-weighted EMA's running state: numerator and denominator of the weighted average, the x of the last
 * finite point (the next decay depends on the gap from it) and the spacing d that gaps are measured in.
 */
export interface TimeEmaState {
  num: number;
  den: number;
  prevX: number;
  spacing: number;
}

/** The time-weighted EMA continuing from `state` (default: a fresh start, d = the median spacing of `x`). */
export function emaTimeWeightedFrom(x: NumArray, values: NumArray, weight: number, state?: TimeEmaState): { out: Float64Array; state: TimeEmaState } {
  const w = clampWeight(weight);
  const y = toFloat(values);
  const n = y.length;
  const out = new Float64Array(n);
  const d = state?.spacing ?? medianSpacing(x);
  let num = state?.num ?? 0;
  let den = state?.den ?? 0;
  let prevX = state?.prevX ?? NaN;
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    const xi = x[i] ?? NaN;
    let decay = w;
    if (prevX === prevX && Number.isFinite(xi)) {
      const gap = Math.max(0, xi - prevX) / d;
      decay = Math.pow(w, gap);
    }
    if (Number.isFinite(xi)) prevX = xi;
    num = num * decay + v;
    den = den * decay + 1;
    out[i] = num / den;
  }
  return { out, state: { num, den, prevX, spacing: d } };
}

/** σ of the Gaussian window, in x units, for a slider weight. */
export function gaussianSigma(weight: number, spacing: number): number {
  const w = Math.min(clampWeight(weight), 0.999);
  return (spacing * w) / (1 - w);
}

/**
 * Gaussian-kernel average over x (σ from `gaussianSigma`, window ±3σ), ignoring non-finite values.
 * Uses a sliding window over x, so it is O(n · window); x must be ascending for the window to be exact
 * (points out of order are still averaged with their neighbours in index order).
 */
export function gaussian(x: NumArray, values: NumArray, weight: number, spacing?: number): Float64Array {
  const y = toFloat(values);
  const n = y.length;
  const sigma = gaussianSigma(weight, spacing ?? medianSpacing(x));
  if (sigma <= 0 || n < 2) return y;
  const xs = toFloat(x);
  const out = new Float64Array(n);
  const reach = 3 * sigma;
  const inv = -1 / (2 * sigma * sigma);
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    const xi = xs[i];
    while (lo < i && !(xs[lo] >= xi - reach)) lo++;
    if (hi < i) hi = i;
    while (hi + 1 < n && xs[hi + 1] <= xi + reach) hi++;
    let num = 0;
    let den = 0;
    for (let j = lo; j <= hi; j++) {
      const vj = y[j];
      if (!Number.isFinite(vj)) continue;
      const dx = xs[j] - xi;
      const k = Math.exp(dx * dx * inv);
      if (!(k > 0)) continue;
      num += k * vj;
      den += k;
    }
    out[i] = den > 0 ? num / den : v;
  }
  return out;
}

/** Applies the chosen smoother; a weight of 0 returns the raw values. */
export function smooth(kind: Smoother, x: NumArray, values: NumArray, weight: number): Float64Array {
  if (clampWeight(weight) === 0) return toFloat(values);
  switch (kind) {
    case "time-ema":
      return emaTimeWeighted(x, values, weight);
    case "gaussian":
      return gaussian(x, values, weight);
    default:
      return emaTensorBoard(values, weight);
  }
}

/** A series' x and values (e.g. the whole run, as drawn before zooming in). */
export interface SeriesXY {
  x: NumArray;
  values: NumArray;
}

/**
 * Smooths `values` at `x` — a window of the series `context` (typically the zoomed-in range at full
 * resolution, `context` the whole run as first fetched, possibly reduced) — as a continuation of the whole
 * series' smoothing, so that zooming in does not restart the curve at the window's first point:
 *
 * - exponential (TensorBoard): the accumulator and the debias count after the context's points before the
 *   window's first x carry into the window; a context whose values are all one constant that the window
 *   also has everywhere stays that constant (TensorBoard's rule for constant series);
 * - time-weighted: numerator, denominator, the last x and the spacing d of the context carry into it;
 * - Gaussian: the context's points within 3σ before and after the window take part in the sums, σ from the
 *   context's spacing.
 *
 * When the context is not reduced, the result equals the whole series' smoothing at the window's points.
 */
export function smoothWindow(kind: Smoother, context: SeriesXY, x: NumArray, values: NumArray, weight: number): Float64Array {
  if (clampWeight(weight) === 0) return toFloat(values);
  const cx = toFloat(context.x);
  const cv = toFloat(context.values);
  let x0 = NaN;
  let x1 = NaN;
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (v === null || !Number.isFinite(v)) continue;
    if (!(x0 <= v)) x0 = v;
    if (!(x1 >= v)) x1 = v;
  }
  // The context's points before the window: its leading points at x below the window's first x.
  let before = 0;
  while (before < cx.length && cx[before] < x0) before++;
  switch (kind) {
    case "time-ema": {
      const prefix = emaTimeWeightedFrom(cx.subarray(0, before), cv.subarray(0, before), weight, {
        num: 0,
        den: 0,
        prevX: NaN,
        spacing: medianSpacing(cx),
      });
      return emaTimeWeightedFrom(x, values, weight, prefix.state).out;
    }
    case "gaussian": {
      const spacing = medianSpacing(cx);
      const reach = 3 * gaussianSigma(weight, spacing);
      let lo = before;
      while (lo > 0 && cx[lo - 1] >= x0 - reach) lo--;
      let after = before;
      while (after < cx.length && !(cx[after] > x1)) after++;
      let hi = after;
      while (hi < cx.length && cx[hi] <= x1 + reach) hi++;
      const n = values.length;
      const left = before - lo;
      const xs = new Float64Array(left + n + (hi - after));
      const ys = new Float64Array(xs.length);
      xs.set(cx.subarray(lo, before));
      ys.set(cv.subarray(lo, before));
      xs.set(toFloat(x), left);
      ys.set(toFloat(values), left);
      xs.set(cx.subarray(after, hi), left + n);
      ys.set(cv.subarray(after, hi), left + n);
      return gaussian(xs, ys, weight, spacing).slice(left, left + n);
    }
    default: {
      const y = toFloat(values);
      const c = cv.length ? constantValue(cv) : NaN;
      if (c === c && y.every((v) => v === c)) return y;
      const prefix = emaTensorBoardFrom(cv.subarray(0, before), weight);
      return emaTensorBoardFrom(y, weight, prefix.state).out;
    }
  }
}
