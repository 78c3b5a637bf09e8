/**
 * A chart card's plot lifecycle (the scalars cards and the custom scalars charts): one {@link Plot} in the
 * card's chart element, made when there is data and made anew only when its `key` (series, axes, scales)
 * changes, else handed the new data; resized with the card; destroyed with it. Each plot is exposed to the
 * browser tests as `window.__ridgeline.charts[testId]`.
 */
import type { RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import { deleteTestEntry, setTestEntry } from "@web/testHooks";
import { Plot, type PlotConfig } from "./plot";

export interface PlotSpec {
  /** The chart's data; no plot is made while it is null. */
  data: uPlot.AlignedData | null;
  /** The plot is made anew when this changes. */
  key: string;
  /** The configuration of a new plot, `width` wide (the element's, at least 200 px). */
  config: (width: number) => PlotConfig;
  /** Read again on every update of an existing plot. */
  yFixed?: PlotConfig["yFixed"];
  ignoreOutliers: boolean;
  /** The x range to show, or null for the data's own. */
  view: [number, number] | null;
  /** The width the card measured (used while the element has none) and the chart's height. */
  width: number;
  height: number;
  testId: string;
  /** After each time the plot was given data (in the same layout effect). */
  drawn?: (plot: Plot) => void;
}

/**
 * Draws `spec` into `chart` in a layout effect run when `deps` change (the data, key and view among them).
 * Returns the plot's ref.
 */
export function usePlot(chart: RefObject<HTMLElement | null>, spec: PlotSpec, deps: unknown[]): RefObject<Plot | null> {
  const plotRef = useRef<Plot | null>(null);
  const keyRef = useRef("");
  useLayoutEffect(() => {
    const el = chart.current;
    if (!spec.data || !el) return;
    let plot = plotRef.current;
    if (!plot || keyRef.current !== spec.key) {
      plot?.destroy();
      el.querySelectorAll(".uplot").forEach((n) => n.remove());
      plot = new Plot(el, spec.config(Math.max(200, el.clientWidth || spec.width)), spec.data);
      plotRef.current = plot;
      keyRef.current = spec.key;
      if (spec.view) plot.setData(spec.data, spec.view);
    } else {
      plot.cfg.yFixed = spec.yFixed;
      plot.cfg.ignoreOutliers = spec.ignoreOutliers;
      plot.setData(spec.data, spec.view);
    }
    setTestEntry("charts", spec.testId, plot.u);
    spec.drawn?.(plot);
  }, deps);

  useEffect(() => {
    plotRef.current?.setSize(Math.max(200, chart.current?.clientWidth ?? spec.width), spec.height);
  }, [spec.width, spec.height]);

  useEffect(
    () => () => {
      plotRef.current?.destroy();
      plotRef.current = null;
      deleteTestEntry("charts", spec.testId);
    },
    [],
  );
  return plotRef;
}

/**
 * The width of the chart element `chart` as its ResizeObserver reports it (`initial` before the first report;
 * `sized` is true from then on). Observed again when `id` changes.
 */
export function useChartWidth(chart: RefObject<HTMLElement | null>, initial: number, id: string): { width: number; sized: RefObject<boolean> } {
  const [width, setWidth] = useState(initial);
  const sized = useRef(false);
  useEffect(() => {
    const ro = new ResizeObserver(() => {
      const w = chart.current?.clientWidth ?? 0;
      if (w > 0) {
        sized.current = true;
        setWidth(w);
      }
    });
    if (chart.current) ro.observe(chart.current);
    return () => ro.disconnect();
  }, [id]);
  return { width, sized };
}
