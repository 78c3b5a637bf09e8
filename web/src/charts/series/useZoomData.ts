/**
 * Zoom at full resolution: when a chart is zoomed in, the series of its step range are fetched again from the
 * server (reduced to the chart's width only if still larger), so a reduced series shows every point of the
 * window. Shared by the scalars cards and the custom scalars charts.
 */
import { useEffect, useState } from "preact/hooks";
import type { RefObject } from "preact";
import { fetchSeries, seriesKey, type SeriesData } from "./data";
import type { ChartModel } from "@charts/lines/model";

/**
 * The zoomed window's series by `seriesKey(run, tag)`, or null when not zoomed (or not fetched yet). `zoom` is
 * the x range in the chart's own units (step, relative or wall time): the model's hover data turns it into steps.
 */
export function useZoomData(
  zoom: [number, number] | null,
  keys: { run: string; tag: string }[],
  maxPoints: number,
  modelRef: RefObject<ChartModel | null>,
): Map<string, SeriesData> | null {
  const [zoomData, setZoomData] = useState<Map<string, SeriesData> | null>(null);
  const keysId = keys.map((k) => seriesKey(k.run, k.tag)).join("\u0001");
  useEffect(() => {
    if (!zoom) {
      setZoomData(null);
      return;
    }
    let live = true;
    const [minStep, maxStep] = stepRange(zoom, modelRef.current);
    fetchSeries(keys, { min_step: Math.floor(minStep), max_step: Math.ceil(maxStep), max_points: maxPoints }).then(
      (m) => {
        if (!live) return;
        const out = new Map<string, SeriesData>();
        for (const [k, v] of m) if (!(v instanceof Error)) out.set(k, v);
        setZoomData(out);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [zoom, keysId, maxPoints]);
  return zoomData;
}

/** The steps whose points lie within the x range `r` (widened to the neighbouring steps so lines reach the edges). */
export function stepRange(r: [number, number], model: ChartModel | null): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const h of model?.hover ?? []) {
    for (let i = 0; i < h.x.length; i++) {
      if (h.x[i] >= r[0] && h.x[i] <= r[1] && Number.isFinite(h.step[i])) {
        if (h.step[i] < lo) lo = h.step[i];
        if (h.step[i] > hi) hi = h.step[i];
      }
    }
  }
  if (!(lo <= hi)) return r;
  return [lo - 1, hi + 1];
}
