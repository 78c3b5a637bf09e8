/**
 * Parallel coordinates (SVG): one vertical axis per shown column (numbers on a linear or log axis, strings,
 * booleans and mixed types on a categorical one), one line per trial coloured by the chosen metric (brighter
 * is better). A line breaks where a trial has no value. Clicking a line selects the trial.
 */
import { useMemo } from "preact/hooks";
import { cellValue, clip, formatCell, scaleFor, type Column } from "./model";
import type { ViewProps } from "./shared";

const AXIS_GAP = 130;
const HEIGHT = 340;
const TOP = 64;
const BOTTOM = 22;
const LEFT = 70;

export function ParallelCoords({
  trials,
  columns,
  selected,
  onSelect,
  lineColours,
  colourCol,
}: ViewProps & { lineColours: Map<string, string | null>; colourCol: Column | null }) {
  const scales = useMemo(() => columns.map((c) => scaleFor(trials, c)), [trials, columns]);
  if (columns.length === 0) return <p class="rl-empty">Every column is hidden: show some in the Columns menu.</p>;
  const width = LEFT * 2 + AXIS_GAP * Math.max(1, columns.length - 1);
  const plotH = HEIGHT - TOP - BOTTOM;
  const xOf = (i: number) => LEFT + i * AXIS_GAP;
  const yOf = (p: number) => TOP + (1 - p) * plotH;

  const paths = trials.map((t) => {
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
    return { run: t.run, d };
  });
  const selPath = paths.find((p) => p.run === selected);

  return (
    <div class="hp-scroll" data-testid="hparams-parallel">
      <svg width={width} height={HEIGHT} role="img" aria-label="Parallel coordinates of the trials">
        {columns.map((c, i) => (
          <g key={c.id} class="hp-axis" data-col={c.id} transform={`translate(${xOf(i)},0)`}>
            {/* Labels alternate between two rows so long neighbours do not overlap. */}
            <text class="hp-axis-label" y={TOP - (i % 2 ? 24 : 42)} text-anchor="middle">
              <title>{c.label}</title>
              {clip(c.label, 30)}
            </text>
            <text class="hp-axis-kind" y={TOP - 10} text-anchor="middle">
              {scales[i].kind === "log" ? "log" : scales[i].kind === "category" ? (c.type === "mixed" ? "mixed" : "") : ""}
            </text>
            <line y1={TOP} y2={TOP + plotH} />
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
        <g class="hp-lines" data-dimmed={selected ? "true" : "false"}>
          {paths.map((p) => (
            <path
              key={p.run}
              data-run={p.run}
              d={p.d}
              stroke={lineColours.get(p.run) ?? "var(--muted)"}
              class={p.run === selected ? "hp-line hp-line-selected" : "hp-line"}
            />
          ))}
        </g>
        {selPath && <path class="hp-line-highlight" d={selPath.d} data-run={selPath.run} data-testid="hparams-parallel-selected" />}
        <g class="hp-hits">
          {paths.map((p, i) => {
            const t = trials[i];
            const summary = columns.map((c) => `${c.label}: ${formatCell(cellValue(t, c), c)}`).join("\n");
            return (
              <path key={p.run} data-run={p.run} d={p.d} class="hp-hit" onClick={() => onSelect(p.run)}>
                <title>{`${p.run}\n${summary}`}</title>
              </path>
            );
          })}
        </g>
      </svg>
      {colourCol && (
        <p class="hp-legend muted">
          Lines coloured by {colourCol.label}: <span class="hp-ramp" /> brighter is better.
        </p>
      )}
    </div>
  );
}
