/**
 * What other dashboards draw on a scalar card (the insights: alert markers, phase bands, forecasts, the zoom an
 * alert link asks for), through a registry: a dashboard registers a {@link CardOverlayHook} from its `index.ts(x)`,
 * and every scalar card (./card/ScalarCard) calls each registered hook on every render and draws what it returns.
 * The card knows no dashboard; a dashboard that is not built in simply draws nothing.
 *
 * Register at module load (a dashboard's index module, which the shell imports before its first render): an
 * overlay is a Preact hook, so the list of them must not change once cards render.
 */
import type { ComponentChildren } from "preact";
import type uPlot from "uplot";
import type { RunInfo } from "@app/types";
import type { SeriesKey } from "@api/types";
import type { Settings } from "./lines/settings";
import type { ExtraY } from "./plot";

/** What a scalar card tells its overlays, on every render. */
export interface OverlayContext {
  tag: string;
  /** The second tag of a two-axis card (right y axis), else null. */
  tag2: string | null;
  runs: RunInfo[];
  /** The (run, tag) series the card draws. */
  keys: SeriesKey[];
  /** The card has been scrolled near the view. */
  seen: boolean;
  /** The series are loaded. */
  loaded: boolean;
  /** A run's loaded values of `tag` (NaN: not finite). */
  values(run: string): ArrayLike<number> | undefined;
  /** A run's first wall time (the relative x axis). */
  start(run: string): number;
  tick: number;
  settings: Settings;
  /** Per drawn curve, its x values and steps (null until the chart has a model). */
  hover: ReadonlyArray<{ x: ArrayLike<number>; step: ArrayLike<number> }> | null;
  zoom: [number, number] | null;
  setZoom(zoom: [number, number] | null): void;
}

/** What an overlay adds to a card; drawn from the card's uPlot hooks (which read the latest one). */
export interface CardOverlay {
  /** Changes whenever something drawn changed (the card redraws then). */
  version: string;
  /** Values outside the series that the y range should include (a forecast). */
  yExtra(): ExtraY[];
  /** Drawing behind the curves, in canvas pixels. */
  drawBack(u: uPlot): void;
  /** Drawing over the curves, in canvas pixels. */
  drawFront(u: uPlot): void;
  /** Tooltip lines at cursor x value `x` (pixel `left`). */
  notes(u: uPlot, x: number, left: number): string[];
  /** The x range to show when not zoomed (e.g. the data and a forecast), or null for the data's own. */
  view(data: uPlot.AlignedData): [number, number] | null;
  /** Shown in the card's header. */
  legend: ComponentChildren;
  /** `data-*` attributes of the card (what tests and benchmarks read). */
  attributes: Record<`data-${string}`, string>;
}

/** A Preact hook: called by every scalar card on every render. */
export type CardOverlayHook = (context: OverlayContext) => CardOverlay;

const hooks: { name: string; hook: CardOverlayHook }[] = [];

/** Adds an overlay to every scalar card (once per `name`: registering again replaces it). */
export function registerCardOverlay(name: string, hook: CardOverlayHook): void {
  const known = hooks.findIndex((h) => h.name === name);
  if (known >= 0) hooks[known] = { name, hook };
  else hooks.push({ name, hook });
}

/** Every registered overlay for this card, in registration order (a hook: call it on every render). */
export function useCardOverlays(context: OverlayContext): CardOverlay[] {
  return hooks.map((h) => h.hook(context));
}
