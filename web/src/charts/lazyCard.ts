/**
 * Cards that load only once scrolled near the view and report when they have drawn: `useLazyCard` observes the
 * card through the page's shared IntersectionObservers (./visibility, rooted at the scrolling `main`), tells the
 * page's ready registry (./registry: `document.body.dataset.chartsReady` for tests and bench/ui.py) whether it
 * is on screen and (`useReadyFlag`) ready, and returns whether it was ever near the view.
 */
import type { RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { registry } from "./registry";
import { observeNear } from "./visibility";

export interface LazyCardOptions {
  /** Loaded from the first render (one of the first cards of the page), without waiting to be reported near. */
  eager?: boolean;
  /** How far from the view (a CSS rootMargin) the card starts loading. */
  near?: string;
  /** How far from the view it counts as on screen for chartsReady (default: `near`). */
  view?: string;
  /** Told whenever the card enters or leaves the `view` area. */
  onVisible?: (visible: boolean) => void;
}

/** True once the card came within `near` of the view (it stays true: what was loaded stays shown). */
export function useLazyCard(ref: RefObject<Element | null>, id: string, options: LazyCardOptions = {}): boolean {
  const { eager = false, near = "200px", view = near } = options;
  const [seen, setSeen] = useState(eager);
  const onVisible = useRef(options.onVisible);
  onVisible.current = options.onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    registry.add(id);
    const shown = (e: IntersectionObserverEntry) => {
      onVisible.current?.(e.isIntersecting);
      registry.setVisible(id, e.isIntersecting);
    };
    const approached = (e: IntersectionObserverEntry) => e.isIntersecting && setSeen(true);
    const stops =
      view === near
        ? [observeNear(el, near, (e) => (shown(e), approached(e)))]
        : [observeNear(el, near, approached), observeNear(el, view, shown)];
    return () => {
      for (const stop of stops) stop();
      registry.remove(id);
    };
  }, [id]);
  return seen;
}

/** Reports whether the card has drawn what it has (in the commit that drew it, not after the next paint). */
export function useReadyFlag(id: string, ready: boolean): void {
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
