/**
 * The projector's requests: JSON through the shell's client, coordinates as raw float32 (one fetch, no JSON),
 * background jobs polled until they end.
 */
import { ApiError, apiUrl, getJson, postJson } from "@api/client";
import type { Answer } from "@api/types";
import type { EmbeddingInfo, JobState, Listing, Metadata, Neighbours, ViewState } from "./model";

export interface EmbeddingId {
  run: string;
  tag: string;
  step: number | null;
}

const idParams = (id: EmbeddingId) => ({ run: id.run, tag: id.tag, step: id.step ?? undefined });

export const listing = (signal?: AbortSignal) =>
  getJson<Answer<"/api/embeddings", Listing>>("/api/embeddings", {}, { signal });

export const embedding = (id: EmbeddingId, signal?: AbortSignal) =>
  getJson<Answer<"/api/projector/embedding", EmbeddingInfo>>("/api/projector/embedding", idParams(id), { signal });

export const metadata = (id: EmbeddingId, signal?: AbortSignal) =>
  getJson<Answer<"/api/projector/metadata", Metadata>>("/api/projector/metadata", idParams(id), { signal });

export function project(id: EmbeddingId, view: ViewState, signal?: AbortSignal): Promise<JobState> {
  const body = {
    run: id.run,
    tag: id.tag,
    step: id.step,
    method: view.method,
    dims: view.dims,
    components: view.components.slice(0, view.dims),
    align: view.align,
    n_neighbors: view.nNeighbors,
    min_dist: view.minDist,
    perplexity: view.perplexity,
    metric: "euclidean",
    custom: view.custom,
    column: null,
  };
  return postJson<JobState>("/api/projector/projection", body, { signal });
}

export const job = (key: string, signal?: AbortSignal) =>
  getJson<Answer<"/api/projector/job", JobState>>("/api/projector/job", { key }, { signal });

export const cancel = (key: string) => postJson<JobState>("/api/projector/job/cancel", { key });

/** Polls a job every `interval` ms, reporting each state, until it is done, failed or cancelled. */
export async function follow(start: JobState, onState: (state: JobState) => void, signal: AbortSignal, interval = 400): Promise<JobState> {
  let state = start;
  onState(state);
  while (state.state === "queued" || state.state === "running") {
    await new Promise((resolve) => setTimeout(resolve, interval));
    if (signal.aborted) throw new DOMException("aborted", "AbortError");
    state = { ...(await job(start.key, signal)), position: start.position };
    onState(state);
  }
  return state;
}

/** A finished projection's coordinates for one step: points × dims float32, row by row. */
export async function coordinates(key: string, position: number, signal?: AbortSignal): Promise<{ flat: Float32Array; dims: number }> {
  const response = await fetch(apiUrl("/api/projector/coordinates", { key, position }), { signal });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      message = ((await response.json()) as { error?: string }).error ?? message;
    } catch {
      // not JSON: the status line
    }
    throw new ApiError(response.status, message);
  }
  const dims = Number(response.headers.get("X-Dims") ?? "2");
  return { flat: new Float32Array(await response.arrayBuffer()), dims };
}

export const neighbours = (id: EmbeddingId, index: number, k: number, metric: string, signal?: AbortSignal) =>
  getJson<Answer<"/api/projector/neighbours", Neighbours>>(
    "/api/projector/neighbours",
    { ...idParams(id), index, k, metric: metric as "cosine" | "euclidean" },
    { signal },
  );

export const search = (id: EmbeddingId, q: string, column: string | null, signal?: AbortSignal) =>
  getJson<Answer<"/api/projector/search", { query: string; total: number; indices: number[] }>>(
    "/api/projector/search",
    { ...idParams(id), q, column: column ?? undefined },
    { signal },
  );

export const startChanges = (run: string, tag: string, before: number | null, after: number | null, k: number, metric: string) =>
  postJson<JobState>("/api/projector/changes", { run, tag, before, after, k, metric });

export const ranking = (key: string, limit = 50) =>
  getJson<Answer<"/api/projector/changes", { key: string; k: number; metric: string; ranked: number; points: { index: number; overlap: number }[] }>>(
    "/api/projector/changes",
    { key, limit },
  );

export const tbBookmarks = (id: EmbeddingId) =>
  getJson<Answer<"/api/projector/bookmarks", { bookmarks: unknown[] }>>("/api/projector/bookmarks", idParams(id));

export const spriteUrl = (id: EmbeddingId) => apiUrl("/api/projector/sprite", idParams(id));

export const exportUrl = (id: EmbeddingId, key: string, position: number, format: "csv" | "parquet") =>
  apiUrl("/api/projector/export", { ...idParams(id), key, position, format });
