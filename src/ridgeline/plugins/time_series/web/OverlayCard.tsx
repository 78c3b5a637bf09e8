/**
 * A multi-type overlay card: a scalar tag (left y axis, smoothed as the scalars settings say) and a histogram
 * tag's percentile bands (right y axis, from GET /api/distributions) on one step axis, for each selected run.
 * The scalar comes through the scalars series cache (binary batch); refreshed on every tick.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { getJson } from "@api/client";
import { Plot } from "@charts/plot";
import { smooth } from "@charts/smoothing";
import { cache } from "../../scalars/web/data";
import { registry } from "@charts/registry";
import type { Settings } from "../../scalars/web/settings";
import { runsWith } from "./items";
import { buildOverlay, type Distribution, type OverlayRun } from "./overlay";

const HEIGHT = 260;
const MAX_STEPS = 200;

export interface OverlayCardProps {
  scalar: string;
  histogram: string;
  runs: RunInfo[];
  settings: Settings;
  tick: number;
  onClose: () => void;
}

export function OverlayCard({ scalar, histogram, runs, settings, tick, onClose }: OverlayCardProps) {
  const id = `overlay:${scalar}\u0000${histogram}`;
  const chartRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<Plot | null>(null);
  const keyRef = useRef("");
  const [loaded, setLoaded] = useState<{ distributions: Map<string, Distribution>; version: number } | null>(null);
  const [ready, setReady] = useState(false);
  const scalarRuns = useMemo(() => runsWith(runs, "scalars", scalar), [runs, scalar]);
  const histogramRuns = useMemo(() => runsWith(runs, "histograms", histogram), [runs, histogram]);

  useEffect(() => {
    registry.add(id);
    registry.setVisible(id, true);
    return () => registry.remove(id);
  }, [id]);
  useLayoutEffect(() => registry.setReady(id, ready), [id, ready]);

  useEffect(() => {
    let live = true;
    const keys = scalarRuns.map((r) => ({ run: r.run, tag: scalar }));
    const distributions = new Map<string, Distribution>();
    void Promise.all([
      cache.load(keys, 1000).then(() => cache.refresh(keys)),
      ...histogramRuns.map((r) =>
        getJson<Distribution>("/api/distributions", { run: r.run, tag: histogram, max_steps: MAX_STEPS }).then(
          (d) => void distributions.set(r.run, d),
          () => undefined, // a run whose histogram cannot be read: its scalar alone
        ),
      ),
    ]).then(() => {
      if (live) setLoaded((l) => ({ distributions, version: (l?.version ?? 0) + 1 }));
    });
    return () => {
      live = false;
    };
  }, [scalar, histogram, scalarRuns, histogramRuns, tick]);

  const model = useMemo(() => {
    if (!loaded) return null;
    const list: OverlayRun[] = runs.map((r) => {
      const d = cache.get(r.run, scalar)?.data;
      return {
        run: r.run,
        colour: r.colour,
        scalar: d ? { step: d.step, value: smooth(settings.smoother, d.step, d.value, settings.smoothing) } : null,
        distribution: loaded.distributions.get(r.run) ?? null,
      };
    });
    return buildOverlay(list, scalar, histogram, chartRef.current?.clientWidth ?? 400);
  }, [loaded, runs, scalar, histogram, settings.smoothing, settings.smoother]);

  useLayoutEffect(() => {
    const el = chartRef.current;
    if (!model || !el) return;
    if (!plotRef.current || keyRef.current !== model.structure) {
      plotRef.current?.destroy();
      el.querySelectorAll(".uplot").forEach((n) => n.remove());
      plotRef.current = new Plot(
        el,
        {
          width: Math.max(300, el.clientWidth),
          height: HEIGHT,
          xMode: "step",
          xLog: false,
          yLog: false,
          yLabel: scalar,
          y2Label: `${histogram} (percentiles)`,
          ignoreOutliers: settings.outliers,
          syncKey: null,
          lines: model.lines,
          bands: model.bands,
        },
        model.data,
      );
      keyRef.current = model.structure;
    } else {
      plotRef.current.setData(model.data, null);
    }
    const g = ((window as unknown as { __ridgeline?: { charts?: Map<string, uPlot> } }).__ridgeline ??= {});
    (g.charts ??= new Map()).set(`overlay:${scalar} + ${histogram}`, plotRef.current.u);
    setReady(true);
  }, [model]);

  useEffect(
    () => () => {
      plotRef.current?.destroy();
      plotRef.current = null;
    },
    [],
  );

  return (
    <div
      class="rl-card rl-card-expanded rl-ts-overlay"
      data-testid="ts-overlay-card"
      data-tag={`${scalar} + ${histogram}`}
      data-ready={ready ? "true" : "false"}
      data-points={String(model?.points ?? 0)}
    >
      <header class="rl-card-head">
        <h3 class="rl-card-title" title={`${scalar} with the distribution of ${histogram}`}>
          {scalar} <span class="rl-muted">(left)</span> · {histogram} <span class="rl-muted">(right: min–max, 16–84%, median dashed)</span>
        </h3>
        <span class="rl-card-actions">
          <button type="button" class="rl-icon" aria-label={`Close the overlay of ${scalar} and ${histogram}`} onClick={onClose}>
            ✕
          </button>
        </span>
      </header>
      <div class="rl-chart" ref={chartRef} style={{ height: `${HEIGHT}px` }}>
        {!model && <div class="rl-loading">Loading…</div>}
      </div>
    </div>
  );
}
