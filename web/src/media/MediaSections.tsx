/**
 * The page layout of the images and audio dashboards: the selected runs' tags of one kind, filtered by the
 * shell's tag regex, in collapsible sections by tag prefix (expanded at first), with a card per (run, tag).
 */
import { MiddleEllipsis } from "@app/MiddleEllipsis";
import type { ComponentChildren } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";
import { useNear } from "@charts/lazyCard";
import type { RunInfo } from "@app/types";
import { runsWithTag } from "@app/cards";
import { groupTags } from "@charts/groups";
import type { MediaKind } from "./media";

/** The first cards of the page (more than a screen holds) load at once, the others when scrolled near. */
const EAGER_CARDS = 12;

export interface MediaSectionsProps {
  kind: MediaKind;
  runs: RunInfo[];
  tagFilter: RegExp | null;
  /** `eager`: one of the first cards of the page, which loads without waiting to be reported visible. */
  card(run: RunInfo, tag: string, eager: boolean): ComponentChildren;
}

export function MediaSections({ kind, runs, tagFilter, card }: MediaSectionsProps) {
  const [collapsed, setCollapsed] = useState<string[]>([]);
  const groups = useMemo(() => groupTags(runs.flatMap((r) => r.tags[kind] ?? []), tagFilter), [runs, kind, tagFilter]);
  let before = 0; // cards in the open sections above
  if (groups.length === 0) {
    return <p class="rl-empty">No {kind === "images" ? "image" : "audio"} tag of the selected runs matches the tag filter.</p>;
  }
  return (
    <>
      {groups.map((group) => {
        const open = !collapsed.includes(group.name);
        const pairs = group.tags.flatMap((tag) => runsWithTag(runs, kind, tag).map((r) => [r, tag] as const));
        const first = before;
        if (open) before += pairs.length;
        const toggle = () => setCollapsed(open ? [...collapsed, group.name] : collapsed.filter((g) => g !== group.name));
        return (
          <section class="rl-group" key={group.name} aria-label={group.name || "(no prefix)"}>
            <h2 class="rl-group-title">
              <button type="button" aria-expanded={open} onClick={toggle}>
                {open ? "▾" : "▸"} {group.name || "(no prefix)"}
              </button>{" "}
              <span class="rl-muted">{pairs.length}</span>
            </h2>
            {open ? (
              <SectionCards count={pairs.length} eager={first < EAGER_CARDS}>
                {() => pairs.map(([r, tag], i) => card(r, tag, first + i < EAGER_CARDS))}
              </SectionCards>
            ) : null}
          </section>
        );
      })}
    </>
  );
}

/**
 * A section's cards, rendered once the section comes within a screen of the view: until then a block of about
 * their height (200 image tags in 20 sections mount the first sections' cards, not 200).
 */
function SectionCards(props: { count: number; eager: boolean; children: () => ComponentChildren }) {
  const { count, children } = props;
  const ref = useRef<HTMLDivElement>(null);
  const near = useNear(ref, "100% 0px") || props.eager;
  return (
    <div ref={ref} class="rl-media-grid" style={near ? undefined : { minHeight: `${Math.ceil(count / 3) * 320}px` }}>
      {near ? children() : null}
    </div>
  );
}

/** A card's title row: the tag, the run with its colour. */
export function MediaHead({ run, tag }: { run: RunInfo; tag: string }) {
  return (
    <div class="rl-card-head">
      <h3 class="rl-card-title" title={tag}>
        <MiddleEllipsis text={tag} />
      </h3>
      <span class="rl-media-run" title={run.run}>
        <span class="rl-swatch" style={{ background: run.colour }} aria-hidden="true" />
        <MiddleEllipsis text={run.run} />
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
