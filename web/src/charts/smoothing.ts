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

/** TensorBoard's debiased EMA over point index (identical output to its `classicSmoothing`). */
export function emaTensorBoard(values: NumArray, weight: number): Float64Array {
  const w = clampWeight(weight);
  const y = toFloat(values);
  const n = y.length;
  if (n === 0) return y;
  // TensorBoard returns a constant series untouched (its `==` comparison: NaN never equals, so a series
  // starting with NaN is smoothed like any other).
  const first = y[0];
  let constant = true;
  for (let i = 1; i < n; i++) {
    if (y[i] !== first) {
      constant = false;
      break;
    }
  }
  if (constant && first === first) return y;
  const out = new Float64Array(n);
  let last = 0;
  let numAccum = 0;
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * w + (1 - w) * v;
    numAccum++;
    const debias = w === 1 ? 1 : 1 - Math.pow(w, numAccum);
    out[i] = last / debias;
  }
  return out;
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
  const w = clampWeight(weight);
  const y = toFloat(values);
  const n = y.length;
  const out = new Float64Array(n);
  if (w === 0) return y;
  const d = medianSpacing(x);
  let num = 0;
  let den = 0;
  let prevX = NaN;
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
  return out;
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
export function gaussian(x: NumArray, values: NumArray, weight: number): Float64Array {
  const y = toFloat(values);
  const n = y.length;
  const sigma = gaussianSigma(weight, medianSpacing(x));
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
