/**
 * The PR curves dashboard: a card per tag (grouped by tag prefix) drawing precision against recall, one curve
 * per selected run in its colour, at the step the card's slider chooses (the newest by default; a run without
 * that step shows its last one before it). Hovering shows, for each run, the point nearest the cursor: its
 * threshold, precision, recall and TP/FP/TN/FN. A step whose tensor cannot be read is named in the card. PNG and
 * SVG downloads of the chart as drawn (@charts/picture).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { DashboardProps, RunInfo } from "@app/types";
import { formatNumber } from "@charts/format";
import { ChartPictureButtons } from "@charts/ChartPictureButtons";
import { safeFileName } from "@charts/export";
import type { Pictured } from "@charts/picture";
import { deleteTestEntry, setTestEntry } from "@web/testHooks";
import { TagSections, entryAt, runsWithTag, tagsOf, useTagCard, wallTimeAt } from "@app/cards";
import { StepSlider } from "@media/StepSlider";
import { useReadyFlag } from "@charts/lazyCard";
import { curveOf, hoverRow, nearestIndex, type Curve, type HoverRow, type PrStep } from "./model";

declare module "@web/testHooks" {
  interface TestHooks {
    /** Every PR curve chart by its tag. */
    prCharts: Map<string, uPlot>;
  }
}

export function PrCurvesDashboard({ runs, tagFilter, tick, theme }: DashboardProps) {
  const tags = useMemo(() => tagsOf(runs, "pr_curves"), [runs]);
  return (
    <div class="rl-tc-page rl-pr">
      <TagSections
        tags={tags}
        tagFilter={tagFilter}
        stateKey="pr.collapsed"
        what="PR curves"
        card={(tag) => (
          <PrCard
            key={tag}
            tag={tag}
            runs={runsWithTag(runs, "pr_curves", tag)}
            tick={tick}
            theme={theme}
          />
        )}
      />
    </div>
  );
}

interface PrCardProps {
  tag: string;
  runs: RunInfo[];
  tick: number;
  theme: "light" | "dark";
}

const HEIGHT = 300;

interface Shown {
  run: RunInfo;
  entry: PrStep;
  curve: Curve;
}

function PrCard({ tag, runs, tick, theme }: PrCardProps) {
  const id = `pr:${tag}`;
  const ref = useRef<HTMLDivElement>(null);
  const chartRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const pictureRef = useRef<Pictured | null>(null);
  const { data, errors, loaded, steps, index, setIndex, step } = useTagCard<PrStep>(ref, id, "/api/pr_curves", tag, runs, tick);
  const [hover, setHover] = useState<Hover | null>(null);
  const [drawn, setDrawn] = useState(false);

  const shown: Shown[] = useMemo(() => {
    const out: Shown[] = [];
    for (const run of runs) {
      const entry = entryAt(data.get(run.run), step);
      if (entry) out.push({ run, entry, curve: curveOf(entry) });
    }
    return out;
  }, [runs, data, step]);
  const shownRef = useRef(shown);
  shownRef.current = shown;
  const problems = [
    ...[...errors].map(([run, message]) => `${run}: ${message}`),
    ...shown.filter((s) => s.entry.error !== undefined).map((s) => `${s.run.run}, step ${s.entry.step}: ${s.entry.error}`),
  ];
  const structure = `${theme}\u0001${shown.map((s) => `${s.run.run}\u0002${s.run.colour}`).join("\u0001")}`;

  // One uPlot per structure (runs, colours, theme); new steps only replace its data.
  useLayoutEffect(() => {
    if (!loaded || !chartRef.current) return;
    const el = chartRef.current;
    const css = getComputedStyle(document.documentElement);
    const muted = css.getPropertyValue("--muted").trim() || "#888";
    const grid = css.getPropertyValue("--chart-grid").trim() || "rgba(128,128,128,0.15)";
    const axis = (label: string): uPlot.Axis => ({
      label,
      stroke: muted,
      grid: { stroke: grid, width: 1 },
      ticks: { stroke: grid, width: 1 },
      values: (_u, ticks) => ticks.map((t) => formatNumber(t, 3)),
    });
    const opts: uPlot.Options = {
      mode: 2,
      width: Math.max(200, el.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false, setScale: false }, points: { show: false } },
      scales: { x: { time: false, auto: false, range: [0, 1.02] }, y: { auto: false, range: [0, 1.02] } },
      axes: [axis("recall"), axis("precision")],
      series: [
        {},
        ...shownRef.current.map((s) => ({
          label: s.run.run,
          stroke: s.run.colour,
          width: 2,
          facets: [
            { scale: "x", auto: false },
            { scale: "y", auto: false },
          ],
          paths: uPlot.paths.linear!(),
          points: { show: false },
        })),
      ],
      hooks: {
        setCursor: [(u) => setHover(hoverAt(u, shownRef.current))],
        draw: [() => setDrawn(true)],
      },
    };
    const plot = new uPlot(opts, chartData(shownRef.current), el);
    plotRef.current = plot;
    pictureRef.current = { u: plot, cfg: { lines: shownRef.current.map((s) => ({ label: s.run.run, colour: s.run.colour, width: 2 })), bands: [] } };
    setTestEntry("prCharts", tag, plot);
    const ro = new ResizeObserver(() => {
      const width = el.clientWidth;
      if (width > 0 && width !== plot.width) plot.setSize({ width, height: HEIGHT });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
      plotRef.current = null;
      pictureRef.current = null;
      deleteTestEntry("prCharts", tag, plot);
      setDrawn(false);
    };
  }, [loaded, structure, tag]);

  useLayoutEffect(() => {
    const plot = plotRef.current;
    if (plot) plot.setData(chartData(shown));
    setHover(null);
  }, [shown]);

  const ready = loaded && drawn;
  useReadyFlag(id, ready);
  return (
    <div
      ref={ref}
      class="rl-tc-card rl-pr-card"
      data-testid="pr-card"
      data-tag={tag}
      data-ready={ready ? "true" : "false"}
      data-step={step ?? ""}
    >
      <div class="rl-tc-head">
        <h3 class="rl-tc-title">{tag}</h3>
        <StepSlider steps={steps} index={index} onChange={setIndex} wallTime={wallTimeAt(data, step)} />
        <ChartPictureButtons plot={pictureRef} title={step === null ? tag : `${tag} · step ${step}`} name={safeFileName(tag)} drawn={ready} />
      </div>
      {problems.map((p) => (
        <p class="rl-tc-error" role="alert" key={p}>
          {p}
        </p>
      ))}
      <div class="rl-pr-chart" ref={chartRef} onMouseLeave={() => setHover(null)} />
      {!loaded && <p class="rl-tc-note">loading…</p>}
      {hover?.dots.map((d, i) => (
        <span key={i} class="rl-pr-dot" style={{ left: `${d.left}px`, top: `${d.top}px`, borderColor: d.colour }} />
      ))}
      {hover && hover.rows.length > 0 && <Tooltip rows={hover.rows} left={hover.left} top={hover.top} />}
    </div>
  );
}

