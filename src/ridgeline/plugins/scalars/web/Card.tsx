/**
 * One scalar card: a tag (or two tags on two y axes) for the selected runs. Loads when scrolled into view,
 * draws through one reused uPlot instance, refetches the zoomed step range at full resolution, appends live
 * data on every tick, and exposes data-ready / data-points for tests and benchmarks.
 */
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { apiUrl } from "@api/client";
import { Plot, type XMode } from "@charts/plot";
import { formatDuration, formatNumber, formatStep, formatWallTime } from "@charts/format";
import { tooltipHtml } from "@charts/tooltip";
import { downloadText, safeFileName, toCsv, toJson } from "@charts/export";
import { cache, fetchAnnotations, fetchSeries, seriesKey, type Annotation, type SeriesData } from "./data";
import { buildModel, type ChartModel, type RunSeries } from "./model";
import { yFixed, type Settings } from "./settings";
import { useCachedSeries } from "./useCachedSeries";
import { useZoomData } from "./useZoomData";
import { hoverRows, placeTooltip } from "./hover";
import { useLazyCard, useReadyFlag } from "@charts/lazyCard";
import { deleteTestEntry, setTestEntry } from "@web/testHooks";
import { drawBack, drawFront, forecastExtras, ForecastLegend, notes as insightNotes, useFocus, useInsightOverlay, type Overlay } from "../../insights/web/overlay";

export interface CardProps {
  tag: string;
  /** A second tag on the right y axis (the combined chart). */
  tag2?: string | null;
  runs: RunInfo[];
  settings: Settings;
  groups: Map<string, string[]> | null;
  groupColour: (label: string) => string;
  tick: number;
  theme: "light" | "dark";
  pinned: boolean;
  expanded: boolean;
  /** Called with the card's tag (stable callbacks let an unchanged card skip re-rendering). */
  onPin?: (tag: string) => void;
  /** Called with the card's id (the tag, or "A ⇄ B" for the combined card). */
  onExpand?: (id: string) => void;
  onClose?: () => void;
  /** Load and draw before being scrolled into view (pages with few cards). */
  eager?: boolean;
}

const HEIGHT = 220;
const TOOLTIP_ROWS = 8;

/** Each run's scalar tags as a set (a card asks per run and tag: `includes` over 10,000 tags was O(n) each). */
const tagSets = new WeakMap<string[], Set<string>>();
function scalarTags(r: RunInfo): Set<string> {
  const list = r.tags.scalars ?? [];
  let set = tagSets.get(list);
  if (!set) tagSets.set(list, (set = new Set(list)));
  return set;
}

/** A card re-renders only when one of its props changes (not for every change of the page around it). */
export const Card = memo(CardView);

