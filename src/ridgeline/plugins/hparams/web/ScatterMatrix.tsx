/**
 * The scatter-plot matrix: one small plot per (shown metric column, shown hyperparameter), the metric up, the
 * hyperparameter across; a point per trial in its run colour. Categorical hyperparameters are spread a
 * little sideways so equal values stay countable. Points keep inside the plot's frame (an inset of INSET px, the
 * spread bounded by it), clear of the tick labels around it. Clicking a point selects the trial.
 */
import { Fragment } from "preact";
import { memo } from "preact/compat";
import { useMemo } from "preact/hooks";
import { cellValue, clip, formatCell, scaleFor, type Column, type Scale } from "./model";
import type { ViewProps } from "./shared";

const W = 170;
const H = 130;
const PAD_L = 44;
const PAD_B = 30;
const PAD_T = 8;
const PAD_R = 8;
const MAX_X = 10;
/** Room between the frame and the outermost values: more than the selected point's radius. */
const INSET = 9;
/** The selected point's radius (the others' is 3.5). */
const SELECTED_R = 6;
const MAX_Y = 8;

/** A small deterministic offset per run (-0.5..0.5) so points on one category do not hide each other. */
function jitter(run: string): number {
  let h = 2166136261;
  for (let i = 0; i < run.length; i++) h = Math.imul(h ^ run.charCodeAt(i), 16777619);
  return ((h >>> 0) % 1000) / 1000 - 0.5;
}

