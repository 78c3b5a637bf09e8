/**
 * One histogram tag: a ridgeline plot per run (offset mode) or every run's steps on one plot (overlay mode),
 * drawn on canvas from the server's sample of at most MAX_STEPS steps on common bins. A step slider reaches
 * every step (a step outside the sample is fetched on its own and drawn highlighted); hovering names the run,
 * step, bucket range and count.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import { formatNumber, formatStep } from "@charts/format";
import { useLazyCard, useReadyFlag } from "@charts/lazyCard";
import { setTestEntry } from "@web/testHooks";
import { HISTOGRAM_CARD_VIEW, RunLabel, useRunData, type RunData } from "./cards";
import { binEdges, fetchHistograms, unionSteps, type BinnedHistogram, type HistogramsResponse } from "./data";
import { drawHistograms, hitTest, type Curve, type Geometry, type Mode } from "./draw";

export interface HistogramCardProps {
  tag: string;
  runs: RunInfo[];
  mode: Mode;
  tick: number;
  theme: "light" | "dark";
  /** Load at once (among the page's first cards). */
  eager?: boolean;
}

const HEIGHT = 240;

type Loaded = RunData<HistogramsResponse>;

declare module "@web/testHooks" {
  interface TestHooks {
    /** What each histogram card loaded (per run: the answer or its error), by tag. */
    histograms: Map<string, RunData<HistogramsResponse>[]>;
  }
}

/** Curves of one run's response (readable, non-empty steps only), plus the slider's step when fetched apart. */
function curvesOf(l: Loaded, picked: BinnedHistogram | undefined): Curve[] {
  const d = l.data;
  if (!d || !d.range) return [];
  const range = d.range;
  const items = d.histograms.filter((h) => h.count && !h.error);
  if (picked?.count && !items.some((h) => h.step === picked.step)) {
    items.push(picked);
    items.sort((a, b) => a.step - b.step);
  }
  return items.map((h) => ({ step: h.step, count: h.count!, colour: l.run.colour, run: l.run.run, range }));
}

function unionRange(curves: Curve[]): [number, number] | null {
  if (!curves.length) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of curves) {
    lo = Math.min(lo, c.range[0]);
    hi = Math.max(hi, c.range[1]);
  }
  return [lo, hi];
}

function problems(l: Loaded): string | null {
  if (l.error) return l.error;
  const d = l.data;
  if (!d) return null;
  const bad = d.histograms.filter((h) => h.error);
  const notes: string[] = [];
  if (bad.length) notes.push(`${bad.length} step${bad.length > 1 ? "s" : ""} could not be read (step ${bad[0].step}: ${bad[0].error})`);
  if (!d.range && d.histograms.length > bad.length) notes.push("every histogram is empty (no counts)");
  return notes.length ? notes.join("; ") : null;
}

interface Hover {
  x: number;
  y: number;
  text: string[];
}

