/**
 * Y ranges for charts: the plain finite extent, and an outlier-ignoring range computed from percentiles so
 * that one value of 3.4e38 among ordinary losses does not flatten the curve into a line at zero.
 */

export interface Range {
  min: number;
  max: number;
}

/** The extent of the finite values across several arrays (null when there is none). */
export function finiteExtent(arrays: Iterable<ArrayLike<number | null>>, positiveOnly = false): Range | null {
  let min = Infinity;
  let max = -Infinity;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v === null || !Number.isFinite(v) || (positiveOnly && v <= 0)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return min <= max ? { min, max } : null;
}

/** The q-quantile (0..1) of a sorted array, nearest rank rounded toward the middle of the data. */
function quantile(sorted: Float64Array, q: number): number {
  const pos = q * (sorted.length - 1);
  return q < 0.5 ? sorted[Math.ceil(pos)] : sorted[Math.floor(pos)];
}

const SAMPLE = 50_000;

/**
 * A range that ignores outliers: the [lowQ, highQ] quantiles of the finite values, widened to the true
 * extent on each side when the extreme values lie within `slack` times the quantile span (so a clean
 * curve is still drawn whole, and only real outliers are cut off). Returns null without finite values.
 */
export function robustRange(
  arrays: Iterable<ArrayLike<number | null>>,
  { lowQ = 0.02, highQ = 0.98, slack = 0.5, positiveOnly = false } = {},
): Range | null {
  let n = 0;
  const list = [...arrays];
  for (const a of list) n += a.length;
  const buf = new Float64Array(n);
  let k = 0;
  for (const a of list) {
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v === null || !Number.isFinite(v) || (positiveOnly && v <= 0)) continue;
      buf[k++] = v;
    }
  }
  if (k === 0) return null;
  let vmin = Infinity;
  let vmax = -Infinity;
  for (let i = 0; i < k; i++) {
    if (buf[i] < vmin) vmin = buf[i];
    if (buf[i] > vmax) vmax = buf[i];
  }
  // Ignore-outliers is the default, so this runs for every chart: above SAMPLE values (100 runs of a wide
  // chart) the quantiles come from an evenly strided sample, a few ms less per draw; the extremes stay exact.
  const stride = Math.ceil(k / SAMPLE);
  const sample = stride > 1 ? Float64Array.from({ length: Math.floor(k / stride) }, (_, i) => buf[i * stride]) : buf.subarray(0, k);
  const sorted = sample.sort();
  const lo = quantile(sorted, lowQ);
  const hi = quantile(sorted, highQ);
  const span = hi - lo || Math.abs(hi) || 1;
  const min = vmin >= lo - slack * span ? vmin : lo - 0.05 * span;
  const max = vmax <= hi + slack * span ? vmax : hi + 0.05 * span;
  return { min, max };
}

/** Pads a range by a fraction of its span (or of its magnitude when it is a single value). */
export function padRange(r: Range, fraction = 0.05, log = false): Range {
  if (log) {
    const lmin = Math.log10(r.min);
    const lmax = Math.log10(r.max);
    const pad = (lmax - lmin || 1) * fraction;
    return { min: 10 ** (lmin - pad), max: 10 ** (lmax + pad) };
  }
  const span = r.max - r.min;
  const pad = span > 0 ? span * fraction : Math.abs(r.max) * 0.1 || 1;
  return { min: r.min - pad, max: r.max + pad };
}
