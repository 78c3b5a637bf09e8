/**
 * A step slider for cards that show one step at a time (images, audio, and the time series page's image
 * cards): a range input over the indices of the steps that have a value, labelled with the step number and
 * its wall time. `followSteps` keeps the choice sensible when a reload brings new steps.
 */
import { useRef, useState } from "preact/hooks";
import { formatStep, formatWallTime } from "@charts/format";

export interface StepSliderProps {
  /** The steps that have a value, ascending. */
  steps: readonly number[];
  /** The selected index into `steps`. */
  index: number;
  onChange(index: number): void;
  /** Wall time (seconds since the epoch) of the selected step, shown next to it. */
  wallTime?: number | null;
}

export function StepSlider({ steps, index, onChange, wallTime }: StepSliderProps) {
  const n = steps.length;
  const step = n ? steps[Math.min(Math.max(index, 0), n - 1)] : null;
  return (
    <div class="rl-step-slider">
      <input
        type="range"
        min={0}
        max={Math.max(n - 1, 0)}
        step={1}
        value={index}
        disabled={n <= 1}
        aria-label="Step"
        aria-valuetext={step === null ? "no step" : `step ${step}`}
        data-testid="step-slider"
        onInput={(e) => onChange(Number((e.currentTarget as HTMLInputElement).value))}
      />
      <span class="rl-step-label" data-testid="step-label">
        step <b>{formatStep(step)}</b>
        {n > 1 ? ` (${index + 1} of ${n})` : ""}
        {wallTime != null ? <span class="rl-step-time"> · {formatWallTime(wallTime)}</span> : null}
      </span>
    </div>
  );
}

/**
 * The index to select once `steps` replaced `previous`: the newest step when nothing was chosen yet or the
 * newest was selected (a live run keeps showing its latest value), else the same step (or the nearest one
 * before it when that step is gone).
 */
export function followSteps(previous: readonly number[], index: number | null, steps: readonly number[]): number {
  const last = steps.length - 1;
  if (index === null || last < 0 || index >= previous.length - 1) return Math.max(last, 0);
  const chosen = previous[index];
  let best = 0;
  for (let i = 0; i <= last; i++) if (steps[i] <= chosen) best = i;
  return best;
}

/** The selected index of a slider over `steps` (kept by {@link followSteps} when `steps` is replaced). */
export function useStepIndex(steps: readonly number[]): [number, (index: number) => void] {
  const chosen = useRef<{ steps: readonly number[]; index: number | null }>({ steps, index: null });
  const [, rerender] = useState(0);
  if (chosen.current.steps !== steps) {
    const { steps: previous, index } = chosen.current;
    chosen.current = { steps, index: index === null ? null : followSteps(previous, index, steps) };
  }
  const last = Math.max(steps.length - 1, 0);
  const select = (index: number) => {
    chosen.current = { steps: chosen.current.steps, index: index >= last ? null : index };
    rerender((n) => n + 1);
  };
  return [Math.min(chosen.current.index ?? last, last), select];
}
