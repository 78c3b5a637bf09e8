/**
 * One tag across the ranks of a distributed run: the aggregated line with its band, or every rank's line (see
 * ./model.ts), drawn with the shell's plot (@charts/usePlot). Under the chart, the ranks that gave the min and
 * the max at the step under the cursor. Loaded once scrolled near the view (the first card at once, often from the
 * series the run list brought: `initial`), fetched again on every shell tick; each rank's own line is asked for
 * only while the chart shows them.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import { getJson } from "@api/client";
import { PALETTE } from "@app/palette";
import { useLazyCard, useReadyFlag } from "@charts/lazyCard";
import type { LineSpec } from "@charts/plot";
import { useChartWidth, usePlot } from "@charts/usePlot";
import { ChartPictureButtons } from "@charts/ChartPictureButtons";
import { safeFileName } from "@charts/export";
import { aggregateChart, extremesAt, rankChart, type BandKind, type SeriesAnswer, type Statistic, type View, type XAxis } from "./model";

export interface RankChartProps {
  run: string;
  tag: string;
  view: View;
  statistic: Statistic;
  band: BandKind;
  xAxis: XAxis;
  tick: number;
  /** Loaded and drawn from the first render, without waiting to be scrolled near the view. */
  eager?: boolean;
  /** The series (without rank lines) already at hand for this tick, as /api/distributed/runs?first_chart= gave it. */
  initial?: SeriesAnswer | null;
}

const HEIGHT = 220;

/** Runs `task` when the browser is next idle (at most 500 ms from now); returns its cancel. */
function whenIdle(task: () => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const handle = requestIdleCallback(task, { timeout: 500 });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(task, 0);
  return () => clearTimeout(timer);
}

export function RankChart({ run, tag, view, statistic, band, xAxis, tick, eager = false, initial = null }: RankChartProps) {
  const id = `distributed:${run}:${tag}`;
  const cardRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<HTMLDivElement>(null);
  const seen = useLazyCard(cardRef, id, { near: "200px 0px", view: "0px", eager });
  const [body, setBody] = useState<SeriesAnswer | null>(initial);
  // What `body` holds: the tick it was fetched at, whether with each rank's own line, and whether reduced (the
  // first chart's series, reduced to the window's width: every step is asked for once it has been drawn).
  const loaded = useRef<{ tick: number; lines: boolean; reduced: boolean } | null>(
    initial ? { tick, lines: false, reduced: !!initial.reduced } : null,
  );
  const wantLines = view === "ranks";
  const [error, setError] = useState<string | null>(null);
  const [hover, setHover] = useState("");
  const [drawn, setDrawn] = useState(false);
  const bodyRef = useRef<SeriesAnswer | null>(null);
  bodyRef.current = body;
  const { width } = useChartWidth(chartRef, 420, id);

  useEffect(() => {
    const have = loaded.current;
    if (!seen) return;
    const current = !!have && have.tick === tick && (have.lines || !wantLines);
    if (current && !(have.reduced && drawn)) return;
    const controller = new AbortController();
    const ask = () =>
      getJson<SeriesAnswer>("/api/distributed/series", { run, tag, lines: wantLines }, { signal: controller.signal }).then(
        (answer) => {
          loaded.current = { tick, lines: wantLines, reduced: !!answer.reduced };
          setBody(answer);
          setError(null);
        },
        (err: unknown) => {
          if (err instanceof DOMException && err.name === "AbortError") return;
          setError(err instanceof Error ? err.message : String(err));
        },
      );
    if (!current) {
      ask();
      return () => controller.abort();
    }
    // Drawn from the reduced series: every step (for zooming in and the extremes under the cursor) once idle.
    const idle = whenIdle(ask);
    return () => {
      idle();
      controller.abort();
    };
  }, [seen, run, tag, tick, wantLines, drawn]);

  const axis: XAxis = view === "aggregate" ? "step" : xAxis;
  const chart = useMemo(() => {
    if (!body) return null;
    if (view === "aggregate") return aggregateChart(body, statistic, band);
    return loaded.current?.lines ? rankChart(body, axis) : null; // until the lines have come
  }, [body, view, statistic, band, axis]);

  const lines: LineSpec[] = useMemo(() => {
    if (!chart) return [];
    if (view === "ranks") return chart.labels.map((label, i) => ({ label, colour: PALETTE[i % PALETTE.length], width: 1.25 }));
    const accent = "#1a54f0";
    return chart.labels.map((label, i) => (i === 0 ? { label, colour: accent, width: 2 } : { label, colour: accent, bandEdge: true }));
  }, [chart, view]);

  const key = chart ? [view, axis, chart.labels.join(",")].join("|") : "";
  const plotRef = usePlot(
    chartRef,
    {
      data: chart ? ([chart.x, ...chart.columns] as unknown as uPlot.AlignedData) : null,
      key,
      config: (w) => ({
        width: w,
        height: HEIGHT,
        xMode: axis === "step" ? "step" : "relative",
        xLog: false,
        yLog: false,
        ignoreOutliers: false,
        syncKey: `ridgeline-distributed-${axis}`,
        lines,
        bands: chart?.band ? [{ upper: chart.band.upper + 1, lower: chart.band.lower + 1, colour: "#1a54f0", alpha: 0.18 }] : [],
        onCursor: (u) => {
          const idx = u.cursor.idx;
          const current = bodyRef.current;
          if (idx === null || idx === undefined || !current || view !== "aggregate") return setHover("");
          setHover(extremesAt(current, u.data[0][idx]));
        },
      }),
      ignoreOutliers: false,
      view: null,
      width,
      height: HEIGHT,
      testId: id,
      drawn: () => setDrawn(true),
    },
    [chart, key],
  );
  const ready = drawn || error !== null;
  useReadyFlag(id, ready);

  return (
    <div ref={cardRef} class="rl-card rl-dist-card" data-testid="distributed-chart" data-tag={tag} data-ready={ready ? "true" : "false"}>
      <header class="rl-card-head">
        <h3 class="rl-card-title" title={tag}>
          {tag}
        </h3>
        {!error && (
          <span class="rl-card-actions">
            <ChartPictureButtons plot={plotRef} title={`${run} · ${tag}`} name={safeFileName(`${run}_${tag}`)} drawn={drawn} />
          </span>
        )}
      </header>
      {error ? <p class="rl-dist-error" role="alert">{error}</p> : <div ref={chartRef} class="rl-dist-chart" />}
      <div class="rl-dist-hover" data-testid="distributed-extremes" aria-live="polite">
        {hover}
      </div>
    </div>
  );
}
