/**
 * A fixed-row-height virtual list: only the rows in view (plus a margin) are in the DOM, so a thousand runs
 * scroll and filter as fast as ten. Rows keep `aria-setsize`/`aria-posinset`, so screen readers announce the
 * full length, and a focused row that scrolls in by keyboard is rendered before the browser moves to it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  /** Rows rendered beyond each edge of the view. */
  overscan?: number;
  itemKey(item: T): string;
  renderItem(item: T, index: number): ComponentChildren;
  label: string;
  class?: string;
}

/** The [start, end) rows to render for a scroll position. */
export function visibleRange(
  count: number,
  rowHeight: number,
  scrollTop: number,
  viewHeight: number,
  overscan: number,
): [number, number] {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const last = Math.ceil((Math.max(0, scrollTop) + viewHeight) / rowHeight);
  return [Math.max(0, first - overscan), Math.min(count, last + overscan)];
}

export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, rowHeight, overscan = 8 } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewHeight, setViewHeight] = useState(600);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setViewHeight(el.clientHeight || 600);
    const observer = new ResizeObserver(() => setViewHeight(el.clientHeight || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const [start, end] = visibleRange(items.length, rowHeight, scrollTop, viewHeight, overscan);
  const rows = [];
  for (let i = start; i < end; i++) {
    const item = items[i]!;
    rows.push(
      <li
        key={props.itemKey(item)}
        aria-setsize={items.length}
        aria-posinset={i + 1}
        style={{ position: "absolute", top: 0, left: 0, right: 0, height: `${rowHeight}px`, transform: `translateY(${i * rowHeight}px)` }}
      >
        {props.renderItem(item, i)}
      </li>,
    );
  }
  return (
    <div ref={scroller} class={props.class} onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}>
      <ul aria-label={props.label} style={{ position: "relative", height: `${items.length * rowHeight}px`, margin: 0, padding: 0, listStyle: "none" }}>
        {rows}
      </ul>
    </div>
  );
}
