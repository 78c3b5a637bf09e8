/**
 * One scalar card: a tag (or two tags on two y axes) for the selected runs. Loads when scrolled into view,
 * draws through one reused uPlot instance, refetches the zoomed step range at full resolution, appends live
 * data on every tick, and exposes data-ready / data-points for tests and benchmarks. Shown by the scalars and
 * the time series dashboards; what other dashboards add to it (the insights) comes through ../overlays.
 *
 * Its parts: ./useCardSeries (the data), ../usePlot (the plot's lifecycle), ./CardToolbar (the header),
 * ./draw (tooltip, annotations, non-finite markers).
 */
import { memo } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import { deleteTestEntry, setTestEntry } from "@web/testHooks";
import { useReadyFlag } from "../lazyCard";
import { buildModel, type ChartModel } from "../lines/model";
import { yFixed, type Settings } from "../lines/settings";
import { useCardOverlays, type CardOverlay } from "../overlays";
import type { XMode } from "../plot";
import { cache, type Annotation } from "../series/data";
import { usePlot } from "../usePlot";
import { CardToolbar } from "./CardToolbar";
import { drawMarks, showTooltip, type AnnotationMark } from "./draw";
import { cardCurves, useCardSeries } from "./useCardSeries";

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
const EXPANDED_HEIGHT = 360;

/** A card re-renders only when one of its props changes (not for every change of the page around it). */
export const Card = memo(CardView);

function CardView(props: CardProps) {
  const { tag, runs, settings, tick } = props;
  const tag2 = props.tag2 ?? null;
  const id = tag2 ? `${tag} ⇄ ${tag2}` : tag;
  const cardRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<HTMLDivElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const modelRef = useRef<ChartModel | null>(null);
  const annRef = useRef<AnnotationMark[]>([]);
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const [ready, setReady] = useState(false);
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const xAxis = settings.xAxis;
  const xTag = xAxis === "tag" ? settings.xTag : null;
  const height = props.expanded ? EXPANDED_HEIGHT : HEIGHT;

  // In the commit that drew (uPlot draws in a microtask queued before this one), not after the next paint.
  useReadyFlag(id, ready);
  const { keys, seen, width, loaded, version, zoomData, annotations } = useCardSeries({
    id,
    card: cardRef,
    chart: chartRef,
    tag,
    tag2,
    xTag,
    runs,
    eager: !!props.eager,
    tick,
    zoom,
    model: modelRef,
    onLoadStart: () => setReady(false),
  });
  useEffect(() => setZoom(null), [xAxis, xTag, settings.xLog]);

  const model = useMemo(() => {
    if (!loaded) return null;
    return buildModel(cardCurves(runs, tag, tag2, xTag, zoomData), {
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

  // What other dashboards draw on the card (alert markers, phase bands, the forecast, an alert link's zoom).
  const overlays = useCardOverlays({
    tag,
    tag2,
    runs,
    keys,
    seen,
    loaded,
    values: (run) => cache.get(run, tag)?.data?.value,
    start: (run) => cache.get(run, tag)?.data?.wall[0] ?? 0,
    tick,
    settings,
    hover: model?.hover ?? null,
    zoom,
    setZoom,
  });
  const overlaysRef = useRef<CardOverlay[]>(overlays);
  overlaysRef.current = overlays;

  // Annotation positions in the chart's x units.
  useEffect(() => {
    annRef.current = annotationMarks(runs, annotations, tag, xAxis);
    plotRef.current?.u.redraw(false, false);
  }, [annotations, runs, xAxis, version]);

  // Draw: create uPlot when the structure or axes change, else setData.
  const fixed = useMemo(() => yFixed(settings), [settings.yMin, settings.yMax]);
  const plotKey = model
    ? // xTag: the x axis is labelled with it (it was left blank when the tag was chosen after "another tag").
      [model.structure, xAxis, xTag ?? "", settings.xLog, settings.yScale, tag2 ?? ""].join("|")
    : "";
  const view = model ? zoom ?? firstView(overlays, model.data) : null;
  const plotRef = usePlot(
    chartRef,
    {
      data: model?.data ?? null,
      key: plotKey,
      config: (w) => ({
        width: w,
        height,
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
        lines: model!.lines,
        bands: model!.bands,
        yExtra: () => overlaysRef.current.flatMap((o) => o.yExtra()),
        onZoom: (r) => setZoom(r),
        onCursor: (u, own) => showTooltip(u, own, tipRef.current, modelRef.current, annRef.current, settingsRef.current, overlaysRef.current),
        // Theme changes redraw through the plot's own observer of <html data-theme>.
        onDraw: (u) => {
          drawMarks(u, modelRef.current, annRef.current);
          for (const o of overlaysRef.current) o.drawFront(u);
        },
        onDrawBack: (u) => {
          for (const o of overlaysRef.current) o.drawBack(u);
        },
      }),
      yFixed: fixed,
      ignoreOutliers: settings.outliers,
      view,
      width,
      height,
      testId: id,
      drawn: () => {
        setTestEntry(
          "series",
          id,
          model!.hover.map((h) => ({ run: h.label, x: h.x, raw: h.raw, smoothed: h.smoothed, reduced: model!.reduced })),
        );
        setReady(true);
      },
    },
    [model, plotKey, fixed, settings.outliers, zoom, overlays.map((o) => o.version).join("\u0000")],
  );
  useEffect(() => () => deleteTestEntry("series", id), []);

  const attributes = Object.assign({}, ...overlays.map((o) => o.attributes)) as Record<string, string>;
  return (
    <div
      ref={cardRef}
      class={`rl-card${props.expanded ? " rl-card-expanded" : ""}${props.pinned ? " rl-card-pinned" : ""}`}
      data-testid="scalar-card"
      data-tag={tag2 ? id : tag}
      data-ready={ready ? "true" : "false"}
      data-points={String(model?.points ?? 0)}
      {...attributes}
    >
      <CardToolbar
        id={id}
        tag={tag}
        tag2={tag2}
        runs={runs}
        keys={keys}
        model={model}
        plot={plotRef}
        drawn={ready && !!model && model.points > 0}
        zoomed={!!zoomData}
        zoom={zoom}
        setZoom={setZoom}
        overlays={overlays}
        pinned={props.pinned}
        expanded={props.expanded}
        onPin={props.onPin}
        onExpand={props.onExpand}
        onClose={props.onClose}
      />
      <div class="rl-chart" ref={chartRef} style={{ height: `${height}px` }}>
        {!model && <div class="rl-loading">{seen ? "Loading…" : ""}</div>}
        {model && model.points === 0 && <div class="rl-loading">No data for the selected runs</div>}
        <div class="rl-tooltip" ref={tipRef} role="tooltip" hidden />
      </div>
    </div>
  );
}

/** The first x range an overlay asks to show (a forecast past the data), or null. */
function firstView(overlays: readonly CardOverlay[], data: Parameters<CardOverlay["view"]>[0]): [number, number] | null {
  for (const o of overlays) {
    const v = o.view(data);
    if (v) return v;
  }
  return null;
}

/** The runs' annotations in the chart's x units (relative time counts from each run's first point of `tag`). */
function annotationMarks(runs: RunInfo[], annotations: Map<string, Annotation[]>, tag: string, xAxis: Settings["xAxis"]): AnnotationMark[] {
  const list: AnnotationMark[] = [];
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
  return list;
}
