/**
 * The run list, kept fresh: GET /api/runs on load, then every `reload_interval` seconds (the server's) while
 * auto-reload is on, and on the reload button. `tick` increments whenever the server's `generation` changed
 * (new data was ingested) or the user pressed reload; dashboards fetch what is new when it does. While the
 * server is unreachable the hook keeps retrying, so the error banner goes away by itself when it comes back.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, getJson, takePrefetched } from "@api/client";
import type { RunsResponse } from "@api/types";

/** Polling period when the server does not say (seconds). */
export const DEFAULT_INTERVAL_S = 5;
/** Never poll faster than this, whatever the server says (seconds). */
export const MIN_INTERVAL_S = 0.5;

export interface RunsState {
  data: RunsResponse | null;
  error: ApiError | null;
  tick: number;
  /** The polling period in seconds. */
  interval: number;
  /** True while a request started by {@link reload} is in flight. */
  reloading: boolean;
  reload(): void;
}

/** The polling period for the next poll: the server's interval, or every MIN_INTERVAL_S while its first pass
 * still reads the log directory (`loading`), so runs appear as they are read. */
export function pollInterval(response: Pick<RunsResponse, "reload_interval" | "loading"> | null): number {
  if (response?.loading) return MIN_INTERVAL_S;
  const seconds = response?.reload_interval;
  return typeof seconds === "number" && seconds > 0 ? Math.max(seconds, MIN_INTERVAL_S) : DEFAULT_INTERVAL_S;
}

/** What the page says while the server's first pass runs ("Reading event files: 120 of 1,000"), or null. */
export function loadingNotice(response: Pick<RunsResponse, "loading"> | null): string | null {
  const loading = response?.loading;
  if (!loading) return null;
  if (loading.files === null) return "Reading the log directory…";
  return `Reading event files: ${loading.files_read.toLocaleString("en-US")} of ${loading.files.toLocaleString("en-US")}`;
}

/** Whether a poll brought new data: a different generation, or (servers without one) every poll. */
export function generationChanged(previous: number | null | undefined, next: number | null | undefined): boolean {
  if (next === undefined || next === null) return true;
  return previous !== next;
}

/** The runs' statuses in one string, to tell when only they changed. */
export function statusKey(response: Pick<RunsResponse, "runs">): string {
  return response.runs.map((r) => `${r.run}\u0000${r.status ?? ""}`).join("\u0001");
}

/** The first listing when main.tsx asked for it before the first render: its answer, and its value once in. */
let primed: { answer: Promise<RunsResponse>; value: RunsResponse | null } | null = null;

/**
 * Hands the first listing (usually boot.js's request) to the next {@link useRuns}: settles once it is in, and
 * a render after that starts with the runs (main.tsx waits for it, so the shell's first render is the page, not
 * "Loading runs…" followed by the page).
 */
export function primeRuns(answer: Promise<RunsResponse>): Promise<void> {
  const entry: { answer: Promise<RunsResponse>; value: RunsResponse | null } = { answer, value: null };
  primed = entry;
  return answer.then(
    (value) => {
      entry.value = value;
    },
    () => undefined, // reported by the poll that takes it
  );
}

function takePrimed(): Promise<RunsResponse> | null {
  const entry = primed;
  primed = null;
  return entry?.answer ?? null;
}

export function useRuns(autoReload: boolean): RunsState {
  // The primed listing's value when it is already in: the first render has the runs (the first poll below takes
  // the same answer, so it renders nothing new).
  const [data, setData] = useState<RunsResponse | null>(() => primed?.value ?? null);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  const [reloading, setReloading] = useState(false);

  const loaded = useRef(false);
  const loading = useRef(false);
  const generation = useRef<number | null | undefined>(undefined);
  const statuses = useRef("");
  const interval = useRef(DEFAULT_INTERVAL_S);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inFlight = useRef(false);
  const auto = useRef(autoReload);
  const failing = useRef(false);
  auto.current = autoReload;

  const poll = useCallback(async (manual: boolean): Promise<void> => {
    clearTimeout(timer.current);
    const hidden = typeof document !== "undefined" && document.hidden;
    if ((inFlight.current || (hidden && loaded.current)) && !manual) {
      schedule();
      return;
    }
    inFlight.current = true;
    if (manual) setReloading(true);
    try {
      // The first listing was requested by index.html while the script loaded.
      const response = await (takePrimed() ?? takePrefetched<RunsResponse>("api/runs") ?? getJson<RunsResponse>("/api/runs"));
      const changed = loaded.current && generationChanged(generation.current, response.generation);
      // A status changes with time alone (a run nobody writes to becomes crashed): new data for the badges.
      const nowStatuses = statusKey(response);
      const sameGeneration = loaded.current && !changed && nowStatuses === statuses.current;
      statuses.current = nowStatuses;
      loaded.current = true;
      generation.current = response.generation;
      interval.current = pollInterval(response);
      // While the first pass runs, and when it ends: its progress is news even where no run changed.
      const loadingNews = loading.current || !!response.loading;
      loading.current = !!response.loading;
      failing.current = false;
      // Same generation: nothing new, and the same data object keeps every memo (and dashboard) still.
      if (changed || manual || !sameGeneration || loadingNews) setData(response);
      setError(null);
      if (manual || changed) setTick((t) => t + 1);
    } catch (err) {
      failing.current = true;
      setError(err instanceof ApiError ? err : new ApiError(0, err instanceof Error ? err.message : String(err)));
    } finally {
      inFlight.current = false;
      if (manual) setReloading(false);
      schedule();
    }
  }, []);

  function schedule(): void {
    clearTimeout(timer.current);
    if (auto.current || failing.current || !loaded.current || loading.current) {
      timer.current = setTimeout(() => void poll(false), interval.current * 1000);
    }
  }

  // A layout effect: the first listing (usually already prefetched by index.html) is read before the first
  // paint, so the dashboard can request its data a frame earlier.
  useLayoutEffect(() => {
    void poll(false);
    const onVisible = () => {
      if (!document.hidden && auto.current) void poll(false);
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearTimeout(timer.current);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [poll]);

  // Turning auto-reload on polls at once; turning it off stops the timer (unless retrying after an error).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (autoReload) void poll(false);
    else if (!failing.current) clearTimeout(timer.current);
  }, [autoReload, poll]);

  const reload = useCallback(() => void poll(true), [poll]);
  return { data, error, tick, interval: interval.current, reloading, reload };
}
