/**
 * Parallel coordinates (SVG): one vertical axis per shown column (numbers on a linear or log axis, strings,
 * booleans and mixed types on a categorical one), one line per trial coloured by the chosen metric (brighter
 * is better). A line breaks where a trial has no value. Clicking a line selects the trial. Dragging along an
 * axis filters the column to the brushed range (the same filter as the table's; a click on the axis clears it).
 * The axes are scaled on every trial, not only those the filters keep, so they stay put while brushing.
 *
 * The lines are drawn once per (trials, columns, colours): selecting a trial only dims them (a CSS
 * attribute) and draws its line again on top, so a click does not rebuild hundreds of paths.
 */
import { memo } from "preact/compat";
import { useMemo, useRef, useState } from "preact/hooks";
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

const AXIS_GAP = 130;
const HEIGHT = 340;
const TOP = 64;
const BOTTOM = 22;
const LEFT = 70;
const PLOT_H = HEIGHT - TOP - BOTTOM;

const xOf = (i: number) => LEFT + i * AXIS_GAP;
const yOf = (p: number) => TOP + (1 - p) * PLOT_H;

/** The SVG path of one trial across the axes, broken where it has no value. */
function pathOf(t: Trial, columns: Column[], scales: Scale[]): string {
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
  const paths = useMemo(() => trials.map((t) => pathOf(t, columns, scales)), [trials, columns, scales]);
  if (columns.length === 0) return <p class="rl-empty">Every column is hidden: show some in the Columns menu.</p>;
  const width = LEFT * 2 + AXIS_GAP * Math.max(1, columns.length - 1);
  const chosen = trials.findIndex((t) => t.run === selected);

  return (
    <div class="hp-scroll" data-testid="hparams-parallel">
      <svg
        ref={svg}
        width={width}
        height={HEIGHT}
        role="img"
        aria-label="Parallel coordinates of the trials"
        data-dimmed={chosen >= 0 ? "true" : "false"}
      >
        <Axes columns={columns} scales={scales} />
        <Lines trials={trials} paths={paths} columns={columns} lineColours={lineColours} onSelect={onSelect} />
        <Brushes svg={svg} columns={columns} scales={scales} filters={filters} onFilter={onFilter} />
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

const Axes = memo(function Axes({ columns, scales }: { columns: Column[]; scales: Scale[] }) {
  return (
    <>
      {columns.map((c, i) => (
        <g key={c.id} class="hp-axis" data-col={c.id} transform={`translate(${xOf(i)},0)`}>
          {/* Labels alternate between two rows so long neighbours do not overlap. */}
          <text class="hp-axis-label" y={TOP - (i % 2 ? 24 : 42)} text-anchor="middle">
            <title>{c.label}</title>
            {clip(c.label, 30)}
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
      ))}
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
}

/** Per axis: a strip that takes drags (the brush) and shows the column's current filter as a band. */
function Brushes({ svg, columns, scales, filters, onFilter }: BrushProps) {
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
