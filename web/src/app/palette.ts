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
 * colour. The URL keeps the colours (the "colours" key, {@link ColourAssigner.encode}; localStorage too): whoever
 * opens a shared link sees every run in the sender's colour, whatever runs were added or selected since. The HTML
 * report colours the same runs the same way (ridgeline/report/colours.py has this palette).
 * Run groups draw from their own sequence ({@link sequenceColours}), never from the runs'.
 */
import { compareRuns } from "./runOrder";

export const PALETTE: readonly string[] = [
  "#e50a7a", "#1bab49", "#1a54f0", "#958fb8", "#9a5505", "#a231d7", "#027972", "#fd5b0b",
  "#b4902e", "#825686", "#dd62dc", "#1d8ef5", "#c66876", "#cd1819", "#6c7e1e", "#9172ee",
  "#41a199", "#396cb0", "#b847a2", "#7142ee", "#9a795a", "#fe4f75", "#ae3d62", "#c86906",
];

/** A short, URL-safe token for a run name (32-bit FNV-1a in base 36): links name runs by it, not in full. */
export function runToken(name: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** How many runs a link's colour map names at most (past the palette's size colours repeat anyway). */
export const MAX_LINKED_COLOURS = 256;

/**
 * Assigns palette colours to names in the order they are registered: each name takes the lowest free position
 * in the colour sequence (position i is the palette's colour i, cycling past its size). A link carries the
 * positions ({@link encode}); {@link seed} gives the named runs theirs back before any other run is registered.
 */
export class ColourAssigner {
  private readonly slots = new Map<string, number>();
  private readonly taken = new Set<number>();
  private next = 0;
  /** Positions from a link, by run token, not yet claimed by a run. */
  private seeded = new Map<string, number>();

  constructor(private readonly palette: readonly string[] = PALETTE) {}

  colourFor(name: string): string {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      const wanted = this.seeded.get(runToken(name));
      if (wanted !== undefined && !this.taken.has(wanted)) {
        slot = wanted;
        this.seeded.delete(runToken(name));
      } else {
        while (this.taken.has(this.next) || this.reserved(this.next)) this.next++;
        slot = this.next;
      }
      this.slots.set(name, slot);
      this.taken.add(slot);
    }
    return this.palette[slot % this.palette.length]!;
  }

  /** Registers names in the run list's order, so a given set of runs gets the same colours on every page load. */
  assign(names: Iterable<string>): void {
    const sorted = [...names].sort(compareRuns);
    // Runs a link names first, so that no run takes a position the link gives to another.
    for (const name of sorted) if (this.seeded.has(runToken(name))) this.colourFor(name);
    // Positions of a link's runs that are not here: free again for these runs.
    this.seeded.clear();
    for (const name of sorted) this.colourFor(name);
  }

  /** The colour positions of the registered runs, for a link: run tokens in position order ("" for a gap). */
  encode(): string {
    const byPosition: string[] = [];
    for (const [name, slot] of this.slots) if (slot < MAX_LINKED_COLOURS) byPosition[slot] = runToken(name);
    return Array.from(byPosition, (token) => token ?? "").join(".");
  }

  /** Takes positions from {@link encode}'s text for runs not registered yet (what a shared link carries). */
  seed(encoded: string): void {
    encoded.split(".").forEach((token, slot) => {
      if (token && slot < MAX_LINKED_COLOURS && !this.seeded.has(token)) this.seeded.set(token, slot);
    });
  }

  private reserved(slot: number): boolean {
    for (const wanted of this.seeded.values()) if (wanted === slot) return true;
    return false;
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

/** The page's colour positions for a link (see {@link ColourAssigner.encode}). */
export function encodeColours(): string {
  return shared.encode();
}

/** Gives the runs a link names their colours on the sender's screen (call before {@link assignColours}). */
export function seedColours(encoded: string): void {
  shared.seed(encoded);
}
