/** What the table, the parallel coordinates and the scatter matrix share, and the link to a trial's scalars. */
import { useMemo } from "preact/hooks";
import { exactRunsPattern } from "@app/filters";
import type { Column, Trial } from "./model";

export interface ViewProps {
  /** The trials that pass the filters, in table order. */
  trials: Trial[];
  /** The columns shown. */
  columns: Column[];
  /** Each run's colour (the shell's). */
  colours: Map<string, string>;
  /** The highlighted trial's run ("" for none). */
  selected: string;
  onSelect(run: string): void;
}

/** A link to the scalars dashboard showing the trial's runs: a real URL (opens in a new tab too), handled
 * in place on a plain click. */
export function ScalarsLink({ trial, onOpen }: { trial: Trial; onOpen(trial: Trial): void }) {
  const href = useMemo(() => {
    const params = new URLSearchParams(location.search);
    params.set("tab", "scalars");
    params.set("runFilter", exactRunsPattern(trial.related_runs.length ? trial.related_runs : [trial.run]));
    params.delete("runs");
    return `?${params.toString()}`;
  }, [trial]);
  return (
    <a
      class="hp-scalars-link"
      data-testid="hparams-scalars-link"
      href={href}
      title={`Show the scalars of ${trial.related_runs.join(", ")}`}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        e.stopPropagation();
        onOpen(trial);
      }}
    >
      scalars ↗
    </a>
  );
}