function CardView(props: CardProps) {
  const { tag, tag2, runs, settings, tick } = props;
  const id = tag2 ? `${tag} ⇄ ${tag2}` : tag;
  const cardRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<HTMLDivElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<Plot | null>(null);
  const modelRef = useRef<ChartModel | null>(null);
  const annRef = useRef<{ x: number; text: string; colour: string }[]>([]);
  const [visible, setVisible] = useState(false);
  const [width, setWidth] = useState(400);
  const sized = useRef(false); // the ResizeObserver has reported the chart's width
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const [ready, setReady] = useState(false);
  const [annotations, setAnnotations] = useState<Map<string, Annotation[]>>(new Map());
  const settingsRef = useRef(settings);
  settingsRef.current = settings;

  const xAxis = settings.xAxis;
  const xTag = xAxis === "tag" ? settings.xTag : null;
  const keys = useMemo(() => {
    const ks: { run: string; tag: string }[] = [];
    for (const r of runs) {
      const tags = scalarTags(r);
      const has = (t: string) => tags.has(t);
      if (has(tag)) ks.push({ run: r.run, tag });
      if (tag2 && has(tag2)) ks.push({ run: r.run, tag: tag2 });
      if (xTag && has(xTag) && xTag !== tag) ks.push({ run: r.run, tag: xTag });
    }
    return ks;
  }, [runs, tag, tag2, xTag]);
  const maxPoints = pointsFor(width);

  // Visibility: cards render only when scrolled into view (and stay rendered once seen); loaded from a little
  // before it scrolls into view, counted as on screen (for chartsReady) only once it is.
  const seen = useLazyCard(cardRef, id, { eager: !!props.eager, near: "200px 0px", view: "0px", onVisible: setVisible });
  useEffect(() => {
    const ro = new ResizeObserver(() => {
      const w = chartRef.current?.clientWidth ?? 0;
      if (w > 0) {
        sized.current = true;
        setWidth(w);
      }
    });
    if (chartRef.current) ro.observe(chartRef.current);
    return () => ro.disconnect();
  }, [id]);

  // In the commit that drew (uPlot draws in a microtask queued before this one), not after the next paint.
  useReadyFlag(id, ready);

  // Load (full range, reduced to about the card's width, measured as the load starts: at the resolution the
  // ResizeObserver will report, so its report does not refetch), then append live data on every tick.
  const { loaded, version } = useCachedSeries(seen, keys, maxPoints, !!props.eager, tick, () => setReady(false), () => {
    const measured = chartRef.current?.clientWidth ?? 0;
    return !sized.current && measured > 0 ? pointsFor(measured) : maxPoints;
  });

  // Annotations of the shown runs, once the series are in: one request per run must not queue the series'
  // batch behind it (a browser opens 6 connections per host; 100 runs made the first chart wait ~0.5 s).
  useEffect(() => {
    if (!seen || !loaded) return;
    let live = true;
    const annotated = runs.filter((r) => r.annotations > 0);
    Promise.all(annotated.map((r) => fetchAnnotations(r.run, tick).then((a) => [r.run, a] as const))).then((list) => {
      if (live) setAnnotations(new Map(list.filter(([, a]) => a.length)));
    });
    return () => {
      live = false;
    };
  }, [seen, loaded, runs, tick]);

  // Zoom: refetch the visible step range at full resolution (reduced to the width only if still larger).
  const zoomData = useZoomData(zoom, keys, maxPoints, modelRef);
  useEffect(() => setZoom(null), [xAxis, xTag, settings.xLog]);

  const model = useMemo(() => {
    if (!loaded) return null;
    const list: RunSeries[] = [];
    const get = (run: string, t: string): SeriesData | null => {
      const z = zoomData?.get(seriesKey(run, t));
      return z ?? cache.get(run, t)?.data ?? null;
    };
    // A zoomed-in window is smoothed as the continuation of the whole run (as drawn before zooming).
    const contextOf = (run: string, t: string): SeriesData | null =>
      zoomData?.has(seriesKey(run, t)) ? cache.get(run, t)?.data ?? null : null;
    for (const r of runs) {
      const full = cache.get(r.run, tag)?.data;
      const start = full?.wall.length ? full.wall[0] : 0;
      const xData = xTag ? cache.get(r.run, xTag)?.data ?? null : null;
      const d = get(r.run, tag);
      if (d) list.push({ run: r.run, colour: r.colour, data: d, start, xData, suffix: tag2 ? tag : undefined, context: contextOf(r.run, tag) });
      if (tag2) {
        const d2 = get(r.run, tag2);
        const full2 = cache.get(r.run, tag2)?.data;
        if (d2)
          list.push({
            run: r.run,
            colour: r.colour,
            data: d2,
            start: full2?.wall.length ? full2.wall[0] : start,
            xData,
            scale: "y2",
            suffix: tag2,
            context: contextOf(r.run, tag2),
          });
      }
    }
    return buildModel(list, {
      smoothing: settings.smoothing,
      smoother: settings.smoother,
      xAxis,
      yLog: settings.yScale === "log",
      xLog: settings.xLog,
      groups: tag2 ? null : props.groups,
      groupBand: settings.groupBand,
      groupColour: props.groupColour,
      width,
    });
  }, [loaded, version, zoomData, runs, tag, tag2, xTag, settings, props.groups, width]);
  modelRef.current = model;

  // Insights: alert markers, phase bands, the forecast, and the zoom an alert link asked for.
  const insights = useInsightOverlay({
    tag,
    tag2,
    runs,
    keys,
    seen,
    loaded,
    values: (run) => cache.get(run, tag)?.data?.value,
    start: (run) => cache.get(run, tag)?.data?.wall[0] ?? 0,
    tick,
    xAxis,
    phases: settings.phases,
    forecast: settings.forecast,
  });
  const insRef = insights.ref;
  useFocus(tag2 ? "" : tag, model?.hover ?? null, zoom, setZoom, insights);

  // Annotation positions in the chart's x units.
  useEffect(() => {
    const list: { x: number; text: string; colour: string }[] = [];
    for (const r of runs) {
      const anns = annotations.get(r.run);
      if (!anns) continue;
      const full = cache.get(r.run, tag)?.data;
      const start = full?.wall.length ? full.wall[0] : 0;
      for (const a of anns) {
        const x = xAxis === "step" ? a.step : xAxis === "wall" ? a.wall_time : xAxis === "relative" ? a.wall_time - start : NaN;
        if (Number.isFinite(x)) list.push({ x, text: a.text, colour: r.colour });
      }
    }
    annRef.current = list;
    plotRef.current?.u.redraw(false, false);
  }, [annotations, runs, xAxis, version]);

  // Draw: create uPlot when the structure or axes change, else setData.
  const fixed = useMemo(
    () => yFixed(settings),
    [settings.yMin, settings.yMax],
  );
  const plotKey = model
    ? // xTag: the x axis is labelled with it (it was left blank when the tag was chosen after "another tag").
      [model.structure, xAxis, xTag ?? "", settings.xLog, settings.yScale, tag2 ?? ""].join("|")
    : "";
  const plotKeyRef = useRef("");
  useLayoutEffect(() => {
    const el = chartRef.current;
    if (!model || !el) return;
    const w = Math.max(200, el.clientWidth || width);
    let plot = plotRef.current;
    if (!plot || plotKeyRef.current !== plotKey) {
      plot?.destroy();
      el.querySelectorAll(".uplot").forEach((n) => n.remove());
      plot = new Plot(
        el,
        {
          width: w,
          height: props.expanded ? 360 : HEIGHT,
          xMode: (xAxis === "tag" ? "value" : xAxis) as XMode,
          xLabel: xAxis === "tag" ? settings.xTag : undefined,
          xLog: settings.xLog,
          yLog: settings.yScale === "log",
          y2Log: settings.yScale === "log",
          yLabel: tag2 ? tag : undefined,
          y2Label: tag2 ?? undefined,
          yFixed: fixed,
          ignoreOutliers: settings.outliers,
          syncKey: xAxis === "tag" ? null : `ridgeline-scalars-${xAxis}`,
          lines: model.lines,
          bands: model.bands,
          yExtra: () => forecastExtras(insRef.current),
          onZoom: (r) => setZoom(r),
          onCursor: (u, own) => onCursor(u, own, tipRef.current, modelRef.current, annRef.current, settingsRef.current, insRef.current),
          // Theme changes redraw through the plot's own observer of <html data-theme>.
          onDraw: (u) => {
            drawExtras(u, modelRef.current, annRef.current);
            drawFront(u, insRef.current);
          },
          onDrawBack: (u) => drawBack(u, insRef.current),
        },
        model.data,
      );
      plotRef.current = plot;
      plotKeyRef.current = plotKey;
      const view = zoom ?? insights.view(model.data);
      if (view) plot.setData(model.data, view);
    } else {
      plot.cfg.yFixed = fixed;
      plot.cfg.ignoreOutliers = settings.outliers;
      plot.setData(model.data, zoom ?? insights.view(model.data));
    }
    setTestEntry("charts", id, plot.u);
    setTestEntry(
      "series",
      id,
      model.hover.map((h) => ({ run: h.label, x: h.x, raw: h.raw, smoothed: h.smoothed, reduced: model.reduced })),
    );
    setReady(true);
  }, [model, plotKey, fixed, settings.outliers, zoom, insights.version]);

  useEffect(() => {
    plotRef.current?.setSize(Math.max(200, chartRef.current?.clientWidth ?? width), props.expanded ? 360 : HEIGHT);
  }, [width, props.expanded]);

  useEffect(
    () => () => {
      plotRef.current?.destroy();
      plotRef.current = null;
      deleteTestEntry("charts", id);
      deleteTestEntry("series", id);
    },
    [],
  );

  const nf = model?.nonfinite;
  const nfTotal = nf ? nf.nan + nf.inf + nf.ninf : 0;
  const download = async (kind: "csv" | "json") => {
    const tags = [tag, ...(tag2 ? [tag2] : [])];
    const ks = keys.filter((k) => tags.includes(k.tag));
    const m = await fetchSeries(ks, {});
    const list = ks.flatMap((k) => {
      const d = m.get(seriesKey(k.run, k.tag));
      if (!d || d instanceof Error) return [];
      return [{ run: k.run, tag: k.tag, step: d.step, wall_time: d.wall, value: Array.from(d.value, (v) => (Number.isFinite(v) ? v : null)), nonfinite: d.nonfinite }];
    });
    const name = safeFileName(tags.join("_"));
    if (kind === "csv") downloadText(toCsv(list), `${name}.csv`, "text/csv");
    else downloadText(toJson(list), `${name}.json`, "application/json");
  };

  return (
    <div
      ref={cardRef}
      class={`rl-card${props.expanded ? " rl-card-expanded" : ""}${props.pinned ? " rl-card-pinned" : ""}`}
      data-testid="scalar-card"
      data-tag={tag2 ? id : tag}
      data-ready={ready && visible !== undefined ? "true" : "false"}
      data-points={String(model?.points ?? 0)}
      data-alerts={String(insights.counts.alerts)}
      data-phases={String(insights.counts.phases)}
      data-forecast={String(insights.counts.forecast)}
    >
      <header class="rl-card-head">
        <h3 class="rl-card-title" title={id}>
          {tag2 ? (
            <>
              {tag} <span class="rl-muted">(left)</span> · {tag2} <span class="rl-muted">(right, dashed)</span>
            </>
          ) : (
            tag
          )}
        </h3>
        {nfTotal > 0 && (
          <span class="rl-badge rl-badge-warn" title="Non-finite values, drawn as markers on the chart's edges: ▲ +Inf at the top, ▼ -Inf and ✕ NaN at the bottom (hover one for its step)">
            {nfTotal} non-finite ({[nf!.nan && `${nf!.nan} NaN`, nf!.inf && `${nf!.inf} +Inf`, nf!.ninf && `${nf!.ninf} -Inf`].filter(Boolean).join(", ")})
          </span>
        )}
        {model?.reduced && !zoomData && (
          <span
            class="rl-badge"
            data-testid="reduced"
            title="The server reduced this series to about two points per pixel. The shaded band around the line shows the minimum and maximum of each bucket of points, so no spike is hidden. Drag across the chart to zoom in: the zoomed range is shown at full resolution."
          >
            reduced
          </span>
        )}
        {!!model?.nonPositive && (
          <span class="rl-card-note" data-testid="log-skipped" title="A logarithmic axis cannot show zero or negative values: they are left out of the chart.">
            {model.nonPositive} value{model.nonPositive === 1 ? "" : "s"} ≤ 0 not drawn (log scale)
          </span>
        )}
        {!!model?.xNonPositive && (
          <span class="rl-card-note" data-testid="log-x-skipped" title="A logarithmic x axis cannot show x ≤ 0 (such as step 0): those points are left out.">
            {model.xNonPositive} point{model.xNonPositive === 1 ? "" : "s"} at x ≤ 0 not drawn (log x)
          </span>
        )}
        <ForecastLegend overlay={insights} />
        {zoom && (
          <button type="button" class="rl-icon" onClick={() => setZoom(null)} title="Reset zoom (or double-click the chart)">
            Reset zoom
          </button>
        )}
        <span class="rl-card-actions">
          {props.onPin && (
            <button type="button" class="rl-icon" aria-pressed={props.pinned} aria-label={props.pinned ? `Unpin ${id}` : `Pin ${id} to the top`} title={props.pinned ? "Unpin" : "Pin to the top"} onClick={() => props.onPin?.(tag)}>
              {props.pinned ? "★" : "☆"}
            </button>
          )}
          {props.onExpand && (
            <button type="button" class="rl-icon" aria-pressed={props.expanded} aria-label={props.expanded ? `Shrink ${id}` : `Expand ${id} to full width`} title={props.expanded ? "Shrink" : "Full width"} onClick={() => props.onExpand?.(id)}>
              ⤢
            </button>
          )}
          <button type="button" class="rl-icon" aria-label={`Download ${id} as CSV`} title="Download CSV (full resolution)" onClick={() => void download("csv")}>
            CSV
          </button>
          <button type="button" class="rl-icon" aria-label={`Download ${id} as JSON`} title="Download JSON (full resolution)" onClick={() => void download("json")}>
            JSON
          </button>
          {runs.length === 1 && !tag2 && (
            <a class="rl-icon" href={apiUrl("/api/scalars.csv", { run: runs[0].run, tag })} download title="The server's CSV download">
              ⇩
            </a>
          )}
          {props.onClose && (
            <button type="button" class="rl-icon" aria-label="Close the combined chart" onClick={props.onClose}>
              ✕
            </button>
          )}
        </span>
      </header>
      <div class="rl-chart" ref={chartRef} style={{ height: `${props.expanded ? 360 : HEIGHT}px` }}>
        {!model && <div class="rl-loading">{seen ? "Loading…" : ""}</div>}
        {model && model.points === 0 && <div class="rl-loading">No data for the selected runs</div>}
        <div class="rl-tooltip" ref={tipRef} role="tooltip" hidden />
      </div>
    </div>
  );
}

