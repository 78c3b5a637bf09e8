/**
 * The uPlot wrapper every scalar chart uses: axes that format compactly, theme colours from CSS variables,
 * y ranges that can ignore outliers or be fixed, drag-to-zoom reported to the owner (which refetches the
 * visible range at full resolution), double-click to reset, and the linked crosshair (uPlot.sync by x value).
 *
 * Data is set with {@link Plot.setData} — the uPlot instance is created once per structure (lines, axes,
 * scales) and reused across live updates and smoothing changes.
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatDuration, formatTicks } from "./format";
import { padRange, robustRange, type Range } from "./range";
import { formatLogTick, logTicks } from "./ticks";

export type XMode = "step" | "relative" | "wall" | "value";

export interface LineSpec {
  label: string;
  colour: string;
  /** Which y scale: the left axis ("y") or the right one ("y2", for a second tag). */
  scale?: "y" | "y2";
  width?: number;
  alpha?: number;
  dash?: number[];
  /** Drawn only as one side of a band (no stroke of its own). */
  bandEdge?: boolean;
  /** Raw curve behind the smoothed one: not counted in tooltips. */
  faint?: boolean;
}

export interface BandSpec {
  /** 1-based uPlot series indices of the upper and lower edges. */
  upper: number;
  lower: number;
  colour: string;
  alpha?: number;
}

/**
 * Values drawn over the chart outside its series (a forecast and its band) that its y range should show where
 * their x is in view: `expected` always, `band` only as far as it widens the range by at most
 * {@link BAND_REACH} of its span on either side (an uncertainty band that fans out would otherwise squash the
 * curves into a strip).
 */
export interface ExtraY {
  scale?: "y" | "y2";
  x: ArrayLike<number>;
  expected: ArrayLike<number>;
  low?: ArrayLike<number>;
  high?: ArrayLike<number>;
}

/** How far (a fraction of the range's span, on each side) an {@link ExtraY} band may widen a y range. */
export const BAND_REACH = 0.5;

export interface PlotConfig {
  width: number;
  height: number;
  xMode: XMode;
  xLabel?: string;
  xLog: boolean;
  yLog: boolean;
  y2Log?: boolean;
  yLabel?: string;
  y2Label?: string;
  yFixed?: { min: number | null; max: number | null };
  ignoreOutliers: boolean;
  syncKey: string | null;
  lines: LineSpec[];
  bands: BandSpec[];
  /** Values outside the series that the y range should include (read at every re-range). */
  yExtra?: () => ReadonlyArray<ExtraY>;
  /** Called with the x range the user dragged, or null when the zoom is reset (double-click). */
  onZoom?: (range: [number, number] | null) => void;
  /** Called on every cursor move (own or synced); `own` is true when the mouse is over this chart. */
  onCursor?: (u: uPlot, own: boolean) => void;
  /** Extra drawing on top of the series (non-finite markers, annotations), in canvas pixels. */
  onDraw?: (u: uPlot) => void;
  /** Drawing behind the series (after the grid), in canvas pixels: background bands such as training phases. */
  onDrawBack?: (u: uPlot) => void;
}

