/**
 * The tag sections below the toolbar, built for 10,000 tags: each section's cards come in chunks of a few grid
 * rows (layout.ts), and a chunk holds its cards only while it is near the view (within NEAR of the scrolled
 * area, or estimated within the first screen). Elsewhere it is one empty block of its last measured (or
 * estimated) height, so the scrollbar, scroll anchoring and every tag's place stay as they were. A chunk that
 * scrolls FAR away drops its cards again (their data stays in the series cache), which bounds the DOM however
 * far one scrolls.
 */
import type { VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { gridHeight, type PlannedSection } from "./layout";
import { observeNear } from "@charts/visibility";

/** Cards mount this close to the scrolled area (about a screen ahead), and unmount beyond FAR. */
const NEAR = "1000px 0px";
const FAR = "3000px 0px";

export interface SectionsProps {
  sections: PlannedSection<string>[];
  columns: number;
  /** Chunks whose estimated top is above this many px are mounted without waiting to be scrolled near. */
  screen: number;
  /** Cards estimated within this many px of the top load at once (no wait for their intersection report). */
  eagerScreen: number;
  /** Every card of the page loads at once (few cards). */
  eagerAll: boolean;
  onToggle: (name: string) => void;
  card: (tag: string, eager: boolean) => VNode;
}

export function Sections(props: SectionsProps) {
  return (
    <>
      {props.sections.map((s) => {
        const id = `rl-group-${s.name || "_"}`;
        return (
          <section class="rl-group" key={s.name} aria-labelledby={id} data-group={s.name}>
            <h2 class="rl-group-title">
              <button type="button" id={id} aria-expanded={s.open} onClick={() => props.onToggle(s.name)}>
                <span aria-hidden="true">{s.open ? "▾" : "▸"}</span> {s.name || "(no prefix)"}{" "}
                <span class="rl-muted">({s.total})</span>
              </button>
            </h2>
            {s.open && (
              <div class="rl-chunks">
                {s.chunks.map((c, i) => (
                  <Chunk
                    key={i}
                    tags={c.items}
                    columns={props.columns}
                    near={c.top < props.screen}
                    eager={props.eagerAll || c.top < props.eagerScreen}
                    card={props.card}
                  />
                ))}
              </div>
            )}
          </section>
        );
      })}
    </>
  );
}

interface ChunkProps {
  tags: string[];
  columns: number;
  near: boolean;
  eager: boolean;
  card: (tag: string, eager: boolean) => VNode;
}

function Chunk({ tags, columns, near, eager, card }: ChunkProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [seen, setSeen] = useState(false);
  // The height it had when its cards were last mounted (for the same cards in the same columns).
  const measured = useRef<{ key: string; height: number } | null>(null);
  const shapeKey = `${tags.length}:${tags[0] ?? ""}:${columns}`;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const offNear = observeNear(el, NEAR, (e) => {
      if (e.isIntersecting) setSeen(true);
    });
    const offFar = observeNear(el, FAR, (e) => {
      if (e.isIntersecting) return;
      setSeen((was) => {
        if (was && e.boundingClientRect.height > 0) measured.current = { key: shapeKey, height: e.boundingClientRect.height };
        return false;
      });
    });
    return () => {
      offNear();
      offFar();
    };
  }, [shapeKey]);

  const mounted = seen || near;
  if (!mounted) {
    const m = measured.current;
    const height = m && m.key === shapeKey ? m.height : gridHeight(tags.length, columns);
    return <div ref={ref} class="rl-chunk-placeholder" style={{ height: `${height}px` }} data-cards={tags.length} aria-hidden="true" />;
  }
  return (
    <div ref={ref} class="rl-grid">
      {tags.map((t) => card(t, eager))}
    </div>
  );
}
