/**
 * The multi-type overlay's pure half: one step axis with, per run, a scalar tag's curve on the left y axis and
 * a histogram tag's percentile bands (TensorBoard's distribution: min–max and 16th–84th percentile filled,
 * the median dashed) on the right one — e.g. the loss with the gradient distribution of a layer; or, instead of
 * a distribution, the profiled steps' times on the right axis (the loss beside the step time).
 */
import type uPlot from "uplot";
import { joinSeries, type JoinInput } from "@charts/join";
import type { BandSpec, LineSpec } from "@charts/plot";

/** GET /api/distributions: `values[k]` holds basis point `basis_points[k]` at every step. */
export interface Distribution {
  basis_points: number[];
  step: number[];
  values: (number | null)[][];
}

export interface OverlayRun {
  run: string;
  colour: string;
  /** The scalar's steps and (smoothed) values; null when the run lacks the scalar tag. */
  scalar: { step: ArrayLike<number>; value: ArrayLike<number> } | null;
  distribution: Distribution | null;
  /** The profiled steps' times (ms; GET /api/profile/steps, the slowest trace of each step), drawn on the right
   * axis instead of a distribution; null when not asked or the run has no traces. */
  stepTime?: { step: number[]; ms: number[] } | null;
}

export interface OverlayModel {
  lines: LineSpec[];
  bands: BandSpec[];
  data: uPlot.AlignedData;
  structure: string;
  points: number;
}

/** The row of basis point `bp` (e.g. 5000 = the median), or null when the answer lacks it. */
function row(d: Distribution, bp: number): Float64Array | null {
  const k = d.basis_points.indexOf(bp);
  if (k < 0 || !d.values[k]) return null;
  return Float64Array.from(d.values[k], (v) => (v === null ? NaN : v));
}

/** `markSteps`: steps marked on the axis (image steps), joined into the x axis so its range spans them. */
export function buildOverlay(runs: OverlayRun[], scalarTag: string, histogramTag: string, width: number, markSteps: number[] = []): OverlayModel {
  const lines: LineSpec[] = [];
  const bands: BandSpec[] = [];
  const inputs: JoinInput[] = [];
  let points = 0;
  for (const r of runs) {
    if (r.scalar) {
      lines.push({ label: `${r.run} · ${scalarTag}`, colour: r.colour, width: 1.5 });
      inputs.push({ x: r.scalar.step, columns: [r.scalar.value] });
      points += r.scalar.step.length;
    }
    const d = r.distribution;
    const [min, max, p16, p84, median] = d ? [0, 10000, 1587, 8413, 5000].map((bp) => row(d, bp)) : [];
    if (d && min && max && p16 && p84 && median) {
      const at = lines.length + 1;
      const label = `${r.run} · ${histogramTag}`;
      lines.push(
        { label: `${label} max`, colour: r.colour, bandEdge: true, scale: "y2" },
        { label: `${label} min`, colour: r.colour, bandEdge: true, scale: "y2" },
        { label: `${label} 84%`, colour: r.colour, bandEdge: true, scale: "y2" },
        { label: `${label} 16%`, colour: r.colour, bandEdge: true, scale: "y2" },
        { label: `${label} median`, colour: r.colour, width: 1, dash: [4, 3], scale: "y2" },
      );
      bands.push({ upper: at, lower: at + 1, colour: r.colour, alpha: 0.08 }, { upper: at + 2, lower: at + 3, colour: r.colour, alpha: 0.18 });
      inputs.push({ x: d.step, columns: [max, min, p84, p16, median] });
      points += d.step.length;
    }
  }
  for (const r of runs) {
    const t = r.stepTime;
    if (!t || !t.step.length) continue;
    lines.push({ label: `${r.run} · step time (ms)`, colour: r.colour, width: 2, dash: [2, 2], scale: "y2" });
    inputs.push({ x: t.step, columns: [Float64Array.from(t.ms)] });
    points += t.step.length;
  }
  if (markSteps.length > 0) inputs.push({ x: markSteps, columns: [] });
  const joined = joinSeries(inputs, Math.max(200, width * 2));
  const data = [joined.x, ...joined.columns] as unknown as uPlot.AlignedData;
  return { lines, bands, data, structure: JSON.stringify([lines, bands]), points };
}
