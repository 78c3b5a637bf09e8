/**
 * What the histograms and distributions dashboards share: the page of collapsible tag sections (grouped by the
 * prefix before the first '/', all open at first) and each card's lazy loading and readiness. A card loads once
 * it comes near the view; the page's `document.body.dataset.chartsReady` follows every visible card through the
 * scalars dashboard's registry.
 */
import type { ComponentChildren, RefObject, VNode } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import { useUrlState } from "@app/state";
import { groupTags } from "../../scalars/web/groups";
import { registry } from "../../scalars/web/registry";

/** The nearest ancestor that scrolls vertically (the shell's `main`; null: the viewport). */
function scrollParent(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const oy = getComputedStyle(p).overflowY;
    if (oy === "auto" || oy === "scroll") return p;
  }
  return null;
}

/**
 * Registers the card `id` with the readiness registry and returns whether it has come near the view (it then
 * loads, and stays loaded); an `eager` card (among the first on the page) loads at once, without waiting for
 * its first intersection report. Its readiness is reported with {@link useCardReady}.
 */
export function useLazyCard(ref: RefObject<HTMLElement | null>, id: string, eager = false): boolean {
  const [seen, setSeen] = useState(eager);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    registry.add(id);
    const root = scrollParent(el);
    const ahead = new IntersectionObserver((es) => es.some((e) => e.isIntersecting) && setSeen(true), {
      root,
      rootMargin: "300px 0px",
    });
    const view = new IntersectionObserver((es) => {
      for (const e of es) registry.setVisible(id, e.isIntersecting);
    }, { root });
    ahead.observe(el);
    view.observe(el);
    return () => {
      ahead.disconnect();
      view.disconnect();
      registry.remove(id);
    };
  }, [id]);
  return seen;
}

/** Reports the card's readiness in the commit that drew it (not after the next paint). */
export function useCardReady(id: string, ready: boolean): void {
  useLayoutEffect(() => registry.setReady(id, ready), [id, ready]);
}

export interface TagSectionsProps {
  /** URL key prefix of the page's settings ("h." or "d."). */
  prefix: string;
  tags: string[];
  tagFilter: RegExp | null;
  /** What the page is called in its empty messages ("histogram"). */
  what: string;
  /** `eager`: among the first EAGER_CARDS cards of the page (load without waiting to be seen). */
  card: (tag: string, eager: boolean) => VNode;
  children?: ComponentChildren;
}

/** The first cards of the page load at once (about what a 1280x800 window shows). */
const EAGER_CARDS = 4;

/** The toolbar (children), then one collapsible section per tag prefix; collapsed ones are kept in the URL. */
export function TagSections({ prefix, tags, tagFilter, what, card, children }: TagSectionsProps) {
  const [collapsed, setCollapsed] = useUrlState<string[]>(`${prefix}collapsed`, []);
  const groups = groupTags(tags, tagFilter);
  let shown = 0;
  return (
    <div class="rl-scalars rl-hist-page">
      {children}
      {tags.length === 0 && <p class="rl-empty">The selected runs have no {what}s.</p>}
      {tags.length > 0 && groups.length === 0 && <p class="rl-empty">No {what} tag matches the tag filter.</p>}
      {groups.map((g) => {
        const open = !collapsed.includes(g.name);
        const id = `${prefix}group-${g.name || "_"}`;
        const toggle = () => setCollapsed(open ? [...collapsed, g.name] : collapsed.filter((n) => n !== g.name));
        return (
          <section class="rl-group" key={g.name} aria-labelledby={id} data-group={g.name}>
            <h2 class="rl-group-title">
              <button type="button" id={id} aria-expanded={open} onClick={toggle}>
                <span aria-hidden="true">{open ? "▾" : "▸"}</span> {g.name || "(no prefix)"}{" "}
                <span class="rl-muted">({g.tags.length})</span>
              </button>
            </h2>
            {open && <div class="rl-grid">{g.tags.map((t) => card(t, shown++ < EAGER_CARDS))}</div>}
          </section>
        );
      })}
    </div>
  );
}

/** Run name with its colour swatch (a card holds one plot per run). */
export function RunLabel({ run, colour }: { run: string; colour: string }) {
  return (
    <div class="rl-hist-run">
      <span class="rl-hist-swatch" style={{ background: colour }} aria-hidden="true" />
      <span>{run}</span>
    </div>
  );
}

/** One run's answer for a card's tag, or the error message that replaced it. */
export interface RunData<T> {
  run: RunInfo;
  data: T | null;
  error: string | null;
}

/**
 * A card's data: `fetch(run, tag, signal)` for each run once the card is `seen`, again on every reload tick;
 * null until all answered. Also tracks the width of the element `body` (the plots' width).
 */
export function useRunData<T>(
  seen: boolean,
  tag: string,
  runs: RunInfo[],
  tick: number,
  fetch: (run: string, tag: string, signal: AbortSignal) => Promise<T>,
): { loaded: RunData<T>[] | null; width: number; body: RefObject<HTMLDivElement | null> } {
  const body = useRef<HTMLDivElement>(null);
  const [loaded, setLoaded] = useState<RunData<T>[] | null>(null);
  const [width, setWidth] = useState(0);
  const runKey = runs.map((r) => `${r.run}\u0000${r.colour}`).join("\u0001");
  // Layout effects: the width and the requests are known before the first paint, not after it.
  useLayoutEffect(() => {
    const el = body.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  useLayoutEffect(() => {
    if (!seen) return;
    const ctl = new AbortController();
    void Promise.all(
      runs.map((run) =>
        fetch(run.run, tag, ctl.signal).then(
          (data): RunData<T> => ({ run, data, error: null }),
          (e: unknown): RunData<T> => ({ run, data: null, error: e instanceof Error ? e.message : String(e) }),
        ),
      ),
    ).then((all) => !ctl.signal.aborted && setLoaded(all));
    return () => ctl.abort();
  }, [seen, tag, runKey, tick]);
  return { loaded, width, body };
}
