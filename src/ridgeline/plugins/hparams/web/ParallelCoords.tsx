/**
 * Parallel coordinates (SVG): one vertical axis per shown column (numbers on a linear or log axis, strings,
 * booleans and mixed types on a categorical one), one line per trial coloured by the chosen metric (brighter
 * is better). A line breaks where a trial has no value. Clicking a line selects the trial. Dragging along an
 * axis filters the column to the brushed range (the same filter as the table's; a click on the axis clears it).
 * The axes are scaled on every trial, not only those the filters keep, so they stay put while brushing.
 *
 * The plot fits the panel's width: the axes share it evenly (at least MIN_GAP apart, scrolling sideways past
 * that), and each title wraps and is cut within its axis's share, so neighbours never overlap and the last one
 * stays inside the plot (labels.ts).
 *
 * The lines are drawn once per (trials, columns, colours): selecting a trial only dims them (a CSS
 * attribute) and draws its line again on top, so a click does not rebuild hundreds of paths.
 */
import { memo } from "preact/compat";
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { canvasMeasure, wrapLabel } from "./labels";
import {
  brushFilter,
  cellValue,
  clip,
  filterMarks,
  filterSpan,
  formatCell,
  scaleFor,
  type Column,
  type Filter,
  type Filters,
  type Scale,
  type Trial,
} from "./model";
import type { ViewProps } from "./shared";

/** The closest two axes may be; with more columns than fit, the plot scrolls sideways. */
const MIN_GAP = 110;
const HEIGHT = 340;
const TOP = 64;
const BOTTOM = 22;
/** Room left of the first axis for its tick labels. */
const LEFT = 70;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const TITLE_LINE = 13;
const TITLE_FONT = "600 12px system-ui, sans-serif";

/** Where the axes go: the first at `left`, then every `gap`; the plot `width` wide. */
export interface AxesLayout {
  left: number;
  gap: number;
  width: number;
}

/** The axes spread over `available` px: each gets an even share (its title's room), the first leaving LEFT. */
export function layoutAxes(n: number, available: number): AxesLayout {
  const count = Math.max(1, n);
  let gap = available / count;
  let left = gap / 2;
  if (left < LEFT) {
    left = LEFT;
    gap = (available - LEFT) / (count - 0.5);
  }
  if (gap < MIN_GAP) gap = MIN_GAP;
  return { left, gap, width: Math.max(available, Math.ceil(left + (count - 1) * gap + gap / 2)) };
}

const yOf = (p: number) => TOP + (1 - p) * PLOT_H;

/** The SVG path of one trial across the axes, broken where it has no value. */
function pathOf(t: Trial, columns: Column[], scales: Scale[], xOf: (i: number) => number): string {
  let d = "";
  let open = false;
  columns.forEach((c, i) => {
    const p = scales[i].pos(cellValue(t, c));
    if (p === null) {
      open = false;
      return;
    }
    d += `${open ? "L" : "M"}${xOf(i).toFixed(1)},${yOf(p).toFixed(1)}`;
    open = true;
  });
  return d;
}

export function ParallelCoords({
  trials,
  columns,
  selected,
  onSelect,
  lineColours,
  colourCol,
  scaleTrials,
  filters,
  onFilter,
}: ViewProps & {
  lineColours: Map<string, string | null>;
  colourCol: Column | null;
  /** The trials the axes span (all of them, filtered out or not). */
  scaleTrials: Trial[];
  filters: Filters;
  onFilter(id: string, f: Filter | null): void;
}) {
  const scales = useMemo(() => columns.map((c) => scaleFor(scaleTrials, c)), [scaleTrials, columns]);
  const svg = useRef<SVGSVGElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [available, setAvailable] = useState(900);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => el.clientWidth > 0 && setAvailable(el.clientWidth);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [columns.length === 0]);
  const layout = useMemo(() => layoutAxes(columns.length, available), [columns.length, available]);
  const xOf = useMemo(() => (i: number) => layout.left + i * layout.gap, [layout]);
  const paths = useMemo(() => trials.map((t) => pathOf(t, columns, scales, xOf)), [trials, columns, scales, xOf]);
  if (columns.length === 0) return <p class="rl-empty">Every column is hidden: show some in the Columns menu.</p>;
  const width = layout.width;
  const chosen = trials.findIndex((t) => t.run === selected);

  return (
    <div class="hp-scroll" data-testid="hparams-parallel" ref={box}>
      <svg
        ref={svg}
        width={width}
        height={HEIGHT}
        role="img"
        aria-label="Parallel coordinates of the trials"
        data-dimmed={chosen >= 0 ? "true" : "false"}
      >
        <Axes columns={columns} scales={scales} layout={layout} />
        <Lines trials={trials} paths={paths} columns={columns} lineColours={lineColours} onSelect={onSelect} />
        <Brushes svg={svg} columns={columns} scales={scales} filters={filters} onFilter={onFilter} xOf={xOf} />
        {chosen >= 0 && (
          <path class="hp-line-highlight" d={paths[chosen]} data-run={selected} data-testid="hparams-parallel-selected" />
        )}
      </svg>
      {colourCol && (
        <p class="hp-legend muted">
          Lines coloured by {colourCol.label}: <span class="hp-ramp" /> brighter is better.
        </p>
      )}
    </div>
  );
}