/** How many points to ask for a chart `width` pixels wide. */
function pointsFor(width: number): number {
  // About two points per pixel of the chart: a series is reduced (and marked so) only when it has more.
  return Math.max(200, Math.round(2 * width));
}


function onCursor(
  u: uPlot,
  own: boolean,
  tip: HTMLDivElement | null,
  model: ChartModel | null,
  anns: { x: number; text: string; colour: string }[],
  settings: Settings,
  overlay: Overlay,
): void {
  if (!tip) return;
  const left = u.cursor.left;
  if (!own || !model || left == null || left < 0) {
    tip.hidden = true;
    return;
  }
  const x = u.posToVal(left, "x");
  const rows = hoverRows(u, model, x, u.cursor.top ?? 0);
  const xm = settings.xAxis;
  const header =
    xm === "step" ? `step ${formatStep(x)}` : xm === "wall" ? formatWallTime(x) : xm === "relative" ? formatDuration(x) : `${settings.xTag} = ${formatNumber(x)}`;
  const near = (mx: number) => Math.abs(u.valToPos(mx, "x") - left) <= 5;
  const kinds = { nan: "NaN", inf: "+Inf", "-inf": "-Inf" } as const;
  const many = model.hover.length > 1;
  const notes = [
    ...new Set([
      ...model.markers.filter((m) => near(m.x)).map((m) => `${kinds[m.kind]} at step ${formatStep(m.step)}${many ? ` (${m.label})` : ""}`),
      ...anns.filter((a) => near(a.x)).map((a) => `Annotation: ${a.text}`),
      ...insightNotes(u, overlay, x, left),
    ]),
  ];
  tip.innerHTML = tooltipHtml(header, rows, settings.tooltipSort, TOOLTIP_ROWS, notes);
  placeTooltip(u, tip, left);
}

