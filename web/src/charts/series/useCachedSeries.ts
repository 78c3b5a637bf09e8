/**
 * A chart card's series in the page's shared cache (./data `cache`), for the scalar cards and custom scalars charts:
 * loaded (full range, reduced) once `enabled`, then what is new appended on every reload tick.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { cache, seriesKey } from "./data";

/** How many points to ask for a chart `width` pixels wide. */
export function pointsFor(width: number): number {
  // About two points per pixel of the chart: a series is reduced (and marked so) only when it has more.
  return Math.max(200, Math.round(2 * width));
}

export interface CachedSeries {
  /** The first load finished. */
  loaded: boolean;
  /** Changes whenever the card's cached data did (a dependency of the chart's model). */
  version: number;
}

/**
 * Loads `keys` at `points()` points each (read as the load starts; `maxPoints` by default) and reloads when the
 * keys or `maxPoints` change; `onLoadStart` runs as each load starts (the card is not ready until it ends). A
 * layout effect: the request leaves before the page's first paint, not after it as a plain effect's would.
 * `eager` cards are batched at once rather than in the next frame.
 */
export function useCachedSeries(
  enabled: boolean,
  keys: { run: string; tag: string }[],
  maxPoints: number,
  eager: boolean,
  tick: number,
  onLoadStart: () => void,
  points: () => number = () => maxPoints,
): CachedSeries {
  const [loaded, setLoaded] = useState(false);
  const [version, setVersion] = useState(0);
  const keysId = keys.map((k) => seriesKey(k.run, k.tag)).join("\u0001");

  useLayoutEffect(() => {
    if (!enabled) return;
    let live = true;
    onLoadStart();
    void cache.load(keys, points(), eager).then(() => {
      if (!live) return;
      setLoaded(true);
      setVersion((v) => v + 1);
    });
    return () => {
      live = false;
    };
  }, [enabled, keysId, maxPoints]);

  // Live: append what is new after each series' last step.
  const firstTick = useRef(tick);
  useEffect(() => {
    if (tick === firstTick.current || !enabled || !loaded) return;
    let live = true;
    void cache.refresh(keys).then((changed) => {
      if (live && changed) setVersion((v) => v + 1);
    });
    return () => {
      live = false;
    };
  }, [tick]);

  return { loaded, version };
}
