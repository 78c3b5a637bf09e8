/**
 * The Time Series page's pure half: one card per (kind, tag) over the selected runs, for the kinds it shows
 * (scalars, histograms, images), filtered by the shell's tag regex, grouped into sections by tag prefix like
 * the other dashboards, with the pinned cards listed apart.
 */
import type { RunInfo } from "@app/types";
import { groupTags } from "@charts/groups";

export const KINDS = ["scalars", "histograms", "images"] as const;
export type Kind = (typeof KINDS)[number];

export interface Item {
  kind: Kind;
  tag: string;
  /** Stable id (pins, React keys): "kind:tag". */
  id: string;
}

export interface Section {
  name: string;
  items: Item[];
}

export const itemId = (kind: Kind, tag: string) => `${kind}:${tag}`;

/** Sort order within a tag: a scalar first, then its histogram, then its images. */
const KIND_ORDER: Record<Kind, number> = { scalars: 0, histograms: 1, images: 2 };

/** Every (kind, tag) some selected run has, for the `kinds` shown, in sections by prefix; pinned ids left out. */
export function planItems(runs: RunInfo[], kinds: readonly Kind[], filter: RegExp | null, pinned: ReadonlySet<string>): Section[] {
  const byTag = new Map<string, Set<Kind>>();
  for (const r of runs) {
    for (const kind of kinds) {
      for (const tag of r.tags[kind] ?? []) {
        let set = byTag.get(tag);
        if (!set) byTag.set(tag, (set = new Set()));
        set.add(kind);
      }
    }
  }
  return groupTags(byTag.keys(), filter)
    .map((g) => ({
      name: g.name,
      items: g.tags.flatMap((tag) =>
        [...byTag.get(tag)!]
          .sort((a, b) => KIND_ORDER[a] - KIND_ORDER[b])
          .map((kind) => ({ kind, tag, id: itemId(kind, tag) }))
          .filter((it) => !pinned.has(it.id)),
      ),
    }))
    .filter((s) => s.items.length > 0);
}

/** The pinned ids that still name a (kind, tag) of the selected runs, as items, in pinning order. */
export function pinnedItems(runs: RunInfo[], pinned: readonly string[]): Item[] {
  const out: Item[] = [];
  for (const id of pinned) {
    const colon = id.indexOf(":");
    const kind = id.slice(0, colon) as Kind;
    const tag = id.slice(colon + 1);
    if (!(KINDS as readonly string[]).includes(kind)) continue;
    if (runs.some((r) => (r.tags[kind] ?? []).includes(tag))) out.push({ kind, tag, id });
  }
  return out;
}

/** The runs that have `tag` of `kind`. */
export function runsWith(runs: RunInfo[], kind: Kind, tag: string): RunInfo[] {
  return runs.filter((r) => (r.tags[kind] ?? []).includes(tag));
}
