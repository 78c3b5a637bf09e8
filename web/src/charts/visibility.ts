/**
 * Shared IntersectionObservers: one per (scroll container, margin) for the whole page instead of one per card
 * (10,000 cards made 10,000 observers). The root is the element's nearest scrolling ancestor (the shell's
 * `main`), not the viewport: a rootMargin only widens the root, so with the viewport as root a card just
 * below the scrolled `main` would never count as "near".
 */

type Callback = (entry: IntersectionObserverEntry) => void;

interface Shared {
  io: IntersectionObserver;
  callbacks: Map<Element, Callback>;
}

const observers = new Map<Element | null, Map<string, Shared>>();

/** The nearest ancestor that scrolls vertically (null: the viewport). */
export function scrollParent(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const oy = getComputedStyle(p).overflowY;
    if (oy === "auto" || oy === "scroll") return p;
  }
  return null;
}

/**
 * Calls `cb` with `el`'s intersection with its scroll container widened by `margin` (a CSS rootMargin),
 * first once right after observing (as IntersectionObserver does), then on every change. Returns the
 * function that stops observing.
 */
export function observeNear(el: Element, margin: string, cb: Callback): () => void {
  const root = scrollParent(el);
  let byMargin = observers.get(root);
  if (!byMargin) observers.set(root, (byMargin = new Map()));
  let shared = byMargin.get(margin);
  if (!shared) {
    const callbacks = new Map<Element, Callback>();
    const io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) callbacks.get(e.target)?.(e);
      },
      { root, rootMargin: margin },
    );
    shared = { io, callbacks };
    byMargin.set(margin, shared);
  }
  const s = shared;
  s.callbacks.set(el, cb);
  s.io.observe(el);
  return () => {
    s.io.unobserve(el);
    s.callbacks.delete(el);
  };
}
