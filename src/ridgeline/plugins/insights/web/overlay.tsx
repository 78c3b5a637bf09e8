/**
 * What the insights add to a scalar card: markers where alerts fired (hover names kind, value and expected
 * range), the loss curve's phases as background bands, the forecast dashed with its uncertainty band, and
 * the zoom onto a step an alert link asked for. ./index.tsx registers {@link useInsightsCardOverlay} with the
 * shell's card overlays (@charts/overlays); every scalar card calls it and draws what it returns from its uPlot
 * hooks. Everything is fetched only for cards that are seen.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { useUrlState } from "@app/state";
import type { CardOverlay, OverlayContext } from "@charts/overlays";
import { withAlpha, type ExtraY } from "@charts/plot";
import { formatNumber, formatStep } from "@charts/format";
import { fetchForecast, fetchPhases, useAlerts } from "./data";
import {
  alertX,
  focusRange,
  forecastEnd,
  forecastText,
  formatAlertValue,
  formatRange,
  expectedRange,
  FOCUS_KEY,
  focusNames,
  PHASE_COLOURS,
  PHASE_LABELS,
  phaseAt,
  phaseBands,
  type Alert,
  type Forecast,
  type PhaseBand,
  type Segment,
} from "./model";

/** Fewer finite points than this: no phases or forecast are asked for (the server answers 400). */
export const MIN_POINTS = 10;

/** How many finite values `values` holds, counting up to `enough` only. */
function finiteCount(values: ArrayLike<number> | undefined, enough: number): number {
  let n = 0;
  for (let i = 0; values && i < values.length && n < enough; i++) if (Number.isFinite(values[i])) n++;
  return n;
}

export interface AlertMark {
  x: number;
  alert: Alert;
  scale: "y" | "y2";
  many: boolean;
}

export interface Overlay {
  alerts: AlertMark[];
  phases: PhaseBand[];
  forecasts: { run: string; colour: string; forecast: Forecast }[];
  focusX: number | null;
}

export interface OverlayOptions {
  tag: string;
  tag2?: string | null;
  runs: RunInfo[];
  /** The (run, tag) series the card draws (which runs have the tag). */
  keys: { run: string; tag: string }[];
  /** The card has been scrolled into view (only then are phases and forecasts asked for). */
  seen: boolean;
  /** The series are loaded; `values(run)` are the run's loaded values of `tag` (NaN: not finite). */
  loaded: boolean;
  values: (run: string) => ArrayLike<number> | undefined;
  /** The run's first wall time (relative x axis). */
  start: (run: string) => number;
  tick: number;
  xAxis: string;
  phases: boolean;
  forecast: boolean;
}

export interface OverlayState {
  /** Read by the draw hooks (a ref: the uPlot instance outlives renders). */
  ref: { current: Overlay };
  /** Changes whenever something drawn changed (the card redraws then). */
  version: string;
  counts: { alerts: number; phases: number; forecast: boolean };
  /** Why phases or a forecast are not drawn although asked for ("" when they are or were not asked). */
  note: string;
  /** The x range to show when not zoomed (the data plus the forecast), or null for the data's own. */
  view(data: uPlot.AlignedData): [number, number] | null;
}

