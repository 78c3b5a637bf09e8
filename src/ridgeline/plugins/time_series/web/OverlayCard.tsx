/**
 * A multi-type overlay card: a scalar tag (left y axis, smoothed as the scalars settings say) and a histogram
 * tag's percentile bands (right y axis, from GET /api/distributions) on one step axis, for each selected run.
 * Optionally (`images`), tick marks along the step axis at the steps where that image tag was logged (from
 * GET /api/images, each run in its colour; hovering one names the step and the tag). Either the histogram or
 * the image tag may be "" (left out). Likewise (`embeddings`), taller hollow marks at the steps where that
 * embedding tag was logged (the dashboard passes them from GET /api/embeddings); a click on one (or Enter) opens
 * the projector on that embedding at that step (`onOpenEmbedding`). With `stepTime` (and no histogram), the
 * right y axis holds the step time of each profiled step of the runs that have PyTorch profiler traces
 * (GET /api/profile/steps; the slowest of a run's traces at each step, in ms): the loss beside the step time.
 * The scalar comes through the scalars series cache (binary batch); refreshed on every tick.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { getJson } from "@api/client";
import { Plot } from "@charts/plot";
import { smooth } from "@charts/smoothing";
import { cache } from "@charts/series/data";
import { registry } from "@charts/registry";
import { setTestEntry } from "@web/testHooks";
import type { Settings } from "@charts/lines/settings";
import { runsWith } from "./items";
import { buildOverlay, type Distribution, type OverlayRun } from "./overlay";
import type { Answer } from "@api/types";

const HEIGHT = 260;

/** GET /api/profile/steps: one row per profiled step and trace (`time` in µs). */
type StepsAnswer = Answer<"/api/profile/steps", { steps: { step: number; time: number; worker: string }[] }>;

/** A run's profiled steps and, per step, its slowest trace's time in ms. */
async function stepTimes(run: string): Promise<{ step: number[]; ms: number[] }> {
  const body = await getJson<StepsAnswer>("/api/profile/steps", { run });
  const slowest = new Map<number, number>();
  for (const row of body.steps) slowest.set(row.step, Math.max(slowest.get(row.step) ?? 0, row.time / 1000));
  const step = [...slowest.keys()].sort((a, b) => a - b);
  return { step, ms: step.map((s) => slowest.get(s)!) };
}
const MAX_STEPS = 200;

export interface OverlayCardProps {
  scalar: string;
  histogram: string;
  /** An image tag whose steps are marked on the step axis, or "". */
  images: string;
  /** An embedding tag whose steps are marked on the step axis, or "". */
  embeddings: string;
  /** The steps of `embeddings` per selected run (from GET /api/embeddings). */
  embeddingMarks: MarkRun[];
  /** The profiled steps' times on the right y axis (for runs with profiler traces; instead of a histogram). */
  stepTime?: boolean;
  runs: RunInfo[];
  settings: Settings;
  tick: number;
  onClose: () => void;
  /** Opens the projector on an embedding at a step (a click on its mark). */
  onOpenEmbedding?: (run: string, tag: string, step: number) => void;
}

/** Steps marked on the axis for one run, in the run's colour: where `tag` (of `kind`) was logged. */
export interface MarkRun {
  run: string;
  colour: string;
  steps: number[];
  kind: "images" | "embeddings";
  tag: string;
}

