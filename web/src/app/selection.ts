/**
 * Which runs are selected, in a form that stays short in the URL whatever the number of runs: either "every run
 * except these" (the default, so runs that appear later are shown as they arrive) or "only these".
 * Each operation returns the shorter of the two forms for the runs it knows.
 */

export interface Selection {
  mode: "except" | "only";
  names: string[];
}

export const ALL: Selection = { mode: "except", names: [] };

export function isSelected(selection: Selection, run: string, lookup?: Set<string>): boolean {
  const has = lookup ? lookup.has(run) : selection.names.includes(run);
  return selection.mode === "except" ? !has : has;
}

/** A Set over the selection's names, for checking many runs at once. */
export function selectionLookup(selection: Selection): Set<string> {
  return new Set(selection.names);
}

export function selectedRuns(selection: Selection, runs: readonly string[]): string[] {
  const lookup = selectionLookup(selection);
  return runs.filter((run) => isSelected(selection, run, lookup));
}

/** The selection expressed with the fewest names, forgetting runs that no longer exist. */
export function normalise(selected: ReadonlySet<string>, runs: readonly string[]): Selection {
  const on = runs.filter((run) => selected.has(run));
  if (on.length === runs.length) return ALL;
  if (on.length * 2 <= runs.length) return { mode: "only", names: on };
  return { mode: "except", names: runs.filter((run) => !selected.has(run)) };
}

/** Sets every run in `targets` to `on`, leaving the others as they are. */
export function setRuns(selection: Selection, runs: readonly string[], targets: readonly string[], on: boolean): Selection {
  const selected = new Set(selectedRuns(selection, runs));
  for (const run of targets) {
    if (on) selected.add(run);
    else selected.delete(run);
  }
  return normalise(selected, runs);
}

/** Checks a value read from the URL or storage: anything malformed means "all runs". */
export function validSelection(value: unknown): Selection {
  if (
    value &&
    typeof value === "object" &&
    "mode" in value &&
    "names" in value &&
    (value.mode === "except" || value.mode === "only") &&
    Array.isArray(value.names) &&
    value.names.every((n: unknown) => typeof n === "string")
  ) {
    return { mode: value.mode, names: value.names as string[] };
  }
  return ALL;
}
