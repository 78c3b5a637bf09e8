/**
 * What the page shows the browser tests (tests/browser) and bench/ui.py beyond the DOM: `window.__ridgeline`, an
 * object of named hooks (the uPlot instance of each chart, what a chart drew, a graph's layout). They read it
 * through page.evaluate; the UI itself never reads it.
 *
 * {@link TestHooks} lists every hook with its type. A module that exposes a hook of its own (a dashboard) adds it
 * by declaration merging, in its own folder:
 *
 *     declare module "@web/testHooks" {
 *       interface TestHooks { graphLayout: { input: ElkNode; result: ElkNode } }
 *     }
 */
import type uPlot from "uplot";

/** A curve a scalars card drew: its run's label, its x values and raw and smoothed y values. */
export interface DrawnSeries {
  run: string;
  x: ArrayLike<number>;
  raw: ArrayLike<number>;
  smoothed: ArrayLike<number>;
  /** The server reduced the card's series (to about two points per pixel). */
  reduced: boolean;
}

export interface TestHooks {
  /** Every drawn uPlot chart by its card's id (a scalars card: its tag, or "A ⇄ B"). */
  charts: Map<string, uPlot>;
  /** What each scalars card drew, by the card's id. */
  series: Map<string, DrawnSeries[]>;
}

type MapHook = { [K in keyof TestHooks]: TestHooks[K] extends Map<string, unknown> ? K : never }[keyof TestHooks];
type EntryOf<K extends MapHook> = TestHooks[K] extends Map<string, infer V> ? V : never;

function hooks(): Partial<TestHooks> {
  const w = window as unknown as { __ridgeline?: Partial<TestHooks> };
  return (w.__ridgeline ??= {});
}

/** Sets the hook `name` (`window.__ridgeline[name] = value`). */
export function setTestHook<K extends keyof TestHooks>(name: K, value: TestHooks[K]): void {
  hooks()[name] = value;
}

/** Sets `key` in the map hook `name`, creating the map on first use. */
export function setTestEntry<K extends MapHook>(name: K, key: string, value: EntryOf<K>): void {
  const all = hooks();
  const map = (all[name] ??= new Map() as TestHooks[K]) as Map<string, EntryOf<K>>;
  map.set(key, value);
}

/** Removes `key` from the map hook `name` (a card that unmounts); given `only`, only while it holds that value. */
export function deleteTestEntry<K extends MapHook>(name: K, key: string, only?: EntryOf<K>): void {
  const map = hooks()[name] as Map<string, EntryOf<K>> | undefined;
  if (map && (only === undefined || map.get(key) === only)) map.delete(key);
}
