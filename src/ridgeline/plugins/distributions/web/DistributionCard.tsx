/**
 * One distribution tag: per run, TensorBoard's percentile bands over steps (min–max, 7–93%, 16–84%, 31–69%,
 * darker towards the median, the median as a line) drawn with the scalars' uPlot wrapper; hovering lists the
 * step's nine values. Steps whose histogram was empty are gaps; unreadable steps are counted in the card.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import { formatNumber, formatStep } from "@charts/format";
import { Plot, type BandSpec, type LineSpec } from "@charts/plot";
import { nearestIndex } from "@charts/aggregate";
import { useLazyCard, useReadyFlag } from "@charts/lazyCard";
import { HISTOGRAM_CARD_VIEW, RunLabel, useRunData, type RunData } from "@charts/histograms/cards";
import { fetchDistributions, type DistributionsResponse } from "@charts/histograms/data";

const HEIGHT = 220;
/** Band fill alpha from the outermost (min–max) to the innermost (31–69%). */
const BAND_ALPHA = [0.12, 0.18, 0.26, 0.36];

type Loaded = RunData<DistributionsResponse>;

function config(colour: string, width: number, onCursor: (u: uPlot, own: boolean) => void) {
  const lines: LineSpec[] = [];
  for (let i = 0; i < 9; i++) lines.push({ label: `p${i}`, colour, bandEdge: i !== 4, width: i === 4 ? 1.5 : 0 });
  const bands: BandSpec[] = BAND_ALPHA.map((alpha, i) => ({ upper: 9 - i, lower: 1 + i, colour, alpha }));
  return {
    width,
    height: HEIGHT,
    xMode: "step" as const,
    xLog: false,
    yLog: false,
    ignoreOutliers: false,
    syncKey: null,
    lines,
    bands,
    onCursor,
  };
}

function note(l: Loaded): string | null {
  if (l.error) return l.error;
  const d = l.data;
  if (!d) return null;
  const notes: string[] = [];
  if (d.errors.length) notes.push(`${d.errors.length} step${d.errors.length > 1 ? "s" : ""} could not be read (step ${d.errors[0].step}: ${d.errors[0].error})`);
  if (d.empty_steps.length) notes.push(d.empty_steps.length === d.step.length ? "every histogram is empty (no counts)" : `${d.empty_steps.length} empty histogram${d.empty_steps.length > 1 ? "s" : ""} (gaps)`);
  return notes.length ? notes.join("; ") : null;
}

const LABELS = ["max", "93%", "84%", "69%", "median", "31%", "16%", "7%", "min"];

function RunPlot({ l, width, theme }: { l: Loaded; width: number; theme: string }) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<Plot | null>(null);
  const [tip, setTip] = useState<string[] | null>(null);
  const d = l.data;
  useLayoutEffect(() => {
    if (!el.current || !d || width <= 0 || !d.step.length) return;
    const data = [d.step, ...d.values] as uPlot.AlignedData;
    const onCursor = (u: uPlot, own: boolean) => {
      const x = u.cursor.idx;
      if (!own || x == null || x < 0) return setTip(null);
      const i = nearestIndex(d.step, d.step[x]);
      const vals = d.values.map((col) => col[i]);
      setTip([`step ${formatStep(d.step[i])}`, ...vals.reverse().map((v, k) => `${LABELS[k]} ${v == null ? "(empty)" : formatNumber(v)}`)]);
    };
    if (!plot.current) plot.current = new Plot(el.current, config(l.run.colour, width, onCursor), data);
    else {
      plot.current.setSize(width, HEIGHT);
      plot.current.setData(data, null);
    }
  }, [d, width, theme]);
  useEffect(() => () => plot.current?.destroy(), []);
  if (!d || !d.step.length) return null;
  return (
    <div class="rl-hist-plot" data-testid="distribution-plot" data-steps={d.step.length}>
      <div ref={el} />
      {tip && (
        <div class="rl-hist-tip" data-testid="distribution-tooltip" style={{ right: "8px", top: "4px" }}>
          {tip.map((t) => (
            <div>{t}</div>
          ))}
        </div>
      )}
    </div>
  );
}

export function DistributionCard(props: { tag: string; runs: RunInfo[]; tick: number; theme: "light" | "dark"; eager: boolean }) {
  const { tag, runs, tick, theme, eager } = props;
  const ref = useRef<HTMLDivElement>(null);
  const seen = useLazyCard(ref, `distributions:${tag}`, { ...HISTOGRAM_CARD_VIEW, eager });
  const { loaded, width, body } = useRunData(seen, tag, runs, tick, fetchDistributions);
  const ready = loaded !== null && width > 0;
  useReadyFlag(`distributions:${tag}`, ready);

  return (
    <div ref={ref} class="rl-card rl-hist-card" data-testid="distribution-card" data-tag={tag} data-ready={ready ? "true" : "false"}>
      <div class="rl-card-head">
        <h3 class="rl-card-title" title={tag}>
          {tag}
        </h3>
      </div>
      <div ref={body} class="rl-hist-body">
        {!loaded && <p class="rl-muted rl-hist-note">{seen ? "Loading…" : ""}</p>}
        {(loaded ?? []).map((l) => {
          const problem = note(l);
          return (
            <div class="rl-hist-run-block" key={l.run.run} data-run={l.run.run}>
              <RunLabel run={l.run.run} colour={l.run.colour} />
              {problem && (
                <p class="rl-hist-note" role="note" data-testid="distribution-problem">
                  {problem}
                </p>
              )}
              <RunPlot l={l} width={width} theme={theme} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
