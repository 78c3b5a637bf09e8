/**
 * One chart of a custom scalars layout: a multiline chart (every scalar tag its regexes match, for each selected
 * run: runs in their colours, tags told apart by dash pattern, named in the legend) or a margin chart (a value
 * line with a band filled between its lower and upper tags). Drawn with the shell's chart code, as the scalars
 * cards are: the series cache and batched binary requests (@charts/series), the line model and smoothing
 * (@charts/lines), the plot's lifecycle (@charts/usePlot) and the ready registry. Loads when scrolled near;
 * appends live data on every tick; a zoomed-in window is fetched again at full resolution.
 */
import { memo } from "preact/compat";
import { useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { formatDuration, formatStep, formatWallTime } from "@charts/format";
import { useLazyCard, useReadyFlag } from "@charts/lazyCard";
import { hoverRows, placeTooltip } from "@charts/lines/hover";
import { buildModel, type ChartModel, type RunSeries } from "@charts/lines/model";
import { yFixed, type Settings } from "@charts/lines/settings";
import type { XMode } from "@charts/plot";
import { cache, seriesKey, type SeriesData } from "@charts/series/data";
import { pointsFor, useCachedSeries } from "@charts/series/useCachedSeries";
import { useZoomData } from "@charts/series/useZoomData";
import { tooltipHtml } from "@charts/tooltip";
import { useChartWidth, usePlot } from "@charts/usePlot";
import { ChartPictureButtons } from "@charts/ChartPictureButtons";
import { buildMarginModel, chartId, chartKeys, dashArray, dashFor, multilineTags, type ChartSpec, type MarginInput } from "./chart";

export interface ChartCardProps {
  category: string;
  chart: ChartSpec;
  runs: RunInfo[];
  settings: Settings;
  tick: number;
  /** Load and draw before being scrolled into view (pages with few charts). */
  eager: boolean;
}

const HEIGHT = 240;
const TOOLTIP_ROWS = 10;

export const ChartCard = memo(ChartCardView);

function ChartCardView({ category, chart, runs, settings, tick, eager }: ChartCardProps) {
  const id = chartId(category, chart);
  const handle = `${category}/${chart.title}`;
  const cardRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<HTMLDivElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const modelRef = useRef<ChartModel | null>(null);
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const [ready, setReady] = useState(false);

  const keys = useMemo(() => chartKeys(chart, runs), [chart, runs]);
  const tags = useMemo(() => (chart.kind === "multiline" ? multilineTags(chart, runs) : []), [chart, runs]);
  const drawable = keys.length > 0;

  const seen = useLazyCard(cardRef, id, { eager, near: "200px 0px", view: "0px" });
  const { width } = useChartWidth(chartRef, 420, id);
  const maxPoints = pointsFor(width);

  // A chart with nothing to draw (no matching tag, an empty chart) is ready as soon as it says so.
  const shownReady = ready || (seen && !drawable);
  useReadyFlag(id, shownReady);

  const { loaded, version } = useCachedSeries(seen && drawable, keys, maxPoints, eager, tick, () => setReady(false));
  const zoomData = useZoomData(zoom, keys, maxPoints, modelRef);

  const model = useMemo((): ChartModel | null => {
    if (!loaded || !drawable) return null;
    const xAxis = settings.xAxis === "tag" ? "step" : settings.xAxis;
    const whole = (run: string, t: string): SeriesData | null => cache.get(run, t)?.data ?? null;
    // Zoomed in: the window at full resolution; relative time still counts from the run's first point.
    const get = (run: string, t: string): SeriesData | null => zoomData?.get(seriesKey(run, t)) ?? whole(run, t);
    const startOf = (run: string, t: string): number => {
      const d = whole(run, t);
      return d?.wall.length ? d.wall[0] : 0;
    };
    if (chart.kind === "margin") {
      const inputs: MarginInput[] = [];
      for (const r of runs) {
        (chart.series ?? []).forEach((s, index) => {
          const value = get(r.run, s.value);
          if (!value) return;
          const [lower, upper] = [get(r.run, s.lower), get(r.run, s.upper)];
          inputs.push({ run: r.run, colour: r.colour, series: s, index, value, lower, upper, start: startOf(r.run, s.value) });
        });
      }
      return buildMarginModel(inputs, xAxis, settings.yScale === "log", width);
    }
    const list: RunSeries[] = [];
    for (const r of runs) {
      tags.forEach((t, i) => {
        const data = get(r.run, t);
        if (!data) return;
        // The window's smoothing continues the whole run's (as drawn before zooming).
        const context = zoomData?.has(seriesKey(r.run, t)) ? whole(r.run, t) : null;
        list.push({ run: r.run, colour: r.colour, data, start: startOf(r.run, t), suffix: t, dash: dashFor(i), context });
      });
    }
    return buildModel(list, {
      smoothing: settings.smoothing,
      smoother: settings.smoother,
      xAxis,
      yLog: settings.yScale === "log",
      groups: null,
      groupBand: settings.groupBand,
      groupColour: () => "",
      width,
    });
  }, [loaded, version, zoomData, runs, chart, tags, settings, width, drawable]);
  modelRef.current = model;

  const xMode: XMode = settings.xAxis === "tag" ? "step" : settings.xAxis;
  const plotKey = model ? [model.structure, xMode, settings.yScale].join("|") : "";
  const plotRef = usePlot(
    chartRef,
    {
      data: model?.data ?? null,
      key: plotKey,
      config: (w) => ({
        width: w,
        height: HEIGHT,
        xMode,
        xLog: false,
        yLog: settings.yScale === "log",
        yFixed: yFixed(settings),
        ignoreOutliers: settings.outliers,
        syncKey: `ridgeline-custom-scalars-${xMode}`,
        lines: model!.lines,
        bands: model!.bands,
        onZoom: (r) => setZoom(r),
        onCursor: (u, own) => showTooltip(u, own, tipRef.current, modelRef.current, settingsRef.current),
      }),
      yFixed: yFixed(settings),
      ignoreOutliers: settings.outliers,
      view: zoom,
      width,
      height: HEIGHT,
      testId: `custom_scalars:${handle}`,
      drawn: () => setReady(true),
    },
    [model, plotKey, zoom, settings.yMin, settings.yMax, settings.outliers],
  );

  const nf = model?.nonfinite;
  const nfTotal = nf ? nf.nan + nf.inf + nf.ninf : 0;
  return (
    <div
      ref={cardRef}
      class="rl-card rl-cs-card"
      data-testid="custom_scalars-card"
      data-tag={chart.title}
      data-category={category}
      data-kind={chart.kind}
      data-ready={shownReady ? "true" : "false"}
      data-points={String(model?.points ?? 0)}
    >
      <header class="rl-card-head">
        <h3 class="rl-card-title" title={`${chart.title} (${chart.kind})`}>
          {chart.title || <span class="rl-muted">(untitled)</span>}
        </h3>
        {nfTotal > 0 && <span class="rl-badge rl-badge-warn">{nfTotal} non-finite</span>}
        {model?.reduced && (
          <span class="rl-badge" data-testid="reduced" title="Reduced by the server to about two points per pixel; the band around a line shows each bucket's min and max.">
            reduced
          </span>
        )}
        {zoom && (
          <button type="button" class="rl-icon" onClick={() => setZoom(null)} title="Reset zoom (or double-click the chart)">
            Reset zoom
          </button>
        )}
        {drawable && (
          <span class="rl-card-actions">
            <ChartPictureButtons plot={plotRef} title={chart.title || handle} drawn={ready && !!model} />
          </span>
        )}
      </header>
      {(chart.errors ?? []).map((e) => (
        <p class="rl-card-note rl-cs-error" role="note" key={e}>
          {e}
        </p>
      ))}
      {drawable ? (
        <div class="rl-chart" ref={chartRef} style={{ height: `${HEIGHT}px` }}>
          {!model && <div class="rl-loading">{seen ? "Loading…" : ""}</div>}
          <div class="rl-tooltip" ref={tipRef} role="tooltip" hidden />
        </div>
      ) : (
        <div class="rl-cs-placeholder" ref={chartRef} data-testid="custom_scalars-placeholder">
          {placeholder(chart)}
        </div>
      )}
      <Legend chart={chart} tags={tags} />
    </div>
  );
}

function placeholder(chart: ChartSpec): string {
  if (chart.kind === "empty") return "This chart has neither tag regexes (multiline) nor value/lower/upper tags (margin).";
  if (chart.kind === "margin") {
    const wanted = (chart.series ?? []).map((s) => s.value).join(", ");
    return wanted ? `No selected run has the value tag ${wanted}.` : "This margin chart names no series.";
  }
  const regexes = (chart.tags ?? []).map((t) => JSON.stringify(t)).join(", ");
  return regexes ? `No scalar tag of the selected runs matches ${regexes}.` : "This chart names no tag regex.";
}

/** Which dash is which tag (multiline) or which series (margin: value, and its band's lower and upper tags). */
function Legend({ chart, tags }: { chart: ChartSpec; tags: string[] }) {
  const items =
    chart.kind === "margin"
      ? (chart.series ?? []).map((s, i) => ({ key: `${i}`, dash: dashFor(i), text: s.value, note: `band: ${s.lower} – ${s.upper}` }))
      : tags.map((t, i) => ({ key: t, dash: dashFor(i), text: t, note: "" }));
  if (items.length === 0) return null;
  return (
    <ul class="rl-cs-legend" aria-label="Legend">
      {items.map((it) => (
        <li key={it.key} data-legend-tag={it.text}>
          <svg width="28" height="8" aria-hidden="true">
            <line x1="0" y1="4" x2="28" y2="4" stroke="currentColor" stroke-width="2" stroke-dasharray={dashArray(it.dash)} />
          </svg>
          <span>{it.text}</span>
          {it.note && <span class="rl-muted"> ({it.note})</span>}
        </li>
      ))}
    </ul>
  );
}


function showTooltip(u: uPlot, own: boolean, tip: HTMLDivElement | null, model: ChartModel | null, settings: Settings): void {
  if (!tip) return;
  const left = u.cursor.left;
  if (!own || !model || left == null || left < 0) {
    tip.hidden = true;
    return;
  }
  const x = u.posToVal(left, "x");
  const rows = hoverRows(u, model, x, u.cursor.top ?? 0);
  const xm = settings.xAxis;
  const header = xm === "wall" ? formatWallTime(x) : xm === "relative" ? formatDuration(x) : `step ${formatStep(x)}`;
  tip.innerHTML = tooltipHtml(header, rows, settings.tooltipSort, TOOLTIP_ROWS);
  placeTooltip(u, tip, left);
}
