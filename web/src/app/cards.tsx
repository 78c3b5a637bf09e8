/**
 * Building blocks of the dashboards that show one card per tag (text, PR curves, histograms, distributions):
 * the tags of a kind across the selected runs, collapsible sections by tag prefix (starting expanded; the
 * collapsed ones kept in the URL), and (useTagCard, for the step-slider cards) every step of a tag fetched per
 * run and extended on each reload. Lazy loading and the ready flag are @charts/lazyCard's, the slider
 * @charts/StepSlider's.
 */
import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { getJson } from "@api/client";
import type { GetPath } from "@api/types";
import { useLazyCard } from "@charts/lazyCard";
import { useStepIndex } from "@media/StepSlider";
import { groupTags } from "@charts/groups";
import { useUrlState } from "./state";
import type { RunInfo } from "./types";
import "./cards.css";

/** Every tag of `kind` that some run in `runs` has, sorted. */
export function tagsOf(runs: RunInfo[], kind: string): string[] {
  const tags = new Set<string>();
  for (const r of runs) for (const t of r.tags[kind] ?? []) tags.add(t);
  return [...tags].sort((a, b) => a.localeCompare(b));
}

/** The runs in `runs` that have `tag` of `kind` (the runs a tag's card shows). */
export function runsWithTag(runs: RunInfo[], kind: string, tag: string): RunInfo[] {
  return runs.filter((r) => (r.tags[kind] ?? []).includes(tag));
}

export interface TagSectionsProps {
  /** Every tag of the dashboard's kind (before the tag filter). */
  tags: string[];
  tagFilter: RegExp | null;
  /** URL key of the collapsed section names, e.g. "t.collapsed". */
  stateKey: string;
  /** What the dashboard shows, for the empty states ("text", "PR curves"). */
  what: string;
  /** Class of each section's card container (a grid, or one column). */
  gridClass?: string;
  /** How many of the page's first cards are told to load at once (`eager`), without waiting to be seen. */
  eagerCards?: number;
  card: (tag: string, eager: boolean) => ComponentChildren;
}

/** One collapsible section per tag prefix ("train/acc" -> "train"), each starting expanded. */
export function TagSections({ tags, tagFilter, stateKey, what, gridClass, eagerCards = 0, card }: TagSectionsProps) {
  const [collapsed, setCollapsed] = useUrlState<string[]>(stateKey, []);
  const groups = useMemo(() => groupTags(tags, tagFilter), [tags, tagFilter]);
  if (tags.length === 0) return <p class="rl-tc-empty">The selected runs have no {what}.</p>;
  if (groups.length === 0) return <p class="rl-tc-empty">No {what} tag matches the tag filter.</p>;
  let shown = 0;
  return (
    <>
      {groups.map((g) => {
        const open = !collapsed.includes(g.name);
        const id = `rl-tc-group-${stateKey}-${g.name || "_"}`;
        const toggle = () => setCollapsed(open ? [...collapsed, g.name] : collapsed.filter((n) => n !== g.name));
        return (
          <section class="rl-tc-group" key={g.name} aria-labelledby={id} data-group={g.name}>
            <h2 class="rl-tc-group-title">
              <button type="button" id={id} aria-expanded={open} onClick={toggle}>
                <span aria-hidden="true">{open ? "▾" : "▸"}</span> {g.name || "(no prefix)"}{" "}
                <span class="rl-tc-muted">({g.tags.length})</span>
              </button>
            </h2>
            {open && <div class={gridClass ?? "rl-tc-grid"}>{g.tags.map((t) => card(t, shown++ < eagerCards))}</div>}
          </section>
        );
      })}
    </>
  );
}

/** One step of a tag as the plugin routes answer it (`{"steps": [...]}`); `error` when it cannot be read. */
export interface StepEntry {
  step: number;
  wall_time: number;
  error?: string;
}

export interface RunSteps<T extends StepEntry> {
  /** Every step per run, in step order. */
  data: Map<string, T[]>;
  /** Runs whose request failed, with the message. */
  errors: Map<string, string>;
  /** The first load finished (for every run). */
  loaded: boolean;
}

/**
 * Every step of `tag` for each run, from `GET path?run&tag` once `enabled`, then only the newer steps
 * (`since_step`) on each reload tick.
 */
