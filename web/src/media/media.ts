/**
 * What the images and audio dashboards share: a tag's step listing (`GET /api/images` or `/api/audio`),
 * fetched once the card is seen and again on every reload, the URL of one image or clip (the blob route,
 * with the record's key so the browser may cache it for good), and a card's lazy loading and slider
 * (`useMediaCard`).
 */
import type { RefObject } from "preact";
import { useLayoutEffect, useMemo, useState } from "preact/hooks";
import { apiUrl, getJson } from "@api/client";
import { useLazyCard } from "@charts/lazyCard";
import { useStepIndex } from "./StepSlider";
import type { Answer } from "@api/types";

export type MediaKind = "images" | "audio";

export interface MediaStep {
  step: number;
  wall_time: number;
  /** Names the stored record: part of the blob URL, so a value rewritten at the same step is fetched anew. */
  key: string;
  count: number;
  /** Why the value cannot be shown (no bytes, zero size, unknown format, unreadable record). */
  error?: string;
  // images
  width?: number;
  height?: number;
  content_types?: string[];
  // audio
  labels?: string[];
  sample_rate?: number | null;
  content_type?: string;
}

export interface MediaListing {
  steps: MediaStep[] | null;
  error: string | null;
}

/** The tag's steps, loaded once `active` (the card was seen) and reloaded when `tick` changes. */
export function useMediaSteps(kind: MediaKind, run: string, tag: string, active: boolean, tick: number): MediaListing {
  const [listing, setListing] = useState<MediaListing>({ steps: null, error: null });
  // A layout effect: the request leaves before the page's first paint, not after it.
  useLayoutEffect(() => {
    if (!active) return;
    const abort = new AbortController();
    getJson<Answer<`/api/${MediaKind}`, { steps: MediaStep[] }>>(`/api/${kind}`, { run, tag }, { signal: abort.signal }).then(
      (body) =>
        setListing((old) =>
          old.steps && sameSteps(old.steps, body.steps) ? old : { steps: body.steps, error: null },
        ),
      (err: unknown) => {
        if (err instanceof DOMException && err.name === "AbortError") return;
        setListing((old) => ({ steps: old.steps, error: err instanceof Error ? err.message : String(err) }));
      },
    );
    return () => abort.abort();
  }, [kind, run, tag, active, tick]);
  return listing;
}

function sameSteps(a: MediaStep[], b: MediaStep[]): boolean {
  return a.length === b.length && a.every((s, i) => s.key === b[i].key);
}

export function blobUrl(kind: MediaKind, run: string, tag: string, step: MediaStep, index: number): string {
  return apiUrl(`/api/${kind}/blob`, { run, tag, step: step.step, index, key: step.key });
}

/** The step numbers of a listing: the same array while the listing is the same (the slider keeps its place). */
export function useStepNumbers(steps: MediaStep[] | null): number[] {
  return useMemo(() => (steps ?? []).map((s) => s.step), [steps]);
}

export interface MediaCard {
  /** The card's id in the ready registry. */
  id: string;
  listing: MediaListing;
  /** The slider's steps, its position and the step it shows (undefined while there is none). */
  stepNumbers: number[];
  index: number;
  setIndex: (index: number) => void;
  current: MediaStep | undefined;
}

/** What an image or audio card needs: lazy loading (at once when `eager`), its listing and the slider's step. */
export function useMediaCard(
  ref: RefObject<Element | null>,
  kind: MediaKind,
  run: string,
  tag: string,
  eager: boolean,
  tick: number,
): MediaCard {
  const id = `${kind}\u0000${run}\u0000${tag}`;
  const seen = useLazyCard(ref, id, { eager });
  const listing = useMediaSteps(kind, run, tag, seen, tick);
  const stepNumbers = useStepNumbers(listing.steps);
  const [index, setIndex] = useStepIndex(stepNumbers);
  return { id, listing, stepNumbers, index, setIndex, current: listing.steps?.[index] };
}
