/**
 * Run colours: stable per run name, distinguishable for at least 24 runs, readable on light and dark themes.
 *
 * The palette was chosen greedily in OKLab for the largest smallest pairwise distance (about 9 ΔE·100 between
 * the closest pair) among colours with at least 3:1 contrast against both the light background (#ffffff) and
 * the dark one (#16181d), the WCAG level for lines and marks. Early entries are the most distinct from each other.
 *
 * TensorBoard repeats colours every 7 runs and hashes names straight onto them, so two of a handful of runs
 * often share one. Here a name starts at its hash slot and, when another run already holds that slot, takes the
 * next free one (open addressing), so the first {@link PALETTE}.length runs never share a colour. Assignments are
 * kept for the page's lifetime, so a run never changes colour while the page is open; the shell registers runs in
 * sorted order ({@link assignColours}), so the same set of runs gets the same colours on every load.
 */
export const PALETTE: readonly string[] = [
  "#e50a7a", "#1bab49", "#1a54f0", "#958fb8", "#9a5505", "#a231d7", "#027972", "#fd5b0b",
  "#b4902e", "#825686", "#dd62dc", "#1d8ef5", "#c66876", "#cd1819", "#6c7e1e", "#9172ee",
  "#41a199", "#396cb0", "#b847a2", "#7142ee", "#9a795a", "#fe4f75", "#ae3d62", "#c86906",
];

/** 32-bit FNV-1a over the UTF-16 code units: small, fast and well spread for short names. */
export function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Assigns palette slots to names: hash slot first, next free slot on a collision, hash slot once all are taken. */
export class ColourAssigner {
  private readonly slots = new Map<string, number>();
  private readonly used = new Set<number>();

  constructor(private readonly palette: readonly string[] = PALETTE) {}

  colourFor(name: string): string {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      const n = this.palette.length;
      const home = hashName(name) % n;
      slot = home;
      if (this.used.size < n) {
        while (this.used.has(slot)) slot = (slot + 1) % n;
      }
      this.slots.set(name, slot);
      this.used.add(slot);
    }
    return this.palette[slot]!;
  }

  /** Registers names in sorted order, so a given set of runs gets the same colours on every page load. */
  assign(names: Iterable<string>): void {
    for (const name of [...names].sort()) this.colourFor(name);
  }
}

const shared = new ColourAssigner();

/** The colour of a run: stable per run name for the page's lifetime, shared by the sidebar and every chart. */
export function colourFor(run: string): string {
  return shared.colourFor(run);
}

/** Registers runs (sorted) before any colour is asked for, so colours depend on the run set, not on render order. */
export function assignColours(runs: Iterable<string>): void {
  shared.assign(runs);
}