function useInsightOverlay(o: OverlayOptions): OverlayState {
  const stream = useAlerts(o.tick);
  const withTag = useMemo(() => {
    const has = new Set(o.keys.filter((k) => k.tag === o.tag).map((k) => k.run));
    return o.runs.filter((r) => has.has(r.run));
  }, [o.runs, o.keys, o.tag]);
  const stepAxis = o.xAxis === "step";
  const single = !o.tag2;
  const [phases, setPhases] = useState<{ run: string; segments: Segment[] }[]>([]);
  const [forecasts, setForecasts] = useState<Overlay["forecasts"]>([]);
  const [failed, setFailed] = useState("");

  const eligible = (r: RunInfo) => finiteCount(o.values(r.run), MIN_POINTS) >= MIN_POINTS;
  const runsKey = withTag.map((r) => `${r.run}:${eligible(r) ? 1 : 0}`).join("\u0001");
  const wantPhases = o.phases && o.seen && o.loaded && single && stepAxis;
  const wantForecast = o.forecast && o.seen && o.loaded && single && stepAxis;

  useEffect(() => {
    if (!wantPhases) {
      setPhases([]);
      return;
    }
    let live = true;
    const list = withTag.filter(eligible);
    Promise.allSettled(list.map((r) => fetchPhases(r.run, o.tag, o.tick))).then((res) => {
      if (!live) return;
      setPhases(list.flatMap((r, i) => (res[i].status === "fulfilled" ? [{ run: r.run, segments: (res[i] as PromiseFulfilledResult<Segment[]>).value }] : [])));
      const bad = res.find((x) => x.status === "rejected") as PromiseRejectedResult | undefined;
      setFailed(bad ? `phases: ${String(bad.reason?.message ?? bad.reason)}` : "");
    });
    return () => {
      live = false;
    };
  }, [wantPhases, runsKey, o.tag, o.tick]);

  useEffect(() => {
    if (!wantForecast) {
      setForecasts([]);
      return;
    }
    let live = true;
    const list = withTag.filter(eligible);
    Promise.allSettled(list.map((r) => fetchForecast(r.run, o.tag, o.tick))).then((res) => {
      if (!live) return;
      setForecasts(
        list.flatMap((r, i) => {
          const x = res[i];
          return x.status === "fulfilled" && x.value && Array.isArray(x.value.step) ? [{ run: r.run, colour: r.colour, forecast: x.value }] : [];
        }),
      );
      const bad = res.find((x) => x.status === "rejected") as PromiseRejectedResult | undefined;
      setFailed(bad ? `forecast: ${String(bad.reason?.message ?? bad.reason)}` : "");
    });
    return () => {
      live = false;
    };
  }, [wantForecast, runsKey, o.tag, o.tick]);

  // Alerts of the card's series, in the chart's x units.
  const marks = useMemo(() => {
    const out: AlertMark[] = [];
    const many = o.runs.length > 1;
    for (const r of o.runs) {
      for (const [t, scale] of [[o.tag, "y"], ...(o.tag2 ? [[o.tag2, "y2"]] : [])] as [string, "y" | "y2"][]) {
        for (const a of stream.bySeries.get(`${r.run}\u0000${t}`) ?? []) {
          const x = alertX(a, o.xAxis, o.start(r.run));
          if (x != null && Number.isFinite(x)) out.push({ x, alert: a, scale, many });
        }
      }
    }
    return out;
  }, [stream.version, o.runs, o.tag, o.tag2, o.xAxis, o.loaded]);

  const bands = useMemo(() => phaseBands(phases), [phases]);
  const ref = useRef<Overlay>({ alerts: [], phases: [], forecasts: [], focusX: null });
  ref.current = { ...ref.current, alerts: marks, phases: bands, forecasts };
  const end = forecastEnd(forecasts);
  let note = "";
  if ((o.phases || o.forecast) && !single) note = "phases and forecasts are drawn on single-tag charts";
  else if ((o.phases || o.forecast) && !stepAxis) note = "phases and forecasts need the step x axis";
  else if ((o.phases || o.forecast) && o.loaded && withTag.length && !withTag.some(eligible)) note = `phases and forecasts need ${MIN_POINTS} finite points or more`;
  else if (failed && ((o.phases && !bands.length) || (o.forecast && !forecasts.length))) note = failed;
  return {
    ref,
    version: `${stream.version}|${phases.length}:${bands.length}|${forecasts.length}:${end}`,
    counts: { alerts: marks.length, phases: bands.length, forecast: forecasts.length > 0 },
    note,
    view: (data) => {
      const xs = data[0] as ArrayLike<number>;
      if (!forecasts.length || !xs.length || !(end > xs[xs.length - 1])) return null;
      return [xs[0], end + (end - xs[0]) * 0.02];
    },
  };
}

/**
 * An alert link's zoom: when the URL's focus names this card's tag, the chart zooms on the step once its
 * data is in (and a vertical line marks it); resetting the zoom clears the focus.
 */
function useFocus(
  tag: string,
  hover: ReadonlyArray<{ x: ArrayLike<number>; step: ArrayLike<number> }> | null,
  zoom: [number, number] | null,
  setZoom: (z: [number, number] | null) => void,
  overlay: OverlayState,
): void {
  const [focus, setFocus] = useUrlState<unknown[]>(FOCUS_KEY, []);
  const applied = useRef<string>("");
  const zoomed = useRef(false);
  const key = focusNames(focus, tag) ? `${tag}@${focus[1]}` : "";
  const step = key ? (focus[1] as number) : null;
  useEffect(() => {
    if (step == null || !hover || !hover.length || applied.current === key) return;
    // The step's x: from the first curve holding a point at (or nearest) that step.
    let x = NaN;
    let lo = Infinity;
    let hi = -Infinity;
    let best = Infinity;
    for (const h of hover) {
      for (let i = 0; i < h.x.length; i++) {
        const xi = h.x[i];
        if (!Number.isFinite(xi)) continue;
        if (xi < lo) lo = xi;
        if (xi > hi) hi = xi;
        const d = Math.abs(h.step[i] - step);
        if (d < best) {
          best = d;
          x = xi;
        }
      }
    }
    if (!Number.isFinite(x)) return;
    applied.current = key;
    zoomed.current = false;
    overlay.ref.current = { ...overlay.ref.current, focusX: x };
    setZoom(focusRange(x, lo, hi));
  }, [key, hover]);
  useEffect(() => {
    if (!key || applied.current !== key) return;
    if (zoom) zoomed.current = true;
    else if (zoomed.current) {
      // The user reset the zoom: the link's spot is no longer what is shown.
      applied.current = "";
      overlay.ref.current = { ...overlay.ref.current, focusX: null };
      setFocus([]);
    }
  }, [zoom, key]);
  if (!key) overlay.ref.current = { ...overlay.ref.current, focusX: null };
}

