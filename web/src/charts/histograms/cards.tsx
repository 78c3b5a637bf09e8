/**
 * What the histogram and distribution cards share besides @app/cards' TagSections: how their cards load
 * (lazily, through @charts/lazyCard; the first EAGER_CARDS at once), each card's per-run data and run label.
 */
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import type { LazyCardOptions } from "@charts/lazyCard";
import "./histograms.css";

/** A card loads from 300 px before it scrolls into view and counts as on screen (chartsReady) once it is. */
export const HISTOGRAM_CARD_VIEW: LazyCardOptions = { near: "300px 0px", view: "0px" };

/** The first cards of the page load at once (about what a 1280x800 window shows). */
export const EAGER_CARDS = 4;

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
