/**
 * `useSearch(q)`: the answer of GET /api/search for a query typed by the user, debounced, the request in flight
 * aborted when the query changes, and a 400's `{"error", "position"}` kept for the inline caret. The global
 * search box and the run selector's filter both use it.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { apiUrl } from "@api/client";
import { looksLikeSearchQuery, searchFailure, type SearchFailure, type SearchResponse } from "./search";

export interface SearchState {
  /** The query the state below answers (the last one sent). */
  query: string;
  result: SearchResponse | null;
  failure: SearchFailure | null;
  loading: boolean;
}

const IDLE: SearchState = { query: "", result: null, failure: null, loading: false };

export interface SearchOptions {
  /** Wait this long after the last change before asking (ms). */
  delay?: number;
  limit?: number;
  /** Asks again when it changes (the shell's reload tick), keeping the previous answer meanwhile. */
  tick?: number;
  /** Patterns match without regard to case (the API's ignore_case). */
  ignoreCase?: boolean;
}

/** GET /api/search once; resolves to the answer or throws a {@link SearchFailure}. */
export async function fetchSearch(
  q: string,
  limit: number,
  ignoreCase: boolean,
  signal?: AbortSignal,
): Promise<SearchResponse> {
  let response: Response;
  try {
    const params = { q, limit, ignore_case: ignoreCase ? "true" : null };
    response = await fetch(apiUrl("/api/search", params), { headers: { Accept: "application/json" }, signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw { message: "cannot reach the ridgeline server", position: null } satisfies SearchFailure;
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) throw searchFailure(body, `the server answered ${response.status}`);
  return body as SearchResponse;
}

export function useSearch(q: string, enabled: boolean, options: SearchOptions = {}): SearchState {
  const { delay = 150, limit = 200, tick = 0, ignoreCase = false } = options;
  const [state, setState] = useState<SearchState>(IDLE);
  const query = q.trim();
  const active = enabled && query !== "";
  useEffect(() => {
    if (!active) {
      setState(IDLE);
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(() => {
      fetchSearch(query, limit, ignoreCase, controller.signal).then(
        (result) => setState({ query, result, failure: null, loading: false }),
        (err: unknown) => {
          if (controller.signal.aborted) return;
          const failure =
            err && typeof err === "object" && "message" in err
              ? { message: String(err.message), position: "position" in err ? (err.position as number | null) : null }
              : { message: String(err), position: null };
          setState({ query, result: null, failure, loading: false });
        },
      );
    }, delay);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, active, limit, tick, delay, ignoreCase]);
  return active ? state : IDLE;
}

export interface RunFilterSearch {
  /** True when the filter text is a search query (see {@link looksLikeSearchQuery}), not a run-name regex. */
  active: boolean;
  /** The runs the query selects; null until the first answer (or after an error): then nothing is filtered. */
  runs: ReadonlySet<string> | null;
  state: SearchState;
}

/** Hits the run filter asks for: it only needs `runs`, which the server derives from every match whatever the
 * limit (so a filter over a million entries does not ship its hits). */
const RUN_FILTER_LIMIT = 1;

/**
 * The run selector's filter when it holds a search query: the runs GET /api/search selects, asked again on every
 * reload tick (new runs may match). While a new query is on its way the previous answer stays in place.
 */
export function useRunFilterSearch(filter: string, tick: number): RunFilterSearch {
  const active = looksLikeSearchQuery(filter);
  // Case-insensitive, like the run filter's regexes (and TensorBoard's).
  const state = useSearch(filter, active, { delay: 200, limit: RUN_FILTER_LIMIT, tick, ignoreCase: true });
  const runs = useMemo(() => (state.result && !state.failure ? new Set(state.result.runs) : null), [state.result, state.failure]);
  return { active, runs: active ? runs : null, state };
}