export function OverlayCard(props: OverlayCardProps) {
  const { scalar, images, embeddings, embeddingMarks, runs, settings, tick, onClose } = props;
  const stepTime = !!props.stepTime;
  const histogram = stepTime ? "" : props.histogram;
  const openRef = useRef(props.onOpenEmbedding);
  openRef.current = props.onOpenEmbedding;
  const id = `overlay:${scalar}\u0000${histogram}\u0000${images}\u0000${embeddings}${stepTime ? "\u0000step time" : ""}`;
  const label = [scalar, histogram, images, embeddings, stepTime ? "step time" : ""].filter((t) => t).join(" + ");
  const chartRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<Plot | null>(null);
  const keyRef = useRef("");
  const [loaded, setLoaded] = useState<{
    distributions: Map<string, Distribution>;
    marks: MarkRun[];
    stepTimes: Map<string, { step: number[]; ms: number[] }>;
    version: number;
  } | null>(null);
  const marksRef = useRef<MarkRun[]>([]);
  const [ready, setReady] = useState(false);
  const scalarRuns = useMemo(() => runsWith(runs, "scalars", scalar), [runs, scalar]);
  const histogramRuns = useMemo(() => (histogram ? runsWith(runs, "histograms", histogram) : []), [runs, histogram]);
  const imageRuns = useMemo(() => (images ? runsWith(runs, "images", images) : []), [runs, images]);
  const tracedRuns = useMemo(() => (stepTime ? runs.filter((r) => (r.tags.profile ?? []).length > 0) : []), [runs, stepTime]);

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
    const marks: MarkRun[] = [];
    const times = new Map<string, { step: number[]; ms: number[] }>();
    void Promise.all([
      ...tracedRuns.map((r) =>
        stepTimes(r.run).then(
          (t) => void times.set(r.run, t),
          () => undefined, // traces that cannot be read: no step time for that run
        ),
      ),
      ...imageRuns.map((r) =>
        getJson<Answer<"/api/images", { steps: { step: number }[] }>>("/api/images", { run: r.run, tag: images }).then(
          (body) => void marks.push({ run: r.run, colour: r.colour, steps: body.steps.map((s) => s.step), kind: "images", tag: images }),
          () => undefined, // a run whose image listing cannot be read: no marks for it
        ),
      ),
      cache.load(keys, 1000).then(() => cache.refresh(keys)),
      ...histogramRuns.map((r) =>
        getJson<Answer<"/api/distributions", Distribution>>("/api/distributions", { run: r.run, tag: histogram, max_steps: MAX_STEPS }).then(
          (d) => void distributions.set(r.run, d),
          () => undefined, // a run whose histogram cannot be read: its scalar alone
        ),
      ),
    ]).then(() => {
      if (live) setLoaded((l) => ({ distributions, marks, stepTimes: times, version: (l?.version ?? 0) + 1 }));
    });
    return () => {
      live = false;
    };
  }, [scalar, histogram, images, scalarRuns, histogramRuns, imageRuns, tracedRuns, tick]);

  const model = useMemo(() => {
    if (!loaded) return null;
    const list: OverlayRun[] = runs.map((r) => {
      const d = cache.get(r.run, scalar)?.data;
      return {
        run: r.run,
        colour: r.colour,
        scalar: d ? { step: d.step, value: smooth(settings.smoother, d.step, d.value, settings.smoothing) } : null,
        distribution: loaded.distributions.get(r.run) ?? null,
        stepTime: loaded.stepTimes.get(r.run) ?? null,
      };
    });
    const marks = [...loaded.marks, ...embeddingMarks];
    return { ...buildOverlay(list, scalar, histogram, chartRef.current?.clientWidth ?? 400, markSteps(marks)), marks };
  }, [loaded, embeddingMarks, runs, scalar, histogram, settings.smoothing, settings.smoother]);

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
          y2Label: histogram ? `${histogram} (percentiles)` : stepTime ? "step time (ms)" : undefined,
          ignoreOutliers: settings.outliers,
          syncKey: null,
          lines: model.lines,
          bands: model.bands,
        },
        model.data,
      );
      keyRef.current = model.structure;
      const u = plotRef.current.u;
      (u.hooks.setScale ??= []).push(() => drawMarks(u, marksRef.current, openRef));
      (u.hooks.setSize ??= []).push(() => drawMarks(u, marksRef.current, openRef));
    } else {
      plotRef.current.setData(model.data, null);
    }
    marksRef.current = model.marks;
    drawMarks(plotRef.current.u, marksRef.current, openRef);
    setTestEntry("charts", `overlay:${label}`, plotRef.current.u);
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
      data-tag={label}
      data-ready={ready ? "true" : "false"}
      data-points={String(model?.points ?? 0)}
      data-step-times={model ? String([...(loaded?.stepTimes.values() ?? [])].reduce((n, t) => n + t.step.length, 0)) : "0"}
    >
      <header class="rl-card-head">
        <h3 class="rl-card-title" title={label}>
          {scalar} <span class="rl-muted">(left)</span>
          {histogram && (
            <>
              {" "}
              · {histogram} <span class="rl-muted">(right: min–max, 16–84%, median dashed)</span>
            </>
          )}
          {images && (
            <>
              {" "}
              · {images} <span class="rl-muted">(image steps: ticks on the step axis)</span>
            </>
          )}
          {embeddings && (
            <>
              {" "}
              · {embeddings} <span class="rl-muted">(embedding steps: hollow ticks)</span>
            </>
          )}
          {stepTime && (
            <>
              {" "}
              · step time <span class="rl-muted">(right: ms of each profiled step, dotted)</span>
            </>
          )}
        </h3>
        <span class="rl-card-actions">
          <button type="button" class="rl-icon" aria-label={`Close the overlay of ${label}`} onClick={onClose}>
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

/** Every marked step, so the step axis spans the marks even where the scalar has no point there. */
function markSteps(marks: MarkRun[]): number[] {
  return [...new Set(marks.flatMap((m) => m.steps))].sort((a, b) => a - b);
}

/** Tick marks at the bottom of the plotting area (uPlot's `over` layer), one per (run, step), with a title;
 * embedding steps are taller and hollow, so they read apart from image steps at the same step, and open the
 * projector at their step when clicked. */
function drawMarks(u: uPlot, marks: MarkRun[], open: { current: OverlayCardProps["onOpenEmbedding"] }): void {
  u.over.querySelectorAll(".rl-ts-mark").forEach((n) => n.remove());
  const [lo, hi] = [u.scales.x?.min ?? -Infinity, u.scales.x?.max ?? Infinity];
  for (const m of marks) {
    for (const step of m.steps) {
      if (step < lo || step > hi) continue;
      const tickEl = document.createElement("span");
      tickEl.className = m.kind === "embeddings" ? "rl-ts-mark rl-ts-mark-embedding" : "rl-ts-mark";
      tickEl.dataset.testid = "ts-overlay-mark";
      tickEl.dataset.kind = m.kind;
      tickEl.dataset.step = String(step);
      tickEl.dataset.run = m.run;
      tickEl.title = `step ${step} · ${m.kind === "embeddings" ? "embedding " : ""}${m.tag} (${m.run})`;
      tickEl.style.left = `${u.valToPos(step, "x")}px`;
      if (m.kind === "embeddings") {
        tickEl.style.borderColor = m.colour;
        tickEl.setAttribute("aria-label", `${tickEl.title}: open in the projector`);
        tickEl.tabIndex = 0;
        tickEl.setAttribute("role", "link");
        const go = () => open.current?.(m.run, m.tag, step);
        tickEl.addEventListener("mousedown", (e) => e.stopPropagation()); // not the start of a drag-zoom
        tickEl.addEventListener("click", go);
        tickEl.addEventListener("keydown", (e) => e.key === "Enter" && go());
      } else tickEl.style.background = m.colour;
      u.over.appendChild(tickEl);
    }
  }
}