function Plot({ curves, mode, width, highlight, theme, testid }: { curves: Curve[]; mode: Mode; width: number; highlight: number | null; theme: string; testid: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const geo = useRef<Geometry | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const range = unionRange(curves);
  useLayoutEffect(() => {
    if (!canvas.current || !range || width <= 0) return;
    geo.current = drawHistograms(canvas.current, { width, height: HEIGHT, range, bins: curves[0].count.length, curves, mode, highlight });
  }, [curves, mode, width, highlight, theme, range?.[0], range?.[1]]);
  if (!range) return null;
  const onMove = (e: MouseEvent) => {
    const g = geo.current;
    if (!g) return;
    const r = (e.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const hit = hitTest(g, x, y);
    if (!hit) return setHover(null);
    const c = curves[hit.curve];
    const [lo, hi] = binEdges(c.range, c.count.length, hit.bin);
    setHover({
      x,
      y,
      text: [`${c.run} · step ${formatStep(c.step)}`, `[${formatNumber(lo)}, ${formatNumber(hi)})`, `count ${formatNumber(c.count[hit.bin])}`],
    });
  };
  return (
    <div class="rl-hist-plot">
      <canvas ref={canvas} data-testid={testid} data-curves={curves.length} onMouseMove={onMove} onMouseLeave={() => setHover(null)} />
      {hover && (
        <div class="rl-hist-tip" data-testid="histogram-tooltip" style={{ left: `${Math.min(hover.x + 12, width - 170)}px`, top: `${hover.y + 12}px` }}>
          {hover.text.map((t) => (
            <div>{t}</div>
          ))}
        </div>
      )}
    </div>
  );
}

export function HistogramCard({ tag, runs, mode, tick, theme, eager }: HistogramCardProps) {
  const ref = useRef<HTMLDivElement>(null);
  const seen = useLazyCard(ref, `histograms:${tag}`, { ...HISTOGRAM_CARD_VIEW, eager });
  const { loaded, width, body } = useRunData(seen, tag, runs, tick, (run, t, signal) => fetchHistograms(run, t, { signal }));
  const [stepIdx, setStepIdx] = useState<number | null>(null);
  const [picked, setPicked] = useState<Map<string, BinnedHistogram>>(new Map());
  const ready = loaded !== null && width > 0;
  useReadyFlag(`histograms:${tag}`, ready);
  useEffect(() => {
    if (!loaded) return;
    setTestEntry("histograms", tag, loaded);
  }, [loaded]);

  const steps = unionSteps((loaded ?? []).map((l) => l.data?.steps ?? []));
  const step = stepIdx === null || !steps.length ? null : steps[Math.min(stepIdx, steps.length - 1)];

  // The slider's step: fetched for the runs whose sample lacks it, on that run's bins.
  useEffect(() => {
    if (step === null || !loaded) return;
    const ctl = new AbortController();
    const next = new Map<string, BinnedHistogram>();
    void Promise.all(
      loaded.map(async (l) => {
        const d = l.data;
        if (!d || !d.steps.includes(step)) return;
        const inSample = d.histograms.find((h) => h.step === step);
        if (inSample) return void next.set(l.run.run, inSample);
        try {
          const one = await fetchHistograms(l.run.run, tag, { step, range: d.range, signal: ctl.signal });
          if (one.histograms[0]) next.set(l.run.run, one.histograms[0]);
        } catch {
          /* the run lost the step meanwhile: nothing to highlight */
        }
      }),
    ).then(() => !ctl.signal.aborted && setPicked(next));
    return () => ctl.abort();
  }, [step, loaded]);

  const plots = (loaded ?? []).map((l) => ({ l, curves: curvesOf(l, picked.get(l.run.run)), problem: problems(l) }));
  const highlightOf = (curves: Curve[]) => (step === null ? null : curves.findIndex((c) => c.step === step));
  const sampled = (loaded ?? []).some((l) => l.data?.sampled);
  const drawn = plots.reduce((n, p) => n + p.curves.length, 0);

  let content;
  if (mode === "overlay") {
    const all = plots.flatMap((p) => p.curves).sort((a, b) => a.step - b.step);
    content = <Plot curves={all} mode={mode} width={width} highlight={highlightOf(all)} theme={theme} testid="histogram-canvas" />;
  }
  return (
    <div ref={ref} class="rl-card rl-hist-card" data-testid="histogram-card" data-tag={tag} data-ready={ready ? "true" : "false"} data-curves={drawn}>
      <div class="rl-card-head">
        <h3 class="rl-card-title" title={tag}>
          {tag}
        </h3>
        {sampled && <span class="rl-badge" title={`${steps.length} steps; the plot shows an even sample, the slider reaches every step`}>sampled</span>}
      </div>
      <div ref={body} class="rl-hist-body">
        {!loaded && <p class="rl-muted rl-hist-note">{seen ? "Loading…" : ""}</p>}
        {plots.map((p) => (
          <div class="rl-hist-run-block" key={p.l.run.run} data-run={p.l.run.run}>
            {(mode === "offset" || runs.length > 1) && <RunLabel run={p.l.run.run} colour={p.l.run.colour} />}
            {p.problem && (
              <p class="rl-hist-note" role="note" data-testid="histogram-problem">
                {p.problem}
              </p>
            )}
            {mode === "offset" && <Plot curves={p.curves} mode={mode} width={width} highlight={highlightOf(p.curves)} theme={theme} testid="histogram-canvas" />}
          </div>
        ))}
        {content}
      </div>
      {steps.length > 0 && (
        <label class="rl-field rl-hist-slider">
          <span>Step</span>
          <input
            type="range"
            data-testid="histogram-step"
            min={0}
            max={steps.length - 1}
            step={1}
            value={stepIdx ?? steps.length - 1}
            aria-valuetext={step === null ? "none" : String(step)}
            onInput={(e) => setStepIdx(Number((e.target as HTMLInputElement).value))}
          />
          <output class="rl-num" data-testid="histogram-step-value">
            {step === null ? `${formatStep(steps[steps.length - 1])} (latest)` : formatStep(step)}
          </output>
          {step !== null && (
            <button type="button" class="rl-icon" title="Clear the highlighted step" onClick={() => setStepIdx(null)}>
              ×
            </button>
          )}
        </label>
      )}
    </div>
  );
}
