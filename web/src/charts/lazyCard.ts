/**
 * Cards that load only once scrolled into view and report when they have drawn: `useLazyCard` observes the
 * card (through the page's shared IntersectionObservers, rooted at the scrolling container), tells the page's
 * ready registry (which sets `document.body.dataset.chartsReady` for tests and
 * bench/ui.py) whether it is visible and (`useReadyFlag`) ready, and returns whether it was ever near the viewport.
 */
import type { RefObject } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { observeNear } from "../../../src/ridgeline/plugins/scalars/web/visibility";

/** What the scalars dashboard's `registry` offers (see src/ridgeline/plugins/scalars/web/registry.ts). */
export interface ReadyRegistry {
  add(id: string): void;
  remove(id: string): void;
  setVisible(id: string, visible: boolean): void;
  setReady(id: string, ready: boolean): void;
}

/** True once the card was within `margin` of the viewport (it stays true: what was loaded stays shown). */
export function useLazyCard(ref: RefObject<Element | null>, id: string, registry: ReadyRegistry, margin = "200px"): boolean {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    registry.add(id);
    const stop = observeNear(el, margin, (e) => {
      registry.setVisible(id, e.isIntersecting);
      if (e.isIntersecting) setSeen(true);
    });
    return () => {
      stop();
      registry.remove(id);
    };
  }, [id]);
  return seen;
}

/** Reports whether the card has drawn what it has (in the commit that drew it, not after the next paint). */
export function useReadyFlag(id: string, registry: ReadyRegistry, ready: boolean): void {
  useLayoutEffect(() => registry.setReady(id, ready), [id, ready]);
}

/** True once `ref` came within `margin` of the view (for sections that render their cards only then). */
export function useNear(ref: RefObject<Element | null>, margin: string): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || near) return;
    return observeNear(el, margin, (e) => e.isIntersecting && setNear(true));
  }, [near]);
  return near;
}