const Axes = memo(function Axes({ columns, scales, layout }: { columns: Column[]; scales: Scale[]; layout: AxesLayout }) {
  const measure = useMemo(() => canvasMeasure(TITLE_FONT), []);
  return (
    <>
      {columns.map((c, i) => {
        // Each title within its axis's share of the width, on up to three lines ending just above the axis.
        const lines = wrapLabel(c.label, layout.gap - 12, measure);
        return (
        <g key={c.id} class="hp-axis" data-col={c.id} transform={`translate(${layout.left + i * layout.gap},0)`}>
          <text class="hp-axis-label" y={TOP - 20 - (lines.length - 1) * TITLE_LINE} text-anchor="middle">
            <title>{c.label}</title>
            {lines.map((line, k) => (
              <tspan key={k} x={0} dy={k === 0 ? 0 : TITLE_LINE}>
                {line}
              </tspan>
            ))}
          </text>
          <text class="hp-axis-kind" y={TOP - 10} text-anchor="middle">
            {scales[i].kind === "log" ? "log" : scales[i].kind === "category" && c.type === "mixed" ? "mixed" : ""}
          </text>
          <line y1={TOP} y2={TOP + PLOT_H} />
          {scales[i].ticks.map((tk) => (
            <g key={`${tk.at}:${tk.label}`} transform={`translate(0,${yOf(tk.at)})`}>
              <line x1={-4} x2={0} />
              <text x={-7} dy="0.32em" text-anchor="end">
                {clip(tk.label, 12)}
              </text>
            </g>
          ))}
        </g>
        );
      })}
    </>
  );
});

/** Every trial's line, and a wider invisible copy of it that takes the clicks and shows the values on hover. */
const Lines = memo(function Lines(props: {
  trials: Trial[];
  paths: string[];
  columns: Column[];
  lineColours: Map<string, string | null>;
  onSelect(run: string): void;
}) {
  const { trials, paths, columns, lineColours, onSelect } = props;
  return (
    <>
      <g class="hp-lines">
        {trials.map((t, i) => (
          <path key={t.run} data-run={t.run} d={paths[i]} stroke={lineColours.get(t.run) ?? "var(--muted)"} class="hp-line" />
        ))}
      </g>
      <g class="hp-hits">
        {trials.map((t, i) => (
          <path key={t.run} data-run={t.run} d={paths[i]} class="hp-hit" onClick={() => onSelect(t.run)}>
            <title>{`${t.run}\n${columns.map((c) => `${c.label}: ${formatCell(cellValue(t, c), c)}`).join("\n")}`}</title>
          </path>
        ))}
      </g>
    </>
  );
});

interface BrushProps {
  svg: { current: SVGSVGElement | null };
  columns: Column[];
  scales: Scale[];
  filters: Filters;
  onFilter(id: string, f: Filter | null): void;
  xOf(i: number): number;
}

/** Per axis: a strip that takes drags (the brush) and shows the column's current filter as a band. */
function Brushes({ svg, columns, scales, filters, onFilter, xOf }: BrushProps) {
  const [drag, setDrag] = useState<{ axis: number; p0: number; p1: number } | null>(null);
  const toP = (clientY: number) => {
    const m = svg.current?.getScreenCTM();
    const y = m ? (clientY - m.f) / m.d : clientY;
    return Math.min(1, Math.max(0, 1 - (y - TOP) / PLOT_H));
  };
  const finish = () => {
    if (!drag) return;
    const col = columns[drag.axis];
    setDrag(null);
    if (Math.abs(drag.p1 - drag.p0) < 0.01) onFilter(col.id, null);
    else onFilter(col.id, brushFilter(col, scales[drag.axis], drag.p0, drag.p1));
  };
  return (
    <g class="hp-brushes">
      {columns.map((c, i) => {
        const span: [number, number] | null =
          drag && drag.axis === i
            ? [Math.min(drag.p0, drag.p1), Math.max(drag.p0, drag.p1)]
            : filterSpan(scales[i], filters[c.id]);
        return (
          <g key={c.id} transform={`translate(${xOf(i)},0)`}>
            {span && (
              <rect
                class="hp-brush"
                data-col={c.id}
                x={-7}
                width={14}
                y={yOf(span[1]) - 3}
                height={yOf(span[0]) - yOf(span[1]) + 6}
              />
            )}
            {!drag &&
              filterMarks(scales[i], filters[c.id]).map((at) => (
                <rect key={at} class="hp-brush" data-col={c.id} x={-7} width={14} y={yOf(at) - 5} height={10} />
              ))}
            <rect
              class="hp-brush-area"
              data-testid="hparams-brush"
              data-col={c.id}
              x={-8}
              width={16}
              y={TOP - 4}
              height={PLOT_H + 8}
              onPointerDown={(e) => {
                (e.currentTarget as Element).setPointerCapture(e.pointerId);
                const p = toP(e.clientY);
                setDrag({ axis: i, p0: p, p1: p });
              }}
              onPointerMove={(e) => drag && drag.axis === i && setDrag({ ...drag, p1: toP(e.clientY) })}
              onPointerUp={finish}
              onPointerCancel={() => setDrag(null)}
            >
              <title>Drag along the axis to filter {c.label}; click to clear</title>
            </rect>
          </g>
        );
      })}
    </g>
  );
}