function chartData(shown: Shown[]): uPlot.AlignedData {
  return [null, ...shown.map((s) => [s.curve.recall, s.curve.precision])] as unknown as uPlot.AlignedData;
}

interface Hover {
  rows: HoverRow[];
  /** The cursor and each run's nearest point (marked with a dot), in pixels from the card's corner. */
  left: number;
  top: number;
  dots: { left: number; top: number; colour: string }[];
}

/** The tooltip for the cursor's position: each run's nearest point, nearest first. */
function hoverAt(u: uPlot, shown: Shown[]): Hover | null {
  const { left, top } = u.cursor;
  if (left === undefined || top === undefined || left < 0 || top < 0) return null;
  const toX = (v: number) => u.valToPos(v, "x");
  const toY = (v: number) => u.valToPos(v, "y");
  const over = u.over.getBoundingClientRect();
  const card = u.root.closest(".rl-tc-card")?.getBoundingClientRect();
  const dx = over.left - (card?.left ?? 0);
  const dy = over.top - (card?.top ?? 0);
  const rows: HoverRow[] = [];
  const dots: Hover["dots"] = [];
  for (const s of shown) {
    const { index, distance } = nearestIndex(s.curve, left, top, toX, toY);
    if (index < 0) continue;
    rows.push(hoverRow(s.run.run, s.run.colour, s.entry, s.curve.source[index], distance));
    dots.push({ left: dx + toX(s.curve.recall[index]), top: dy + toY(s.curve.precision[index]), colour: s.run.colour });
  }
  rows.sort((a, b) => a.distance - b.distance || a.run.localeCompare(b.run));
  return { rows, left: dx + left, top: dy + top, dots };
}

const fmt = (v: number | null, digits = 4) => (v === null ? "–" : formatNumber(v, digits));

function Tooltip({ rows, left, top }: { rows: HoverRow[]; left: number; top: number }) {
  const tipRef = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left, top });
  // Keep the tooltip inside its card: to the left of the cursor near the right edge.
  useEffect(() => {
    const el = tipRef.current;
    const card = el?.parentElement;
    if (!el || !card) return;
    const w = el.offsetWidth;
    const x = left + 14 + w > card.clientWidth ? Math.max(0, left - 14 - w) : left + 14;
    setPos({ left: x, top: top + 14 });
  }, [left, top, rows.length]);
  return (
    <div ref={tipRef} class="rl-pr-tip" data-testid="pr-tooltip" style={{ left: `${pos.left}px`, top: `${pos.top}px` }}>
      <table>
        <thead>
          <tr>
            <th>Run</th>
            <th>Threshold</th>
            <th>Precision</th>
            <th>Recall</th>
            <th>TP</th>
            <th>FP</th>
            <th>TN</th>
            <th>FN</th>
            <th>Step</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, 8).map((r) => (
            <tr key={r.run} data-run={r.run}>
              <td>
                <span class="rl-tc-swatch" style={{ background: r.colour }} />
                {r.run}
              </td>
              <td class="num">{fmt(r.threshold, 3)}</td>
              <td class="num">{fmt(r.precision)}</td>
              <td class="num">{fmt(r.recall)}</td>
              <td class="num">{fmt(r.tp, 6)}</td>
              <td class="num">{fmt(r.fp, 6)}</td>
              <td class="num">{fmt(r.tn, 6)}</td>
              <td class="num">{fmt(r.fn, 6)}</td>
              <td class="num">{r.step}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > 8 && <div class="rl-tc-note">+{rows.length - 8} more</div>}
    </div>
  );
}