/** Non-finite markers and annotation lines, on the chart's canvas. */
function drawExtras(u: uPlot, model: ChartModel | null, anns: { x: number; text: string; colour: string }[]): void {
  if (!model) return;
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const dpr = devicePixelRatio || 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  for (const a of anns) {
    const px = u.valToPos(a.x, "x", true);
    if (!(px >= left && px <= left + width)) continue;
    ctx.strokeStyle = a.colour;
    ctx.globalAlpha = 0.8;
    ctx.lineWidth = 1 * dpr;
    ctx.setLineDash([4 * dpr, 3 * dpr]);
    ctx.beginPath();
    ctx.moveTo(px, top);
    ctx.lineTo(px, top + height);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = a.colour;
    ctx.beginPath();
    ctx.arc(px, top + 5 * dpr, 3.5 * dpr, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  const s = 5 * dpr;
  for (const m of model.markers) {
    const px = u.valToPos(m.x, "x", true);
    if (!(px >= left - s && px <= left + width + s)) continue;
    ctx.fillStyle = m.colour;
    ctx.strokeStyle = m.colour;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    if (m.kind === "inf") {
      ctx.moveTo(px, top + 1);
      ctx.lineTo(px - s, top + 1 + 1.6 * s);
      ctx.lineTo(px + s, top + 1 + 1.6 * s);
      ctx.closePath();
      ctx.fill();
    } else if (m.kind === "-inf") {
      const b = top + height - 1;
      ctx.moveTo(px, b);
      ctx.lineTo(px - s, b - 1.6 * s);
      ctx.lineTo(px + s, b - 1.6 * s);
      ctx.closePath();
      ctx.fill();
    } else {
      // NaN: a cross on the bottom edge (non-finite markers live on the edges, never among the values).
      const y = top + height - 1 - 0.8 * s;
      ctx.moveTo(px - s, y - s);
      ctx.lineTo(px + s, y + s);
      ctx.moveTo(px + s, y - s);
      ctx.lineTo(px - s, y + s);
      ctx.stroke();
    }
  }
  ctx.restore();
}
