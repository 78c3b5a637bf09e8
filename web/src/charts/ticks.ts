/**
 * Ticks for logarithmic axes. uPlot's own log splits put a grid line at every 1…9 × 10ⁿ and blank out most
 * of their labels (which our formatter then printed as "–"); these are the ticks a person expects instead:
 * powers of ten (every k-th decade when there are many), 1-2-5 steps when only a few decades are shown, and
 * finer steps inside a single decade, each labelled compactly (1e-3, 0.01, 0.1, 1, 10, 1e5).
 */

/** m × 10^e computed from its decimal string, so that 3 × 10⁻¹ is 0.3 and not 0.30000000000000004. */
function decimal(m: number, e: number): number {
  return Number(`${m}e${e}`);
}

const MANTISSAS: number[][] = [[1], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]];

/**
 * Tick values for a log axis over [min, max] (both > 0), at most `maxTicks` of them (at least 2 where the
 * range allows). Empty when the range is not positive.
 */
export function logTicks(min: number, max: number, maxTicks: number): number[] {
  if (!(min > 0) || !(max > min) || !Number.isFinite(max)) return [];
  const limit = Math.max(2, Math.floor(maxTicks));
  const lo = Math.floor(Math.log10(min));
  const hi = Math.ceil(Math.log10(max));
  const within = (v: number) => v >= min * (1 - 1e-12) && v <= max * (1 + 1e-12);
  const withMantissas = (ms: number[]) => {
    const out: number[] = [];
    for (let e = lo; e <= hi; e++) for (const m of ms) if (within(decimal(m, e))) out.push(decimal(m, e));
    return out;
  };
  // Powers of ten, every k-th decade (k = 1, 2, 3, 5, 10, 20, ...) so that they fit.
  const decades = (k: number) => {
    const out: number[] = [];
    for (let e = Math.ceil(lo / k) * k; e <= hi; e += k) if (within(decimal(1, e))) out.push(decimal(1, e));
    return out;
  };
  let best = decades(1);
  if (best.length > limit) {
    for (const k of [2, 3, 5, 10, 20, 50, 100]) {
      best = decades(k);
      if (best.length <= limit) break;
    }
    return best;
  }
  // Few decades: add 2 and 5 (then every digit inside one decade) while they still fit.
  for (const ms of MANTISSAS.slice(1)) {
    const finer = withMantissas(ms);
    if (finer.length > limit) break;
    best = finer;
    if (best.length >= 4) break;
  }
  if (best.length >= 3) return best;
  // Less than a decade or two (e.g. 0.45 … 1, or 0.52 … 0.58): evenly spaced round values, like a linear
  // axis, when they give more labels.
  const linear = linearTicks(min, max, Math.min(limit, 5));
  return linear.length > best.length && linear.length <= limit ? linear : best;
}

/** About `count` round values (1, 2 or 5 × 10ⁿ apart) within [min, max]. */
export function linearTicks(min: number, max: number, count: number): number[] {
  const raw = (max - min) / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return [];
  const e = Math.floor(Math.log10(raw));
  const f = raw / 10 ** e;
  const m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  const stepE = m === 10 ? e + 1 : e;
  const stepM = m === 10 ? 1 : m;
  const step = decimal(stepM, stepE);
  const out: number[] = [];
  const first = Math.ceil(min / step - 1e-9);
  for (let k = first; k * step <= max * (1 + 1e-12) && out.length < 1000; k++) {
    // Round to the step's decimals so 0.1 × 3 prints as 0.3.
    const digits = Math.max(0, -stepE);
    out.push(Number((k * step).toFixed(Math.min(20, digits))));
  }
  return out;
}

/**
 * A log tick's label: plain digits from 0.01 up to 1000s, exponent form outside (1e-3, 2e-3, 1e4, 1e5,
 * 3.4e38); at most 3 significant digits (finer ticks within one decade need no more).
 */
export function formatLogTick(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 0.01 && a < 1e4) return String(Number(v.toPrecision(3)));
  const [mant, exp] = v.toExponential(2).split("e");
  return `${mant.replace(/\.?0+$/, "")}e${Number(exp)}`;
}
