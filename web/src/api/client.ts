/**
 * The only way the UI talks to the server: JSON in, JSON out, errors as {@link ApiError}.
 *
 * Paths are resolved against the page's base URL, not the host root, so the UI keeps working behind a
 * reverse proxy that serves it under a prefix (`/proxy/6006/` -> `/proxy/6006/api/runs`). They are the spec's routes
 * (./types.ts): a request to a route the server does not serve fails to typecheck.
 */
import type { ApiPath, ErrorBody, PostPath, QueryOf, RouteOf } from "./types";

/** A failed request: `status` is the HTTP status, or 0 when the server could not be reached at all. */
export class ApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }

  /** True when the server did not answer (network down, server stopped), as opposed to answering an error. */
  get unreachable(): boolean {
    return this.status === 0;
  }
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  signal?: AbortSignal;
}

function baseUrl(): string {
  return typeof document !== "undefined" ? document.baseURI : "http://localhost/";
}

/** The absolute URL for an API path ("/api/runs") with the given query (null/undefined skipped). */
export function apiUrl(path: ApiPath, params?: Record<string, QueryValue>): string {
  return urlFor(path, params);
}

function urlFor(path: string, params?: Record<string, QueryValue>): string {
  const url = new URL(path.replace(/^\/+/, ""), baseUrl());
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== null && value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/** The message of an error answer (`{"error": ...}`), or null when the body is not one. */
function errorMessage(body: unknown): string | null {
  const error = body && typeof body === "object" && "error" in body ? (body as ErrorBody).error : undefined;
  return typeof error === "string" ? error : null;
}

async function request<T>(url: string, init: RequestInit, started?: Promise<Response>): Promise<T> {
  let response: Response;
  try {
    response = await (started ?? fetch(url, init));
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, `cannot reach the ridgeline server (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await response.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      if (response.ok) throw new ApiError(response.status, `the server answered with invalid JSON for ${url}`);
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, errorMessage(body) ?? `${response.status} ${response.statusText || "error"}`.trim());
  }
  return body as T;
}

/**
 * GET `path?params` as JSON. Throws {@link ApiError} built from the server's `{"error": ...}` body. With an answer
 * type from ./types (`Answer<route, ...>`), `path` must be its route and `params` that route's query parameters.
 */
export function getJson<T>(path: RouteOf<T>, params?: QueryOf<T>, options: RequestOptions = {}): Promise<T> {
  return request<T>(apiUrl(path, params as Record<string, QueryValue> | undefined), {
    headers: { Accept: "application/json" },
    signal: options.signal,
  });
}

/**
 * GET `path?params` as JSON for a route the spec cannot know when the UI is built: a third-party plugin's
 * (`/api/plugins/<name>/...`, see app/pluginApi.ts). Like {@link getJson}, without its route check.
 */
export function getJsonAt(
  path: string,
  params?: Record<string, QueryValue>,
  options: RequestOptions = {},
): Promise<unknown> {
  return request<unknown>(urlFor(path, params), { headers: { Accept: "application/json" }, signal: options.signal });
}

/** POST `body` as JSON to a route the spec cannot know when the UI is built (see {@link getJsonAt}). */
export function postJsonAt(path: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
  return request<unknown>(urlFor(path), jsonPost(body, options));
}

/**
 * The answer to a GET that index.html started before the app's script loaded (`window.__ridgelinePrefetch[path]`,
 * a `fetch` promise), read like {@link getJson}; null when there is none. Each prefetch is used once: the first
 * `/api/runs` then costs no round trip after the script has run.
 */
export function takePrefetched<T>(path: string): Promise<T> | null {
  const store = (globalThis as { __ridgelinePrefetch?: Record<string, Promise<Response> | undefined> }).__ridgelinePrefetch;
  const started = store?.[path];
  if (!store || !started) return null;
  delete store[path];
  return request<T>(urlFor(path), {}, started);
}

/** POST `body` as JSON to `path`. Throws {@link ApiError} built from the server's `{"error": ...}` body. */
export function postJson<T>(path: PostPath, body: unknown, options: RequestOptions = {}): Promise<T> {
  return request<T>(apiUrl(path), jsonPost(body, options));
}

function jsonPost(body: unknown, options: RequestOptions): RequestInit {
  return {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: options.signal,
  };
}

/** A binary answer: its bytes and its content type. */
export interface BinaryAnswer {
  buffer: ArrayBuffer;
  contentType: string;
}

/**
 * POST `body` as JSON to `path` and read the answer as bytes (`Accept: application/octet-stream`), for routes
 * with a binary form such as `POST /api/scalars/batch?format=binary`. Throws {@link ApiError} like
 * {@link postJson}; the error body is JSON either way.
 */
export function postBinary(
  path: PostPath,
  body: unknown,
  params?: Record<string, QueryValue>,
  options: RequestOptions = {},
): Promise<BinaryAnswer> {
  return binary(apiUrl(path, params), {
    method: "POST",
    headers: { Accept: "application/octet-stream", "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: options.signal,
  });
}

/**
 * GET `path?params` and read the answer as bytes (`Accept: application/octet-stream`), for routes with a binary
 * form such as `GET /api/profile/timeline?format=binary`. Throws {@link ApiError} like {@link getJson}.
 */
export function getBinary(
  path: ApiPath,
  params?: Record<string, QueryValue>,
  options: RequestOptions = {},
): Promise<BinaryAnswer> {
  return binary(apiUrl(path, params), { headers: { Accept: "application/octet-stream" }, signal: options.signal });
}

async function binary(url: string, init: RequestInit): Promise<BinaryAnswer> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, `cannot reach the ridgeline server (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!response.ok) {
    let message: string | null = null;
    try {
      message = errorMessage(JSON.parse(await response.text()));
    } catch {
      // not JSON: the status line
    }
    throw new ApiError(response.status, message ?? `${response.status} ${response.statusText || "error"}`.trim());
  }
  return { buffer: await response.arrayBuffer(), contentType: response.headers.get("content-type") ?? "" };
}
