/**
 * Run colours: distinct for the runs on screen, stable for a given set of runs, readable on light and dark themes.
 *
 * The palette was chosen greedily in OKLab for the largest smallest pairwise distance (about 9 ΔE·100 between
 * the closest pair) among colours with at least 3:1 contrast against both the light background (#ffffff) and
 * the dark one (#16181d), the WCAG level for lines and marks. Early entries are the most distinct from each other.
 *
 * Runs take the palette in order of appearance: the shell registers them in the run list's order
 * ({@link assignColours}, natural order), so the first run gets the first colour, the second the second, and the
 * first {@link PALETTE}.length runs never share one. (Hashing names onto slots, as TensorBoard does, gave three
 * purples to five runs.) A run keeps its colour for the page's lifetime; one that appears later takes the next
 * colour. The HTML report colours the same runs the same way (ridgeline/report/colours.py has this palette).
 * Run groups draw from their own sequence ({@link sequenceColours}), never from the runs'.
 */
import { compareRuns } from "./runOrder";

export const PALETTE: readonly string[] = [
  "#e50a7a", "#1bab49", "#1a54f0", "#958fb8", "#9a5505", "#a231d7", "#027972", "#fd5b0b",
  "#b4902e", "#825686", "#dd62dc", "#1d8ef5", "#c66876", "#cd1819", "#6c7e1e", "#9172ee",
  "#41a199", "#396cb0", "#b847a2", "#7142ee", "#9a795a", "#fe4f75", "#ae3d62", "#c86906",
];

/** Assigns palette colours to names in the order they are registered, cycling past the palette's size. */
export class ColourAssigner {
  private readonly slots = new Map<string, number>();

  constructor(private readonly palette: readonly string[] = PALETTE) {}

  colourFor(name: string): string {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = this.slots.size % this.palette.length;
      this.slots.set(name, slot);
    }
    return this.palette[slot]!;
  }

  /** Registers names in the run list's order, so a given set of runs gets the same colours on every page load. */
  assign(names: Iterable<string>): void {
    for (const name of [...names].sort(compareRuns)) this.colourFor(name);
  }
}

/** Colours for a sequence of labels of its own (run groups): the first label the first colour, and so on. */
export function sequenceColours(labels: Iterable<string>, palette: readonly string[] = PALETTE): (label: string) => string {
  const order = new Map<string, number>();
  for (const label of labels) if (!order.has(label)) order.set(label, order.size);
  return (label) => palette[(order.get(label) ?? 0) % palette.length]!;
}

const shared = new ColourAssigner();

/** The colour of a run: stable per run name for the page's lifetime, shared by the sidebar and every chart. */
export function colourFor(run: string): string {
  return shared.colourFor(run);
}

/** Registers runs (in the run list's order) before any colour is asked for: colours depend on the run set only. */
export function assignColours(runs: Iterable<string>): void {
  shared.assign(runs);
}
