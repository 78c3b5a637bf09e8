/**
 * Number and time formatting for axes, tooltips and tables: compact, and scientific for very big or very
 * small magnitudes so that a value like 3.4e38 never prints as 39 digits.
 */

/** Strips trailing zeros of a fixed or exponential number string ("1.500e+3" -> "1.5e3"). */
function trim(s: string): string {
  let [mant, exp] = s.split("e");
  if (mant.includes(".")) mant = mant.replace(/\.?0+$/, "");
  if (exp === undefined) return mant;
  const e = Number(exp);
  return `${mant}e${e}`;
}

/**
 * A compact human string for a number: up to `digits` significant digits, scientific notation when
 * |x| >= 1e5 or 0 < |x| < 1e-3, "NaN", "+Inf" and "-Inf" for non-finite values, "–" for null.
 */
export function formatNumber(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined) return "–";
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e5 || a < 1e-3) return trim(x.toExponential(Math.max(0, digits - 1)));
  // toPrecision would write 1000 as "1.00e+3": go through Number to get plain digits below 1e5.
  return String(Number(x.toPrecision(digits)));
}

/**
 * Axis tick labels: the same compact form, with enough digits to tell neighbouring ticks apart. A tick that
 * uPlot filtered out (null) gets no label, not "–".
 */
export function formatTicks(ticks: (number | null)[]): string[] {
  const big = maxAbs(ticks);
  const label = (t: number | null, digits: number) =>
    t === null || t === undefined ? "" : formatNumber(Math.abs(t) < 1e-12 * big ? 0 : t, digits);
  for (let digits = 3; digits <= 8; digits++) {
    const labels = ticks.map((t) => label(t, digits));
    const shown = labels.filter((l) => l !== "");
    if (new Set(shown).size === shown.length) return labels;
  }
  return ticks.map((t) => label(t, 8));
}

function maxAbs(xs: (number | null)[]): number {
  let m = 0;
  for (const x of xs) if (x !== null && x !== undefined && Math.abs(x) > m) m = Math.abs(x);
  return m;
}

/** A step count with thousands separators ("12,345"), or compact when huge. */
export function formatStep(step: number | null | undefined): string {
  if (step === null || step === undefined || !Number.isFinite(step)) return "–";
  if (Math.abs(step) >= 1e12) return formatNumber(step);
  // A regex instead of toLocaleString: this runs for every tooltip row on every mouse move.
  return String(Math.round(step)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A duration in seconds as "1h 02m", "3m 05s", "12.3s" or "450ms". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "–";
  const sign = seconds < 0 ? "-" : "";
  let s = Math.abs(seconds);
  if (s === 0) return "0s";
  if (s < 1) return `${sign}${Math.round(s * 1000)}ms`;
  if (s < 60) return `${sign}${trim(s.toFixed(1))}s`;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  const sec = Math.floor(s - m * 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (d > 0) return `${sign}${d}d ${pad(h)}h`;
  if (h > 0) return `${sign}${h}h ${pad(m)}m`;
  return `${sign}${m}m ${pad(sec)}s`;
}

/** A wall time (seconds since the epoch) as a local "YYYY-MM-DD HH:MM:SS". */
export function formatWallTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "–";
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}
