/**
 * Drawing a histogram plot on a canvas: in *offset* mode a ridgeline plot (one curve per step, stacked in
 * depth, the oldest at the back and top, the newest in front), in *overlay* mode every step on one baseline,
 * older steps fainter. Curves go through the bin centres; the x axis spans the bins' common range.
 */
import { formatTicks, formatStep } from "@charts/format";
import { linearTicks } from "@charts/ticks";
import { binAt, offsetLayout } from "./data";

export type Mode = "offset" | "overlay";

export interface Curve {
  step: number;
  count: number[];
  colour: string;
  run: string;
  /** The range of this curve's equal bins (each run's response has its own). */
  range: [number, number];
}

export interface DrawSpec {
  width: number;
  height: number;
  /** The x axis: the union of the curves' ranges. */
  range: [number, number];
  bins: number;
  /** Oldest first: drawn back to front. */
  curves: Curve[];
  mode: Mode;
  /** Index into curves drawn on top in the text colour (the step slider's or the hovered step). */
  highlight: number | null;
}

export interface Geometry {
  left: number;
  right: number;
  top: number;
  bottom: number;
  peak: number;
  maxCount: number;
  baselines: number[];
  spec: DrawSpec;
}

const MARGIN = { left: 8, right: 56, top: 8, bottom: 22 };

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** x (CSS px) of a value. */
function xOf(g: Geometry, v: number): number {
  const [a, b] = g.spec.range;
  return g.left + ((v - a) / (b - a)) * (g.right - g.left);
}

/** x (CSS px) of curve c's bin centre i. */
function xAt(g: Geometry, c: number, i: number): number {
  const [a, b] = g.spec.curves[c].range;
  return xOf(g, a + ((i + 0.5) / g.spec.bins) * (b - a));
}

/** y (CSS px) of curve c at bin i. */
export function yAt(g: Geometry, c: number, i: number): number {
  const v = g.spec.curves[c].count[i] ?? 0;
  return g.baselines[c] - (g.maxCount > 0 ? (v / g.maxCount) * g.peak : 0);
}

export function geometry(spec: DrawSpec): Geometry {
  const left = MARGIN.left;
  const right = spec.width - MARGIN.right;
  const top = MARGIN.top;
  const bottom = spec.height - MARGIN.bottom;
  let maxCount = 0;
  for (const c of spec.curves) for (const v of c.count) if (v > maxCount) maxCount = v;
  const n = spec.curves.length;
  let baselines: number[];
  let peak: number;
  if (spec.mode === "offset") {
    const layout = offsetLayout(n, top, bottom);
    baselines = spec.curves.map((_c, i) => layout.baseline(i));
    peak = layout.peak;
  } else {
    baselines = spec.curves.map(() => bottom);
    peak = bottom - top;
  }
  return { left, right, top, bottom, peak, maxCount, baselines, spec };
}

function alphaHex(alpha: number): string {
  return Math.round(Math.max(0, Math.min(1, alpha)) * 255)
    .toString(16)
    .padStart(2, "0");
}

function tint(colour: string, alpha: number): string {
  return /^#[0-9a-f]{6}$/i.test(colour) ? `${colour}${alphaHex(alpha)}` : colour;
}

/** Draws the plot and returns its geometry (for hover). */
export function drawHistograms(canvas: HTMLCanvasElement, spec: DrawSpec): Geometry {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(spec.width * dpr);
  canvas.height = Math.round(spec.height * dpr);
  canvas.style.width = `${spec.width}px`;
  canvas.style.height = `${spec.height}px`;
  const ctx = canvas.getContext("2d")!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, spec.width, spec.height);
  const g = geometry(spec);
  const bg = cssVar("--card-bg", "#fff");
  const fg = cssVar("--fg", "#222");
  const axis = cssVar("--chart-axis", cssVar("--muted", "#888"));
  const grid = cssVar("--chart-grid", "rgba(128,128,128,0.15)");
  ctx.font = "11px system-ui, sans-serif";

  // x grid and ticks
  const ticks = linearTicks(spec.range[0], spec.range[1], Math.max(2, Math.floor((g.right - g.left) / 60)));
  const labels = formatTicks(ticks);
  ctx.strokeStyle = grid;
  ctx.fillStyle = axis;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ticks.forEach((t, k) => {
    const x = xOf(g, t);
    ctx.beginPath();
    ctx.moveTo(x, g.top);
    ctx.lineTo(x, g.bottom);
    ctx.stroke();
    ctx.fillText(labels[k], x, g.bottom + 5);
  });

  const n = spec.curves.length;
  const trace = (c: number) => {
    ctx.beginPath();
    const [a, b] = spec.curves[c].range;
    ctx.moveTo(xOf(g, a), g.baselines[c]);
    for (let i = 0; i < spec.bins; i++) ctx.lineTo(xAt(g, c, i), yAt(g, c, i));
    ctx.lineTo(xOf(g, b), g.baselines[c]);
  };
  for (let c = 0; c < n; c++) {
    const curve = spec.curves[c];
    const age = n > 1 ? c / (n - 1) : 1; // 0 oldest, 1 newest
    trace(c);
    if (spec.mode === "offset") {
      ctx.fillStyle = bg; // hides the curves behind
      ctx.fill();
      ctx.fillStyle = tint(curve.colour, 0.12 + 0.2 * age);
      ctx.fill();
    }
    ctx.strokeStyle = tint(curve.colour, spec.mode === "offset" ? 0.45 + 0.55 * age : 0.12 + 0.88 * age);
    ctx.lineWidth = c === n - 1 ? 1.5 : 1;
    ctx.stroke();
  }
  if (spec.highlight !== null && spec.highlight >= 0 && spec.highlight < n) {
    trace(spec.highlight);
    ctx.strokeStyle = fg;
    ctx.lineWidth = 2;
    ctx.stroke();
  }

  // step labels on the right (offset: at their baselines; a few of them)
  ctx.fillStyle = axis;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  if (spec.mode === "offset" && n > 0) {
    const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor((g.bottom - g.top) / 16))));
    for (let c = n - 1; c >= 0; c -= every) ctx.fillText(formatStep(spec.curves[c].step), g.right + 6, g.baselines[c]);
  } else if (n > 0) {
    ctx.fillText(`from ${formatStep(spec.curves[0].step)}`, g.right + 6, g.top + 6);
    ctx.fillText(`to ${formatStep(spec.curves[n - 1].step)}`, g.right + 6, g.top + 20);
  }
  return g;
}

/** The curve (index) and its bin under the mouse: bins by x, the curve whose point there is nearest y. */
export function hitTest(g: Geometry, x: number, y: number): { curve: number; bin: number } | null {
  if (x < g.left || x > g.right) return null;
  const [a, b] = g.spec.range;
  const value = a + ((x - g.left) / (g.right - g.left)) * (b - a);
  let best: { curve: number; bin: number } | null = null;
  let bestD = Infinity;
  for (let c = g.spec.curves.length - 1; c >= 0; c--) {
    const [lo, hi] = g.spec.curves[c].range;
    const bin = binAt(value, lo, hi, g.spec.bins);
    if (bin < 0) continue;
    const d = Math.abs(yAt(g, c, bin) - y);
    if (d < bestD) {
      best = { curve: c, bin };
      bestD = d;
    }
  }
  return best;
}