/** The forecasts' expected values and bands, for the chart's y range (the dashed line must stay in view). */
function forecastExtras(ov: Overlay): ExtraY[] {
  return ov.forecasts.map(({ forecast: f }) => ({ x: f.step, expected: f.value, low: f.low, high: f.high }));
}

/** Phases as faint bands behind the curves (one lane per run), labelled where wide enough. */
function drawBack(u: uPlot, ov: Overlay): void {
  if (!ov.phases.length) return;
  const { left, top, width, height } = u.bbox;
  const dpr = devicePixelRatio || 1;
  const ctx = u.ctx;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  ctx.font = `${10 * dpr}px system-ui, sans-serif`;
  ctx.textBaseline = "top";
  ctx.textAlign = "left"; // uPlot leaves the y axis' alignment set
  for (const b of ov.phases) {
    const p0 = Math.max(left, u.valToPos(b.x0, "x", true));
    const p1 = Math.min(left + width, u.valToPos(b.x1, "x", true));
    if (!(p1 > p0)) continue;
    const laneH = height / b.lanes;
    const y = top + b.lane * laneH;
    ctx.fillStyle = withAlpha(PHASE_COLOURS[b.phase], 0.14);
    ctx.fillRect(p0, y, p1 - p0, laneH);
    const label = PHASE_LABELS[b.phase];
    if (b.lanes === 1 && p1 - p0 > ctx.measureText(label).width + 8 * dpr) {
      // A loss curve starts high and ends low: early phases are labelled at the bottom, convergence at the top.
      ctx.fillStyle = withAlpha(PHASE_COLOURS[b.phase], 0.9);
      ctx.fillText(label, p0 + 4 * dpr, b.phase === "convergence" ? y + 3 * dpr : y + laneH - 14 * dpr);
    }
  }
  ctx.restore();
}

const ALERT_COLOUR = "#e5484d";

