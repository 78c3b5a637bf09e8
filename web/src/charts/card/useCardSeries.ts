/**
 * A scalar card's data: which (run, tag) series it draws, loaded (reduced to about its width) once it is scrolled
 * near the view and appended to on every tick; the zoomed window again at full resolution; the shown runs'
 * annotations.
 */
import type { RefObject } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import type { SeriesKey } from "@api/types";
import { useLazyCard } from "../lazyCard";
import type { ChartModel, RunSeries } from "../lines/model";
import { cache, fetchAnnotations, seriesKey, type Annotation, type SeriesData } from "../series/data";
import { pointsFor, useCachedSeries } from "../series/useCachedSeries";
import { useZoomData } from "../series/useZoomData";
import { useChartWidth } from "../usePlot";

export interface CardSeriesOptions {
  /** The card's id in the ready registry. */
  id: string;
  card: RefObject<HTMLElement | null>;
  chart: RefObject<HTMLElement | null>;
  tag: string;
  tag2: string | null;
  /** The x axis' tag ("another tag" x axis), else null. */
  xTag: string | null;
  runs: RunInfo[];
  eager: boolean;
  tick: number;
  zoom: [number, number] | null;
  /** The chart's model (the zoom's x range is turned into steps through it). */
  model: RefObject<ChartModel | null>;
  /** Each load starts (the card is not ready until it ends). */
  onLoadStart: () => void;
}

export interface CardSeries {
  keys: SeriesKey[];
  /** The card came near the view (it loads from then on). */
  seen: boolean;
  /** The chart's width in pixels. */
  width: number;
  /** The first load finished; `version` changes whenever the cached data did. */
  loaded: boolean;
  version: number;
  /** The zoomed window's series by seriesKey(run, tag), or null when not zoomed. */
  zoomData: Map<string, SeriesData> | null;
  /** The runs' annotations (runs without any left out). */
  annotations: Map<string, Annotation[]>;
}

/** Each run's scalar tags as a set (a card asks per run and tag: `includes` over 10,000 tags was O(n) each). */
const tagSets = new WeakMap<string[], Set<string>>();
function scalarTags(r: RunInfo): Set<string> {
  const list = r.tags.scalars ?? [];
  let set = tagSets.get(list);
  if (!set) tagSets.set(list, (set = new Set(list)));
  return set;
}

export function useCardSeries(o: CardSeriesOptions): CardSeries {
  const { tag, tag2, xTag, runs, tick } = o;
  const [annotations, setAnnotations] = useState<Map<string, Annotation[]>>(new Map());
  const keys = useMemo(() => {
    const ks: SeriesKey[] = [];
    for (const r of runs) {
      const tags = scalarTags(r);
      const has = (t: string) => tags.has(t);
      if (has(tag)) ks.push({ run: r.run, tag });
      if (tag2 && has(tag2)) ks.push({ run: r.run, tag: tag2 });
      if (xTag && has(xTag) && xTag !== tag) ks.push({ run: r.run, tag: xTag });
    }
    return ks;
  }, [runs, tag, tag2, xTag]);

  // Cards render only when scrolled into view (and stay rendered once seen); loaded from a little before it
  // scrolls into view, counted as on screen (for chartsReady) only once it is.
  const seen = useLazyCard(o.card, o.id, { eager: o.eager, near: "200px 0px", view: "0px" });
  const { width, sized } = useChartWidth(o.chart, 400, o.id);
  const maxPoints = pointsFor(width);

  // Load (full range, reduced to about the card's width, measured as the load starts: at the resolution the
  // ResizeObserver will report, so its report does not refetch), then append live data on every tick.
  const { loaded, version } = useCachedSeries(seen, keys, maxPoints, o.eager, tick, o.onLoadStart, () => {
    const measured = o.chart.current?.clientWidth ?? 0;
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
  const zoomData = useZoomData(o.zoom, keys, maxPoints, o.model);
  return { keys, seen, width, loaded, version, zoomData, annotations };
}

/**
 * The curves a card draws, per run: `tag` (and `tag2` on the right axis) from the zoomed window where there is
 * one, else from the cache; a zoomed window keeps the whole run as its smoothing context and its start time.
 */
export function cardCurves(
  runs: RunInfo[],
  tag: string,
  tag2: string | null,
  xTag: string | null,
  zoomData: Map<string, SeriesData> | null,
): RunSeries[] {
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
  return list;
}