export function ScatterMatrix({ trials, columns, colours, selected, onSelect }: ViewProps) {
  const allXs = columns.filter((c) => c.kind === "hparam");
  const allYs = columns.filter((c) => c.kind === "metric");
  // A matrix of every pair would be thousands of plots for a wide sweep: the first shown columns only.
  const xs = allXs.slice(0, MAX_X);
  const ys = allYs.slice(0, MAX_Y);
  const scales = useMemo(() => new Map(columns.map((c) => [c.id, scaleFor(trials, c)])), [trials, columns]);
  if (xs.length === 0 || ys.length === 0) {
    return (
      <p class="rl-empty" data-testid="hparams-scatter">
        {ys.length === 0 ? "No metric column is shown: show some in the Columns menu." : "No hyperparameter column is shown."}
      </p>
    );
  }
  return (
    <div class="hp-scroll" data-testid="hparams-scatter">
      {(xs.length < allXs.length || ys.length < allYs.length) && (
        <p class="muted hp-legend" data-testid="hparams-scatter-capped">
          Showing {xs.length} of {allXs.length} hyperparameters and {ys.length} of {allYs.length} metric columns: hide
          columns in the Columns menu to choose which.
        </p>
      )}
      <div class="hp-matrix" style={{ gridTemplateColumns: `minmax(0, 170px) repeat(${xs.length}, ${W}px)` }}>
        <div />
        {xs.map((x) => (
          <div key={x.id} class="hp-matrix-head" title={x.label}>
            {clip(x.label, 24)}
          </div>
        ))}
        {ys.map((y) => (
          <Fragment key={y.id}>
            <div class="hp-matrix-row" title={y.label}>
              {y.label.replace(/\//g, "/\u200b")}
            </div>
            {xs.map((x) => (
              <Cell
                key={`${y.id}|${x.id}`}
                x={x}
                y={y}
                sx={scales.get(x.id)!}
                sy={scales.get(y.id)!}
                trials={trials}
                colours={colours}
                selected={selected}
                onSelect={onSelect}
              />
            ))}
          </Fragment>
        ))}
      </div>
    </div>
  );
}

interface CellProps {
  x: Column;
  y: Column;
  sx: Scale;
  sy: Scale;
  trials: ViewProps["trials"];
  colours: Map<string, string>;
  onSelect(run: string): void;
}

const PW = W - PAD_L - PAD_R;
const PH = H - PAD_T - PAD_B;
const xAt = (p: number) => PAD_L + INSET + p * (PW - 2 * INSET);
const yAt = (p: number) => PAD_T + INSET + (1 - p) * (PH - 2 * INSET);
const inside = (v: number, low: number, span: number) => Math.min(low + span - SELECTED_R - 1, Math.max(low + SELECTED_R + 1, v));

/** Where each trial's point goes in one cell (trials without both values are left out). */
function placePoints({ x, y, sx, sy, trials }: CellProps) {
  const band = sx.kind === "category" ? Math.min(0.6, 0.6 / Math.max(1, sx.ticks.length - 1)) : 0;
  const placed = [];
  for (const t of trials) {
    const vx = cellValue(t, x);
    const vy = cellValue(t, y);
    const px = sx.pos(vx);
    const py = sy.pos(vy);
    if (px === null || py === null) continue;
    const cx = inside(xAt(px) + band * 0.45 * jitter(t.run) * PW, PAD_L, PW);
    placed.push({ run: t.run, cx: cx.toFixed(1), cy: inside(yAt(py), PAD_T, PH).toFixed(1), vx, vy });
  }
  return placed;
}

/** One plot of the matrix. Its points are drawn once per data; the selected trial's point is drawn again on
 * top, bigger, so a click redraws one circle per cell rather than every point. */
function Cell(props: CellProps & { selected: string }) {
  const { x, y, sx, sy, selected } = props;
  const placed = useMemo(() => placePoints(props), [x, y, sx, sy, props.trials]);
  const chosen = placed.find((p) => p.run === selected);
  return (
    <svg class="hp-cell" width={W} height={H} data-x={x.id} data-y={y.id} data-dimmed={selected ? "true" : "false"}>
      <rect class="hp-cell-frame" x={PAD_L} y={PAD_T} width={PW} height={PH} />
      <Ticks sx={sx} sy={sy} />
      <Points x={x} y={y} colours={props.colours} onSelect={props.onSelect} placed={placed} />
      {chosen && (
        <circle
          data-run={chosen.run}
          cx={chosen.cx}
          cy={chosen.cy}
          r={SELECTED_R}
          fill={props.colours.get(chosen.run) ?? "var(--muted)"}
          class="hp-point hp-point-selected"
          onClick={() => props.onSelect(chosen.run)}
        />
      )}
    </svg>
  );
}

const Ticks = memo(function Ticks({ sx, sy }: { sx: Scale; sy: Scale }) {
  return (
    <>
      {thin(sx.ticks, 4).map((t) => (
        <text key={`x${t.at}`} class="hp-tick" x={xAt(t.at)} y={H - PAD_B + 12} text-anchor="middle">
          {clip(t.label, 9)}
        </text>
      ))}
      {thin(sy.ticks, 4).map((t) => (
        <text key={`y${t.at}`} class="hp-tick" x={PAD_L - 4} y={yAt(t.at)} dy="0.32em" text-anchor="end">
          {clip(t.label, 8)}
        </text>
      ))}
    </>
  );
});

const Points = memo(function Points(props: Pick<CellProps, "x" | "y" | "colours" | "onSelect"> & { placed: ReturnType<typeof placePoints> }) {
  const { x, y, colours, onSelect, placed } = props;
  return (
    <>
      {placed.map((p) => (
        <circle
          key={p.run}
          data-run={p.run}
          cx={p.cx}
          cy={p.cy}
          r={3.5}
          fill={colours.get(p.run) ?? "var(--muted)"}
          class="hp-point"
          onClick={() => onSelect(p.run)}
        >
          <title>{`${p.run}\n${x.label}: ${formatCell(p.vx, x)}\n${y.label}: ${formatCell(p.vy, y)}`}</title>
        </circle>
      ))}
    </>
  );
});

/** At most about n ticks, always keeping the first and the last. */
function thin<T>(ticks: T[], n: number): T[] {
  if (ticks.length <= n) return ticks;
  const step = Math.ceil((ticks.length - 1) / (n - 1));
  return ticks.filter((_, i) => i % step === 0 || i === ticks.length - 1);
}
