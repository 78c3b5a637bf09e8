/**
 * Run order and nesting in the run list.
 *
 * Order: a natural sort that reads the numbers in names as numbers, decimals included (`lr0.001` < `lr0.01` <
 * `lr0.1` < `lr1`, `seed2` < `seed10`, `1e-4` < `1e-3`), compared path segment by path segment, so a run's
 * sub-runs (`run/loss_train`, torch's add_scalars; `run/1796…`, its add_hparams trial) sort right under it and
 * never between it and a sibling such as `run-b`. `localeCompare(numeric: true)` reads `0.001`, `0.01` and `0.1`
 * as the same three digits-after-a-dot and leaves their order to chance.
 *
 * Nesting: a run is nested under the nearest run its path starts with (`a/b/c` under `a/b`, else `a`), never
 * under the log directory's top run `.`.
 */

/** A number in a name: digits with an optional fraction and exponent ("0.01", "3", "1e-4", "2.5E+3"). */
const NUMBER = /\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

type Part = string | number;

const partsCache = new Map<string, Part[]>();

/** A name split into text and numbers: "lr0.01_b32" -> ["lr", 0.01, "_b", 32]. */
export function nameParts(name: string): Part[] {
  let parts = partsCache.get(name);
  if (parts) return parts;
  parts = [];
  let last = 0;
  for (const match of name.matchAll(NUMBER)) {
    if (match.index! > last) parts.push(name.slice(last, match.index));
    parts.push(Number(match[0]));
    last = match.index! + match[0].length;
  }
  if (last < name.length) parts.push(name.slice(last));
  if (partsCache.size > 50_000) partsCache.clear();
  partsCache.set(name, parts);
  return parts;
}

/** Natural order of two names without "/" (numbers as numbers; a number before text at the same place). */
export function compareNatural(a: string, b: string): number {
  if (a === b) return 0;
  const pa = nameParts(a);
  const pb = nameParts(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (typeof x === "number" && typeof y === "number") {
      if (x !== y) return x < y ? -1 : 1;
    } else if (typeof x === "number") {
      return -1;
    } else if (typeof y === "number") {
      return 1;
    } else {
      // Lower-cased code units, not the locale's collation: the report (ridgeline/report/colours.py) sorts the same.
      const [lx, ly] = [x.toLowerCase(), y.toLowerCase()];
      if (lx !== ly) return lx < ly ? -1 : 1;
    }
  }
  if (pa.length !== pb.length) return pa.length - pb.length;
  return a < b ? -1 : 1; // equal numbers written differently ("1.0", "1"): still a total order
}

/** Natural order of run paths, segment by segment: a run first, then its sub-runs, then its next sibling. */
export function compareRuns(a: string, b: string): number {
  if (a === b) return 0;
  const sa = a.split("/");
  const sb = b.split("/");
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const c = compareNatural(sa[i]!, sb[i]!);
    if (c !== 0) return c;
  }
  return sa.length - sb.length;
}

/** Each run's parent in the run list: the nearest other run its path starts with (never "."), else null. */
export function runParents(runs: readonly string[]): Map<string, string | null> {
  const known = new Set(runs);
  const parents = new Map<string, string | null>();
  for (const run of runs) {
    let parent: string | null = null;
    for (let cut = run.lastIndexOf("/"); cut > 0; cut = run.lastIndexOf("/", cut - 1)) {
      const candidate = run.slice(0, cut);
      if (known.has(candidate)) {
        parent = candidate;
        break;
      }
    }
    parents.set(run, parent);
  }
  return parents;
}

/** How deep each run is nested (0 for a run with no parent). */
export function runDepths(parents: ReadonlyMap<string, string | null>): Map<string, number> {
  const depths = new Map<string, number>();
  const depth = (run: string): number => {
    const known = depths.get(run);
    if (known !== undefined) return known;
    const parent = parents.get(run) ?? null;
    const d = parent === null ? 0 : depth(parent) + 1;
    depths.set(run, d);
    return d;
  };
  for (const run of parents.keys()) depth(run);
  return depths;
}

/** The runs nested under `run` (at any depth), in `runs`' order. */
export function descendants(run: string, runs: readonly string[]): string[] {
  const prefix = `${run}/`;
  return run === "." ? [] : runs.filter((r) => r.startsWith(prefix));
}