export function useRunSteps<T extends StepEntry>(
  path: GetPath,
  tag: string,
  runs: RunInfo[],
  tick: number,
  enabled: boolean,
): RunSteps<T> {
  const [state, setState] = useState<RunSteps<T>>({ data: new Map(), errors: new Map(), loaded: false });
  const stateRef = useRef(state);
  stateRef.current = state;
  const names = runs.map((r) => r.run);
  const key = names.join("\u0000");

  const fetchAll = (since: (run: string) => number | undefined, signal: AbortSignal) =>
    Promise.all(
      names.map((run) =>
        getJson<{ steps: T[] }>(path, { run, tag, since_step: since(run) }, { signal }).then(
          (r) => ({ run, steps: r.steps, error: null as string | null }),
          (e: unknown) => ({ run, steps: [] as T[], error: e instanceof Error ? e.message : String(e) }),
        ),
      ),
    );

  useEffect(() => {
    if (!enabled) return;
    const ctrl = new AbortController();
    fetchAll(() => undefined, ctrl.signal).then((results) => {
      if (ctrl.signal.aborted) return;
      const data = new Map<string, T[]>();
      const errors = new Map<string, string>();
      for (const r of results) {
        if (r.error !== null) errors.set(r.run, r.error);
        else data.set(r.run, r.steps);
      }
      setState({ data, errors, loaded: true });
    });
    return () => ctrl.abort();
  }, [enabled, path, tag, key]);

  useEffect(() => {
    if (!enabled || tick === 0 || !stateRef.current.loaded) return;
    const ctrl = new AbortController();
    const last = (run: string) => stateRef.current.data.get(run)?.at(-1)?.step;
    fetchAll(last, ctrl.signal).then((results) => {
      if (ctrl.signal.aborted || !results.some((r) => r.steps.length > 0)) return;
      const prev = stateRef.current;
      const data = new Map(prev.data);
      for (const r of results) if (r.steps.length) data.set(r.run, [...(data.get(r.run) ?? []), ...r.steps]);
      setState({ ...prev, data });
    });
    return () => ctrl.abort();
  }, [tick]);

  return state;
}

export interface TagCard<T extends StepEntry> extends RunSteps<T> {
  /** The union of the runs' steps, sorted (the slider's steps). */
  steps: number[];
  index: number;
  setIndex: (index: number) => void;
  /** The step the slider shows (undefined while there is none). */
  step: number | undefined;
}

/**
 * What a per-tag card with a step slider needs: it loads once `ref` comes near the view (card `id` in the
 * ready registry, ready once `ready`), then every step of `tag` per run from `path` (see {@link useRunSteps}),
 * and keeps the slider's position.
 */
export function useTagCard<T extends StepEntry>(
  ref: RefObject<Element | null>,
  id: string,
  path: GetPath,
  tag: string,
  runs: RunInfo[],
  tick: number,
): TagCard<T> {
  const seen = useLazyCard(ref, id);
  const runSteps = useRunSteps<T>(path, tag, runs, tick, seen);
  const steps = useMemo(() => allSteps(runSteps.data), [runSteps.data]);
  const [index, setIndex] = useStepIndex(steps);
  return { ...runSteps, steps, index, setIndex, step: steps.length ? steps[index] : undefined };
}

/** The union of the steps of every run, sorted. */
export function allSteps(data: Map<string, StepEntry[]>): number[] {
  const steps = new Set<number>();
  for (const list of data.values()) for (const e of list) steps.add(e.step);
  return [...steps].sort((a, b) => a - b);
}

/** The entry at `step`, or else the last one before it (a run that skipped the step shows its previous value). */
export function entryAt<T extends StepEntry>(list: T[] | undefined, step: number | undefined): T | undefined {
  if (!list || !list.length || step === undefined) return undefined;
  let lo = 0;
  let hi = list.length - 1;
  if (list[0].step > step) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid].step <= step) lo = mid;
    else hi = mid - 1;
  }
  return list[lo];
}

/** The wall time of the first run's entry at exactly `step` (what the step slider shows next to the step). */
export function wallTimeAt(data: Map<string, StepEntry[]>, step: number | undefined): number | null {
  if (step === undefined) return null;
  for (const list of data.values()) {
    const e: StepEntry | undefined = entryAt(list, step);
    if (e && e.step === step) return e.wall_time;
  }
  return null;
}