function cssVar(name: string, fallback: string): string {
  if (typeof document === "undefined") return fallback;
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** Colour with an alpha: works for #rgb/#rrggbb and for any CSS colour through color-mix. */
export function withAlpha(colour: string, alpha: number): string {
  const m = /^#([0-9a-f]{6})$/i.exec(colour);
  if (m) {
    const a = Math.round(Math.max(0, Math.min(1, alpha)) * 255)
      .toString(16)
      .padStart(2, "0");
    return `#${m[1]}${a}`;
  }
  return `color-mix(in srgb, ${colour} ${Math.round(alpha * 100)}%, transparent)`;
}

/** The first and last data index whose x lies within the x scale. */
function visibleIdx(u: uPlot): [number, number] {
  const xs = u.data[0] as number[];
  if (!xs.length) return [0, -1];
  // While uPlot re-ranges y for a new x range (a zoom), scales.x still holds the old one; the series' idxs
  // already hold the new window.
  const idxs = u.series[0]?.idxs;
  if (idxs && idxs[0] != null && idxs[1] != null && idxs[1] >= idxs[0]) return [idxs[0], idxs[1]];
  const { min, max } = u.scales.x;
  let lo = 0;
  let hi = xs.length - 1;
  if (min != null) {
    let a = 0;
    let b = xs.length;
    while (a < b) {
      const m = (a + b) >> 1;
      if (xs[m] < min) a = m + 1;
      else b = m;
    }
    lo = a;
  }
  if (max != null) {
    let a = 0;
    let b = xs.length;
    while (a < b) {
      const m = (a + b) >> 1;
      if (xs[m] <= max) a = m + 1;
      else b = m;
    }
    hi = a - 1;
  }
  return [lo, hi];
}

/**
 * `r` widened to the extra values of `scale` whose x lies in `[x0, x1]`: to every expected value, then toward
 * the band by at most BAND_REACH of the widened span on each side (in log10 units on a log scale, where values
 * at or below 0 are skipped).
 */
export function withExtras(r: Range | null, extras: ReadonlyArray<ExtraY>, scale: "y" | "y2", x0: number, x1: number, log: boolean): Range | null {
  const to = (v: number) => (log ? Math.log10(v) : v);
  const from = (v: number) => (log ? 10 ** v : v);
  const ok = (v: number | null | undefined): v is number => v != null && Number.isFinite(v) && (!log || v > 0);
  let lo = r ? to(r.min) : Infinity;
  let hi = r ? to(r.max) : -Infinity;
  let blo = Infinity;
  let bhi = -Infinity;
  let any = false;
  for (const e of extras) {
    if ((e.scale ?? "y") !== scale) continue;
    for (let i = 0; i < e.x.length; i++) {
      const x = e.x[i];
      if (!(x >= x0 && x <= x1)) continue;
      const v = e.expected[i];
      if (ok(v)) {
        lo = Math.min(lo, to(v));
        hi = Math.max(hi, to(v));
        any = true;
      }
      for (const b of [e.low?.[i], e.high?.[i]]) {
        if (!ok(b)) continue;
        blo = Math.min(blo, to(b));
        bhi = Math.max(bhi, to(b));
      }
    }
  }
  if (!any) return r;
  const reach = (hi - lo) * BAND_REACH;
  if (blo < lo) lo = Math.max(blo, lo - reach);
  if (bhi > hi) hi = Math.min(bhi, hi + reach);
  return { min: from(lo), max: from(hi) };
}

/** On a log scale, a range reaching 0 or below keeps its top six decades. */
function positiveFloor(r: Range, log: boolean): Range {
  return log && r.min <= 0 ? { min: Math.max(r.max * 1e-6, Number.MIN_VALUE), max: Math.max(r.max, 1e-300) } : r;
}

function yRange(u: uPlot, scale: "y" | "y2", cfg: PlotConfig, dmin: number | null, dmax: number | null, xWin: [number, number] | null): uPlot.Range.MinMax {
  const log = scale === "y" ? cfg.yLog : !!cfg.y2Log;
  let r: Range | null = null;
  if (cfg.ignoreOutliers) {
    const [lo, hi] = visibleIdx(u);
    // With smoothing on, the range comes from the raw curves: a smoothed curve is a weighted average of them
    // (so it lies within their extent), but one 3.4e38 spike lifts dozens of smoothed points after it.
    const onScale = (i: number) => i > 0 && u.series[i].scale === scale && u.series[i].show !== false;
    const faint = u.series.some((_s, i) => onScale(i) && cfg.lines[i - 1]?.faint);
    const cols: ArrayLike<number | null>[] = [];
    u.series.forEach((_s, i) => {
      if (onScale(i) && (!faint || cfg.lines[i - 1]?.faint)) cols.push((u.data[i] as (number | null)[]).slice(lo, hi + 1));
    });
    r = robustRange(cols, { positiveOnly: log });
  } else if (dmin != null && dmax != null && Number.isFinite(dmin) && Number.isFinite(dmax)) {
    r = { min: dmin, max: dmax };
  }
  // A forecast past the last step: the x range was widened to show it, and y must be too (else its dashed
  // line leaves the chart while the header names where it ends). Only what is in the x window counts, so a
  // zoom onto the early steps is not flattened by values drawn off to its right.
  const extras = cfg.yExtra?.();
  if (extras?.length && xWin) r = withExtras(r && positiveFloor(r, log), extras, scale, xWin[0], xWin[1], log);
  if (!r) r = log ? { min: 1, max: 10 } : { min: 0, max: 1 };
  r = positiveFloor(r, log);
  r = padRange(r, 0.05, log);
  const fixed = scale === "y" ? cfg.yFixed : undefined;
  const min = fixed?.min != null && Number.isFinite(fixed.min) ? fixed.min : r.min;
  const max = fixed?.max != null && Number.isFinite(fixed.max) ? fixed.max : r.max;
  return min < max ? [min, max] : [r.min, r.max];
}

function xTicks(mode: XMode, log: boolean): uPlot.Axis.Values | undefined {
  if (mode === "wall") return undefined; // uPlot's own date formatting
  if (mode === "relative") return (_u, ticks) => ticks.map((t) => formatDuration(t));
  if (log) return (_u, ticks) => ticks.map(formatLogTick);
  return (_u, ticks) => formatTicks(ticks);
}

/**
 * Splits, label filter and labels of a log axis: powers of ten (1-2-5 over few decades), one grid line per
 * label, about one label per `spacing` CSS pixels of the axis.
 */
function logAxis(vertical: boolean, spacing: number): Partial<uPlot.Axis> {
  return {
    splits: (u, _axisIdx, min, max) => {
      const px = (vertical ? u.bbox.height : u.bbox.width) / (devicePixelRatio || 1);
      return logTicks(min, max, Math.max(2, Math.floor((px || (vertical ? 180 : 400)) / spacing)));
    },
    filter: (_u, splits) => splits,
    values: (_u, ticks) => ticks.map(formatLogTick),
  };
}

/**
 * Tick increments of linear axes from 1e-60 to 5e307: uPlot's own stop at 5e31, so an axis reaching 3.4e38
 * (ignore outliers off) had no ticks at all.
 */
const INCRS: number[] = [];
for (let e = -60; e <= 307; e++) for (const m of [1, 2, 2.5, 5]) INCRS.push(Number(`${m}e${e}`));

/** Tick steps of a duration axis (seconds): round seconds, minutes, hours and days, not 50 s or 1m 40s. */
const DURATION_INCRS: number[] = [
  ...INCRS.filter((v) => v < 1),
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
  86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 90 * 86400, 365 * 86400,
  ...INCRS.filter((v) => v > 365 * 86400),
];

/** Multiples of `incr` within [min, max], without floating point noise at any magnitude. */
function linearSplits(_u: uPlot, _axisIdx: number, min: number, max: number, incr: number): number[] {
  const out: number[] = [];
  if (!(incr > 0) || !Number.isFinite(min) || !Number.isFinite(max)) return out;
  for (let k = Math.ceil(min / incr - 1e-9); k * incr <= max * (1 + 1e-12) + 1e-300 && out.length < 200; k++) {
    const v = Number((k * incr).toPrecision(12));
    out.push(v === 0 ? 0 : v);
  }
  return out;
}

/** Theme colours of the axes: CSS variables read at every draw, so a theme change only needs a redraw. */
const axisStroke = () => cssVar("--chart-axis", cssVar("--muted", "#888"));
const gridStroke = () => cssVar("--chart-grid", "rgba(128,128,128,0.15)");

export class Plot {
  readonly u: uPlot;
  private full: [number, number] | null = null;
  private quiet = 0;
  private own = false;
  /** Per series: few enough finite points to draw each one as a dot. */
  private sparse: boolean[] = [];
  /** The x window being ranged (see the x scale's range). */
  private xWin: [number, number] | null = null;
  private readonly themeObserver: MutationObserver;

  constructor(
    readonly el: HTMLElement,
    readonly cfg: PlotConfig,
    data: uPlot.AlignedData,
  ) {
    const axisFont = "11px system-ui, sans-serif";
    const hasY2 = cfg.lines.some((l) => l.scale === "y2");
    const series: uPlot.Series[] = [
      { label: cfg.xLabel ?? "x" },
      ...cfg.lines.map(
        (l): uPlot.Series => ({
          label: l.label,
          scale: l.scale ?? "y",
          stroke: l.bandEdge ? undefined : withAlpha(l.colour, l.alpha ?? 1),
          width: l.bandEdge ? 0 : (l.width ?? 1.5),
          dash: l.dash,
          // Sparse curves (a single point, a few evaluations) show their points; dense ones only the line.
          points: { show: (_u: uPlot, si: number) => !l.bandEdge && !l.faint && (this.sparse[si] ?? false), size: 6 },
          spanGaps: false,
        }),
      ),
    ];
    const yScale = (scale: "y" | "y2", log: boolean): uPlot.Scale => ({
      distr: log ? 3 : 1,
      log: 10,
      range: (u, dmin, dmax) => yRange(u, scale, this.cfg, dmin, dmax, this.xWin),
    });
    const log10X = cfg.xLog && cfg.xMode !== "wall";
    const opts: uPlot.Options = {
      width: cfg.width,
      height: cfg.height,
      series,
      bands: cfg.bands.map((b) => ({
        series: [b.upper, b.lower] as [number, number],
        fill: withAlpha(b.colour, b.alpha ?? 0.15),
      })),
      legend: { show: false },
      scales: {
        x: {
          time: cfg.xMode === "wall",
          // Log x does not apply to dates (the toolbar disables it with wall time).
          distr: cfg.xLog && cfg.xMode !== "wall" ? 3 : 1,
          log: 10,
          // uPlot's own x ranging (snapNumX / snapLogX), noting the window: while uPlot ranges y for a new x
          // range, scales.x still holds the old one, and the y range needs it for the extra values' x.
          range: (_u, min, max) => {
            const r: uPlot.Range.MinMax = min == null || max == null ? [null, null] : log10X ? uPlot.rangeLog(min, max, 10, false) : [min, max];
            this.xWin = r[0] != null && r[1] != null ? [r[0], r[1]] : null;
            return r;
          },
        },
        y: yScale("y", cfg.yLog),
        ...(hasY2 ? { y2: yScale("y2", !!cfg.y2Log) } : {}),
      },
      axes: [
        {
          scale: "x",
          stroke: axisStroke,
          grid: { stroke: gridStroke, width: 1 },
          ticks: { stroke: gridStroke, width: 1 },
          font: axisFont,
          values: xTicks(cfg.xMode, cfg.xLog),
          ...(cfg.xMode === "wall"
            ? {}
            : cfg.xLog
              ? logAxis(false, 70)
              : { incrs: cfg.xMode === "relative" ? DURATION_INCRS : INCRS, splits: linearSplits }),
          label: cfg.xLabel,
          labelSize: cfg.xLabel ? 16 : 0,
          labelFont: axisFont,
        },
        {
          scale: "y",
          stroke: axisStroke,
          grid: { stroke: gridStroke, width: 1 },
          ticks: { stroke: gridStroke, width: 1 },
          font: axisFont,
          size: 56,
          values: (_u, ticks) => formatTicks(ticks),
          ...(cfg.yLog ? logAxis(true, 28) : { incrs: INCRS, splits: linearSplits }),
          label: cfg.yLabel,
          labelSize: cfg.yLabel ? 16 : 0,
          labelFont: axisFont,
        },
        ...(hasY2
          ? [
              {
                scale: "y2",
                side: 1,
                stroke: axisStroke,
                grid: { show: false },
                ticks: { stroke: gridStroke, width: 1 },
                font: axisFont,
                size: 56,
                values: (_u: uPlot, ticks: number[]) => formatTicks(ticks),
                ...(cfg.y2Log ? logAxis(true, 28) : { incrs: INCRS, splits: linearSplits }),
                label: cfg.y2Label,
                labelSize: cfg.y2Label ? 16 : 0,
                labelFont: axisFont,
              } as uPlot.Axis,
            ]
          : []),
      ],
      cursor: {
        y: false,
        drag: { x: true, y: false, setScale: true },
        points: { show: false },
        sync: cfg.syncKey
          ? {
              key: cfg.syncKey,
              setSeries: false,
              scales: ["x", null],
              // Only the crosshair is shared; each card zooms on its own.
              filters: { pub: (type) => type !== "mousedown" && type !== "mouseup" && type !== "dblclick" },
            }
          : undefined,
        bind: {
          dblclick: () => () => {
            this.cfg.onZoom?.(null);
            return null;
          },
          mouseenter: (_u, _t, handler) => (e) => {
            this.own = true;
            return handler(e);
          },
          mouseleave: (_u, _t, handler) => (e) => {
            this.own = false;
            return handler(e);
          },
        },
      },
      hooks: {
        setScale: [
          (u, key) => {
            if (key !== "x" || this.quiet > 0 || !this.cfg.onZoom) return;
            const { min, max } = u.scales.x;
            if (min == null || max == null) return;
            const full = this.full;
            if (full && min <= full[0] && max >= full[1]) return;
            this.cfg.onZoom([min, max]);
          },
        ],
        setCursor: [(u) => this.cfg.onCursor?.(u, this.own)],
        drawAxes: [(u) => this.cfg.onDrawBack?.(u)],
        draw: [(u) => this.cfg.onDraw?.(u)],
      },
    };
    this.sparse = sparseFlags(data, cfg.width);
    this.quiet++;
    this.u = new uPlot(opts, data, el);
    this.quiet--;
    this.full = extent(data[0] as number[]);
    // Re-theme without a rebuild: the axis and grid colours are read from CSS variables at every draw.
    this.themeObserver = new MutationObserver(() => this.u.redraw(false, false));
    this.themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme", "class", "style"] });
  }

  /** New data; the x range is kept when `zoom` is given (a zoomed card), else fitted to the data. */
  setData(data: uPlot.AlignedData, zoom: [number, number] | null): void {
    this.sparse = sparseFlags(data, this.u.width);
    this.quiet++;
    try {
      if (zoom) {
        this.u.setData(data, false);
        this.u.setScale("x", { min: zoom[0], max: zoom[1] });
      } else {
        this.full = extent(data[0] as number[]);
        this.u.setData(data, true);
      }
    } finally {
      this.quiet--;
    }
  }

  /** Re-ranges y (e.g. after ignore-outliers or a fixed range changed) without new data. */
  rerange(cfg: Partial<PlotConfig>): void {
    Object.assign(this.cfg, cfg);
    this.quiet++;
    try {
      this.u.setScale("x", { min: this.u.scales.x.min!, max: this.u.scales.x.max! });
    } finally {
      this.quiet--;
    }
  }

  setSize(width: number, height: number): void {
    if (width === this.u.width && height === this.u.height) return;
    this.quiet++;
    try {
      this.u.setSize({ width, height });
    } finally {
      this.quiet--;
    }
  }

  destroy(): void {
    this.themeObserver.disconnect();
    this.u.destroy();
  }
}

function extent(xs: number[]): [number, number] | null {
  if (!xs.length) return null;
  return [xs[0], xs[xs.length - 1]];
}

function sparseFlags(data: uPlot.AlignedData, width: number): boolean[] {
  const limit = Math.max(2, width / 12);
  return data.map((col, i) => {
    if (i === 0) return false;
    let n = 0;
    for (let j = 0; j < col.length; j++) {
      const v = col[j];
      if (v != null && Number.isFinite(v) && ++n > limit) return false;
    }
    return true;
  });
}
