/**
 * Scalar series on the client: batched requests (one POST /api/scalars/batch for every card that asks in the
 * same frame), a cache of what each (run, tag) has, and live appends from the `since_step` cursor.
 *
 * Series are columnar typed arrays (views on the binary answer); a non-finite value is NaN in them, and which
 * kind it was is kept from the answer's `nonfinite` list.
 */
import { getJson, postBinary } from "@api/client";
import type { Answer, BatchRequest, RangeParams, SeriesKey } from "@api/types";
import { decodeBatch, type BinaryEntry } from "./binary";

export interface NonFinite {
  step: number;
  value: "nan" | "inf" | "-inf";
}

export interface SeriesData {
  step: Float64Array;
  wall: Float64Array;
  value: Float64Array;
  /** Min and max of each reduction bucket, when the server reduced the series. */
  low: Float64Array | null;
  high: Float64Array | null;
  reduced: boolean;
  /** Points in the requested range before reduction. */
  total: number;
  nonfinite: NonFinite[];
}

/**
 * Turns an entry of the binary batch answer into typed arrays: the columns stay views on the response buffer.
 * Only when the series has non-finite values are its ±Inf overwritten with NaN in place (every non-finite
 * value is NaN in a series), their kinds being in `nonfinite`.
 */
export function fromBinary(e: BinaryEntry): SeriesData {
  const empty = new Float64Array(0);
  const step = e.columns.step ?? empty;
  const value = e.columns.value ?? empty;
  const nonfinite = e.nonfinite ?? [];
  if (nonfinite.length) {
    for (let i = 0; i < value.length; i++) if (value[i] === Infinity || value[i] === -Infinity) value[i] = NaN;
  }
  return {
    step,
    wall: e.columns.wall_time ?? empty,
    value,
    low: e.columns.band_low ?? null,
    high: e.columns.band_high ?? null,
    reduced: !!e.reduced,
    total: e.total_points ?? step.length,
    nonfinite,
  };
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `base` followed by the points of `more` after base's last step (a live update). */
export function appendSeries(base: SeriesData, more: SeriesData): SeriesData {
  const last = base.step.length ? base.step[base.step.length - 1] : -Infinity;
  let start = 0;
  while (start < more.step.length && more.step[start] <= last) start++;
  if (start >= more.step.length) return base;
  const cut = (a: Float64Array) => a.subarray(start);
  const band = (mine: Float64Array | null, theirs: Float64Array | null, values: Float64Array) =>
    mine ? concat(mine, cut(theirs ?? values)) : null;
  return {
    step: concat(base.step, cut(more.step)),
    wall: concat(base.wall, cut(more.wall)),
    value: concat(base.value, cut(more.value)),
    low: band(base.low, more.low, more.value),
    high: band(base.high, more.high, more.value),
    reduced: base.reduced,
    total: base.total + (more.step.length - start),
    nonfinite: [...base.nonfinite, ...more.nonfinite.filter((p) => p.step > last)],
  };
}

export const seriesKey = (run: string, tag: string) => `${run}\u0000${tag}`;

interface Pending {
  keys: { run: string; tag: string }[];
  waiters: { resolve: (m: Map<string, SeriesData | Error>) => void; reject: (e: unknown) => void }[];
}

const queues = new Map<string, Pending>();
let scheduled = false;
let soonScheduled = false;
const CHUNK = 2000;

interface Fetched {
  run: string;
  tag: string;
  data: SeriesData | Error;
}

/** One batch, in the binary form. */
async function post(body: BatchRequest): Promise<Fetched[]> {
  const { buffer } = await postBinary("/api/scalars/batch", body, { format: "binary" });
  return decodeBatch(buffer).map((e) => ({ run: e.run, tag: e.tag, data: e.error ? new Error(e.error) : fromBinary(e) }));
}

async function flush(): Promise<void> {
  scheduled = false;
  const work = [...queues.entries()];
  queues.clear();
  await Promise.all(
    work.map(async ([paramsJson, pending]) => {
      const params = JSON.parse(paramsJson) as RangeParams;
      const unique = new Map<string, { run: string; tag: string }>();
      for (const k of pending.keys) unique.set(seriesKey(k.run, k.tag), k);
      const all = [...unique.values()];
      const result = new Map<string, SeriesData | Error>();
      try {
        for (let i = 0; i < all.length; i += CHUNK) {
          const body: BatchRequest = { series: all.slice(i, i + CHUNK), ...params };
          for (const s of await post(body)) result.set(seriesKey(s.run, s.tag), s.data);
        }
        pending.waiters.forEach((w) => w.resolve(result));
      } catch (e) {
        pending.waiters.forEach((w) => w.reject(e));
      }
    }),
  );
}

/**
 * Fetches the given series with the same range parameters; calls made in the same frame share one request.
 * Each key maps to its data or to an Error (an unknown run or tag does not fail the others).
 */
export function fetchSeries(
  keys: SeriesKey[],
  params: RangeParams,
  soon = false,
): Promise<Map<string, SeriesData | Error>> {
  const clean: RangeParams = {};
  for (const k of ["max_points", "since_step", "min_step", "max_step"] as const) {
    if (params[k] !== undefined && Number.isFinite(params[k])) clean[k] = Math.round(params[k]!);
  }
  const id = JSON.stringify(clean);
  return new Promise((resolve, reject) => {
    let q = queues.get(id);
    if (!q) queues.set(id, (q = { keys: [], waiters: [] }));
    q.keys.push(...keys);
    q.waiters.push({ resolve, reject });
    if (soon) {
      // Callers that ask together in one synchronous run (the cards a page mounts at once, from their layout
      // effects): one microtask later, before the browser paints, not a task later, after it (20-40 ms).
      if (!soonScheduled) {
        soonScheduled = true;
        queueMicrotask(() => {
          soonScheduled = false;
          void flush();
        });
      }
    } else if (!scheduled) {
      // Callers spread over several callbacks of one task (cards scrolled into view): one request for all.
      scheduled = true;
      setTimeout(() => void flush(), 0);
    }
  });
}

/** What a card holds per series: the data (full range, reduced to maxPoints) and its load state. */
export interface CacheEntry {
  data: SeriesData | null;
  error: string | null;
  maxPoints: number;
}

/**
 * The series cache shared by all cards. `load` fetches what is missing (or was fetched at a much lower
 * resolution); `refresh` appends what is new after each series' last step, and fetches a series again, reduced,
 * once its appended points make it more than {@link REREDUCE_FACTOR} times the points it was fetched for (a long
 * live run would otherwise end up drawn at full resolution, point by point).
 */
export const REREDUCE_FACTOR = 2;

export class SeriesCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<void>>();

  get(run: string, tag: string): CacheEntry | undefined {
    return this.entries.get(seriesKey(run, tag));
  }

  clear(): void {
    this.entries.clear();
  }

  /** Loads what is missing; `soon`: see {@link fetchSeries}. */
  async load(keys: { run: string; tag: string }[], maxPoints: number, soon = false): Promise<void> {
    const need = keys.filter((k) => {
      const e = this.entries.get(seriesKey(k.run, k.tag));
      return !e || (e.data?.reduced && e.maxPoints < maxPoints * 0.75);
    });
    const waits = keys.map((k) => this.inflight.get(seriesKey(k.run, k.tag))).filter(Boolean);
    const fresh = need.filter((k) => !this.inflight.has(seriesKey(k.run, k.tag)));
    if (fresh.length) {
      const p = fetchSeries(fresh, { max_points: maxPoints }, soon).then(
        (m) => {
          for (const k of fresh) {
            const key = seriesKey(k.run, k.tag);
            const got = m.get(key);
            this.entries.set(key, {
              data: got instanceof Error || !got ? null : got,
              error: got instanceof Error ? got.message : got ? null : "missing from the answer",
              maxPoints,
            });
          }
        },
        (e: unknown) => {
          for (const k of fresh) {
            this.entries.set(seriesKey(k.run, k.tag), { data: null, error: String(e), maxPoints });
          }
        },
      );
      const done = p.finally(() => fresh.forEach((k) => this.inflight.delete(seriesKey(k.run, k.tag))));
      fresh.forEach((k) => this.inflight.set(seriesKey(k.run, k.tag), done));
      waits.push(done);
    }
    await Promise.all(waits);
  }

  /** Appends the points after each loaded series' last step; true when something was added. */
  async refresh(keys: { run: string; tag: string }[]): Promise<boolean> {
    const bySince = new Map<number, { run: string; tag: string }[]>();
    const missing: { run: string; tag: string }[] = [];
    for (const k of keys) {
      const key = seriesKey(k.run, k.tag);
      if (this.inflight.has(key)) continue;
      const e = this.entries.get(key);
      if (!e?.data) {
        missing.push(k);
        continue;
      }
      const last = e.data.step.length ? e.data.step[e.data.step.length - 1] : -1;
      const list = bySince.get(last) ?? [];
      list.push(k);
      bySince.set(last, list);
    }
    let changed = false;
    const grown: { run: string; tag: string }[] = [];
    if (missing.length) {
      for (const k of missing) this.entries.delete(seriesKey(k.run, k.tag));
      await this.load(missing, this.entries.get(seriesKey(missing[0].run, missing[0].tag))?.maxPoints ?? 1000);
      changed = missing.some((k) => !!this.get(k.run, k.tag)?.data);
    }
    await Promise.all(
      [...bySince.entries()].map(async ([since, ks]) => {
        const m = await fetchSeries(ks, { since_step: since }).catch(() => null);
        if (!m) return;
        for (const k of ks) {
          const key = seriesKey(k.run, k.tag);
          const got = m.get(key);
          const e = this.entries.get(key);
          if (!e?.data || !got || got instanceof Error || got.step.length === 0) continue;
          const next = appendSeries(e.data, got);
          if (next !== e.data) {
            this.entries.set(key, { ...e, data: next });
            changed = true;
            if (next.step.length > REREDUCE_FACTOR * e.maxPoints) grown.push(k);
          }
        }
      }),
    );
    if (grown.length) await this.reduceAgain(grown);
    return changed;
  }

  /** Fetches `keys` again at the resolution they were loaded for, replacing each entry only once it arrived
   * (cards keep drawing the longer series meanwhile; a refresh skips them until then, as it skips any load). */
  private async reduceAgain(keys: { run: string; tag: string }[]): Promise<void> {
    const byPoints = new Map<number, { run: string; tag: string }[]>();
    for (const k of keys) {
      const points = this.entries.get(seriesKey(k.run, k.tag))?.maxPoints ?? 1000;
      byPoints.set(points, [...(byPoints.get(points) ?? []), k]);
    }
    const work = [...byPoints.entries()].map(async ([maxPoints, ks]) => {
      const m = await fetchSeries(ks, { max_points: maxPoints }).catch(() => null);
      for (const k of ks) {
        const got = m?.get(seriesKey(k.run, k.tag));
        if (got && !(got instanceof Error)) this.entries.set(seriesKey(k.run, k.tag), { data: got, error: null, maxPoints });
      }
    });
    const done = Promise.all(work).finally(() => keys.forEach((k) => this.inflight.delete(seriesKey(k.run, k.tag))));
    keys.forEach((k) => this.inflight.set(seriesKey(k.run, k.tag), done.then(() => undefined)));
    await done;
  }
}

export const cache = new SeriesCache();

export interface Annotation {
  step: number;
  wall_time: number;
  text: string;
}

const annotationCache = new Map<string, Promise<Annotation[]>>();

/** A run's annotations (empty when the server has none or does not know the route); cached per tick. */
export function fetchAnnotations(run: string, tick: number): Promise<Annotation[]> {
  const key = `${tick}\u0000${run}`;
  let p = annotationCache.get(key);
  if (!p) {
    p = getJson<Answer<"/api/annotations", { annotations: Annotation[] }>>("/api/annotations", { run }).then(
      (r) => r.annotations ?? [],
      () => [],
    );
    annotationCache.set(key, p);
  }
  return p;
}
