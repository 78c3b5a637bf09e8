/**
 * The page layout of the images and audio dashboards: the selected runs' tags of one kind, filtered by the
 * shell's tag regex, in collapsible sections by tag prefix (expanded at first), with a card per (run, tag).
 */
import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import { groupTags } from "../../scalars/web/groups";
import type { MediaKind } from "./media";

export interface MediaSectionsProps {
  kind: MediaKind;
  runs: RunInfo[];
  tagFilter: RegExp | null;
  card(run: RunInfo, tag: string): ComponentChildren;
}

export function MediaSections({ kind, runs, tagFilter, card }: MediaSectionsProps) {
  const [collapsed, setCollapsed] = useState<string[]>([]);
  const groups = useMemo(() => groupTags(runs.flatMap((r) => r.tags[kind] ?? []), tagFilter), [runs, kind, tagFilter]);
  if (groups.length === 0) {
    return <p class="rl-empty">No {kind === "images" ? "image" : "audio"} tag of the selected runs matches the tag filter.</p>;
  }
  return (
    <>
      {groups.map((group) => {
        const open = !collapsed.includes(group.name);
        const cards = group.tags.flatMap((tag) => runs.filter((r) => (r.tags[kind] ?? []).includes(tag)).map((r) => card(r, tag)));
        return (
          <section class="rl-group" key={group.name} aria-label={group.name || "(no prefix)"}>
            <h2 class="rl-group-title">
              <button
                type="button"
                aria-expanded={open}
                onClick={() => setCollapsed(open ? [...collapsed, group.name] : collapsed.filter((g) => g !== group.name))}
              >
                {open ? "▾" : "▸"} {group.name || "(no prefix)"}
              </button>{" "}
              <span class="rl-muted">{cards.length}</span>
            </h2>
            {open ? <div class="rl-media-grid">{cards}</div> : null}
          </section>
        );
      })}
    </>
  );
}

/** A card's title row: the tag, the run with its colour. */
export function MediaHead({ run, tag }: { run: RunInfo; tag: string }) {
  return (
    <div class="rl-card-head">
      <h3 class="rl-card-title" title={tag}>
        {tag}
      </h3>
      <span class="rl-media-run" title={run.run}>
        <span class="rl-swatch" style={{ background: run.colour }} aria-hidden="true" />
        {run.run}
      </span>
    </div>
  );
}

/** What a card shows instead of a value it cannot show. */
export function Placeholder({ children }: { children: ComponentChildren }) {
  return (
    <div class="rl-placeholder" role="note" data-testid="media-placeholder">
      {children}
    </div>
  );
}