/** The forecast (dashed, with its band), the alert markers and the focused step's line, over the curves. */
function drawFront(u: uPlot, ov: Overlay): void {
  const { left, top, width, height } = u.bbox;
  const dpr = devicePixelRatio || 1;
  const ctx = u.ctx;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  for (const { colour, forecast: f } of ov.forecasts) {
    const n = Math.min(f.step.length, f.value.length);
    if (!n) continue;
    const px = (i: number) => u.valToPos(f.step[i], "x", true);
    const py = (v: number) => u.valToPos(v, "y", true);
    if (f.low.length >= n && f.high.length >= n) {
      ctx.fillStyle = withAlpha(colour, 0.15);
      ctx.beginPath();
      for (let i = 0; i < n; i++) (i ? ctx.lineTo : ctx.moveTo).call(ctx, px(i), py(f.high[i]));
      for (let i = n - 1; i >= 0; i--) ctx.lineTo(px(i), py(f.low[i]));
      ctx.closePath();
      ctx.fill();
    }
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1.5 * dpr;
    ctx.setLineDash([6 * dpr, 4 * dpr]);
    ctx.beginPath();
    for (let i = 0; i < n; i++) (i ? ctx.lineTo : ctx.moveTo).call(ctx, px(i), py(f.value[i]));
    ctx.stroke();
    ctx.setLineDash([]);
  }
  if (ov.focusX != null) {
    const fx = u.valToPos(ov.focusX, "x", true);
    ctx.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue("--accent").trim() || "#3b82f6";
    ctx.globalAlpha = 0.7;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    ctx.moveTo(fx, top);
    ctx.lineTo(fx, top + height);
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  const r = 5 * dpr;
  for (const m of ov.alerts) {
    const px = u.valToPos(m.x, "x", true);
    if (!(px >= left - r && px <= left + width + r)) continue;
    const v = m.alert.value;
    const finite = v != null && Number.isFinite(v) && m.alert.kind !== "nan" && m.alert.kind !== "inf";
    let py = finite ? u.valToPos(v!, m.scale, true) : NaN;
    ctx.strokeStyle = ALERT_COLOUR;
    ctx.fillStyle = withAlpha(ALERT_COLOUR, 0.25);
    ctx.lineWidth = 2 * dpr;
    const low = m.alert.kind === "nan" || (m.alert.kind === "inf" && v != null && v < 0) || (Number.isFinite(py) && py > top + height);
    if (Number.isFinite(py) && py >= top && py <= top + height) {
      // A ring around the point that fired.
      ctx.beginPath();
      ctx.arc(px, py, r, 0, Math.PI * 2);
      ctx.fill();
      ctx.stroke();
    } else {
      // No drawable value: a diamond on the edge, where the non-finite markers are (NaN, -Inf and values
      // below the scale at the bottom; +Inf, values above it and stalled series at the top).
      py = low ? top + height - 1 - 1.8 * r : top + r + 1;
      ctx.beginPath();
      ctx.moveTo(px, py - r);
      ctx.lineTo(px + r, py);
      ctx.lineTo(px, py + r);
      ctx.lineTo(px - r, py);
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    }
  }
  ctx.restore();
}

/** Tooltip lines at cursor x `x` (pixel `left`): alerts within 6 px, each run's phase, forecast values. */
function notes(u: uPlot, ov: Overlay, x: number, left: number): string[] {
  const out: string[] = [];
  const fmt = (v: number) => formatNumber(v);
  for (const m of ov.alerts) {
    if (Math.abs(u.valToPos(m.x, "x") - left) > 6) continue;
    const a = m.alert;
    const range = formatRange(...expectedRange(a), fmt);
    out.push(
      `Alert: ${a.kind} ${formatAlertValue(a, fmt)} at step ${formatStep(a.step)}${range ? `, expected ${range}` : ""}${m.many ? ` (${a.run})` : ""}`,
    );
  }
  const runs = [...new Set(ov.phases.map((b) => b.run))];
  for (const run of runs) {
    const p = phaseAt(ov.phases, run, x);
    if (p) out.push(`Phase: ${PHASE_LABELS[p]}${runs.length > 1 ? ` (${run})` : ""}`);
  }
  for (const { run, forecast: f } of ov.forecasts) {
    const n = f.step.length;
    if (!n || x < f.step[0] || x > f.step[n - 1]) continue;
    let i = 0;
    while (i < n - 1 && f.step[i + 1] <= x) i++;
    out.push(`Forecast: ${fmt(f.value[i])} (${fmt(f.low[i])} – ${fmt(f.high[i])})${ov.forecasts.length > 1 ? ` (${run})` : ""}`);
    out.push(`Expected final: ${forecastText(f, fmt, formatStep)}`);
  }
  return out;
}

/**
 * The card header's note on forecasts: the expected final value (one run) or how many runs have one, each
 * run's final value with its range in the title; and why phases or forecasts are not drawn, when asked for.
 */
function ForecastLegend({ overlay }: { overlay: OverlayState }) {
  const list = overlay.ref.current.forecasts;
  if (!list.length && !overlay.note) return null;
  const lines = list.map(({ run, forecast }) => `${run}: ${forecastText(forecast, (v) => formatNumber(v), formatStep)}`);
  const only = list.length === 1 ? list[0].forecast.final : null;
  return (
    <>
      {list.length > 0 && (
        <span class="rl-badge rl-insight-forecast" data-testid="forecast-final" data-value={only ? String(only.value) : ""} title={`Expected final values (dashed, with a 90% band):\n${lines.join("\n")}`}>
          <span class="rl-insight-dash" />
          {only ? `→ ${formatNumber(only.value)} at step ${formatStep(only.step)}` : `forecast ×${list.length}`}
        </span>
      )}
      {overlay.note && (
        <span class="rl-card-note" data-testid="insight-note">
          {overlay.note}
        </span>
      )}
    </>
  );
}

/** The insights on a scalar card, as the shell's card overlay registry takes them. */
export function useInsightsCardOverlay(c: OverlayContext): CardOverlay {
  const insights = useInsightOverlay({
    tag: c.tag,
    tag2: c.tag2,
    runs: c.runs,
    keys: c.keys,
    seen: c.seen,
    loaded: c.loaded,
    values: c.values,
    start: c.start,
    tick: c.tick,
    xAxis: c.settings.xAxis,
    phases: c.settings.phases,
    forecast: c.settings.forecast,
  });
  useFocus(c.tag2 ? "" : c.tag, c.hover, c.zoom, c.setZoom, insights);
  const ov = insights.ref;
  return {
    version: insights.version,
    yExtra: () => forecastExtras(ov.current),
    drawBack: (u) => drawBack(u, ov.current),
    drawFront: (u) => drawFront(u, ov.current),
    notes: (u, x, left) => notes(u, ov.current, x, left),
    view: insights.view,
    legend: <ForecastLegend overlay={insights} />,
    attributes: {
      "data-alerts": String(insights.counts.alerts),
      "data-phases": String(insights.counts.phases),
      "data-forecast": String(insights.counts.forecast),
    },
  };
}
