/**
 * Settings kept in the URL query string (so a link reproduces the view) and in localStorage (so a fresh tab
 * opens the way the user left it). The URL wins over localStorage; a value equal to its default is dropped
 * from both, which keeps links short.
 *
 * Dashboards use {@link useUrlState} for their own settings with a prefix ("s.smooth"). Every component that
 * uses the same key sees the same value. Setting changes use `history.replaceState`, batched, so dragging a
 * slider neither floods the history nor trips the browser's rate limit on it. What a user would call a
 * navigation — switching tabs, a drill-down ("show charts ↗") — goes through {@link navigate}: one
 * `history.pushState` entry, so Back returns to the previous view; a drill-down's filters are not remembered
 * for the next visit (`persist: false`).
 */
import { useCallback, useEffect, useState } from "preact/hooks";

/** A settings value: a string, number or boolean travel as plain text; anything else as JSON. */
export function encodeSetting(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return JSON.stringify(value);
}

/** Parses `raw` as a value of `initial`'s type; undefined when it is not one (the caller falls back). */
export function decodeSetting<T>(raw: string, initial: T): T | undefined {
  switch (typeof initial) {
    case "string":
      return raw as T;
    case "number": {
      if (raw.trim() === "") return undefined;
      const n = Number(raw);
      return Number.isNaN(n) ? undefined : (n as T);
    }
    case "boolean":
      if (raw === "1" || raw === "true") return true as T;
      if (raw === "0" || raw === "false") return false as T;
      return undefined;
    default:
      try {
        const parsed: unknown = JSON.parse(raw);
        if (Array.isArray(initial) !== Array.isArray(parsed)) return undefined;
        if (initial !== null && typeof parsed !== typeof initial) return undefined;
        return parsed as T;
      } catch {
        return undefined;
      }
  }
}

/** What the store needs from the browser; tests hand it an in-memory one. */
export interface SettingsEnv {
  getSearch(): string;
  replaceSearch(search: string): void;
  /** A new history entry (Back returns to the one before); replaceSearch when absent. */
  pushSearch?(search: string): void;
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  schedule(fn: () => void): void;
}

export const STORAGE_PREFIX = "ridgeline.";

type Listener = () => void;

export class SettingsStore {
  private readonly values = new Map<string, unknown>();
  private readonly defaults = new Map<string, unknown>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly pendingUrl = new Map<string, string | null>();
  private flushScheduled = false;

  constructor(private readonly env: SettingsEnv) {}

  /** The current value of `key`: the URL's, else localStorage's, else `initial`. */
  get<T>(key: string, initial: T): T {
    if (this.values.has(key)) return this.values.get(key) as T;
    this.defaults.set(key, initial);
    const fromUrl = new URLSearchParams(this.env.getSearch()).get(key);
    let value: T | undefined = fromUrl === null ? undefined : decodeSetting(fromUrl, initial);
    if (value === undefined) {
      const stored = this.readStorage(key);
      value = stored === null ? undefined : decodeSetting(stored, initial);
      // A setting restored from localStorage goes into the address bar too, so the link shows what is seen.
      if (value !== undefined && encodeSetting(value) !== encodeSetting(initial)) this.queueUrl(key, value);
    }
    if (value === undefined) value = initial;
    this.values.set(key, value);
    return value;
  }

  set<T>(key: string, value: T): void {
    if (!this.defaults.has(key)) this.defaults.set(key, value);
    if (this.store(key, value, true)) this.notify(key);
  }

  /**
   * Sets several keys as one navigation: the queued setting changes go into the current history entry, then
   * these into a new one. With `persist: false` (a drill-down's filters) localStorage keeps what it had.
   */
  navigate(changes: Record<string, unknown>, options: { persist?: boolean } = {}): void {
    this.flush();
    const changed = Object.entries(changes).filter(([key, value]) => this.store(key, value, options.persist ?? true));
    this.writeUrl(true);
    for (const [key] of changed) this.notify(key);
  }

  /** Keeps `value` (and in storage when `persist`), queues its URL change; whether the value changed. */
  private store(key: string, value: unknown, persist: boolean): boolean {
    const previous = this.values.get(key);
    this.values.set(key, value);
    if (persist) {
      try {
        if (this.isDefault(key, value)) this.env.storage?.removeItem(STORAGE_PREFIX + key);
        else this.env.storage?.setItem(STORAGE_PREFIX + key, encodeSetting(value));
      } catch {
        // Storage full or forbidden (private mode): the URL still carries the setting.
      }
    }
    this.queueUrl(key, value);
    return previous !== value;
  }

  /** Whether `value` is the key's default (for a key no component has read yet: an empty value). */
  private isDefault(key: string, value: unknown): boolean {
    const encoded = encodeSetting(value);
    if (!this.defaults.has(key)) return encoded === "" || encoded === "[]" || encoded === "{}";
    return encoded === encodeSetting(this.defaults.get(key));
  }

  subscribe(key: string, listener: Listener): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Writes the queued URL changes now (normally done by the scheduler). */
  flush(): void {
    this.writeUrl(false);
  }

  private writeUrl(push: boolean): void {
    this.flushScheduled = false;
    if (this.pendingUrl.size === 0) return;
    const params = new URLSearchParams(this.env.getSearch());
    for (const [key, raw] of this.pendingUrl) {
      if (raw === null) params.delete(key);
      else params.set(key, raw);
    }
    this.pendingUrl.clear();
    const search = params.toString();
    if (search !== new URLSearchParams(this.env.getSearch()).toString()) {
      const write = push && this.env.pushSearch ? this.env.pushSearch : this.env.replaceSearch;
      write.call(this.env, search ? `?${search}` : "");
    }
  }

  /** Re-reads every known key from the URL (after back/forward navigation). */
  reloadFromUrl(): void {
    const params = new URLSearchParams(this.env.getSearch());
    for (const [key, initial] of this.defaults) {
      const raw = params.get(key);
      const value = raw === null ? initial : (decodeSetting(raw, initial) ?? initial);
      if (encodeSetting(value) !== encodeSetting(this.values.get(key))) {
        this.values.set(key, value);
        this.notify(key);
      }
    }
  }

  private queueUrl(key: string, value: unknown): void {
    this.pendingUrl.set(key, this.isDefault(key, value) ? null : encodeSetting(value));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      this.env.schedule(() => this.flush());
    }
  }

  private readStorage(key: string): string | null {
    try {
      return this.env.storage?.getItem(STORAGE_PREFIX + key) ?? null;
    } catch {
      return null;
    }
  }

  private notify(key: string): void {
    for (const listener of this.listeners.get(key) ?? []) listener();
  }
}

function browserEnv(): SettingsEnv {
  let storage: Storage | null = null;
  try {
    storage = window.localStorage;
  } catch {
    storage = null;
  }
  return {
    getSearch: () => window.location.search,
    replaceSearch: (search) => {
      const url = `${window.location.pathname}${search}${window.location.hash}`;
      window.history.replaceState(window.history.state, "", url);
    },
    pushSearch: (search) => {
      window.history.pushState(null, "", `${window.location.pathname}${search}${window.location.hash}`);
    },
    storage,
    schedule: (fn) => void setTimeout(fn, 150),
  };
}

let store: SettingsStore | null = null;

/** The page's settings store (created on first use, listening to back/forward navigation). */
export function settings(): SettingsStore {
  if (!store) {
    store = new SettingsStore(browserEnv());
    const s = store;
    window.addEventListener("popstate", () => s.reloadFromUrl());
    window.addEventListener("pagehide", () => s.flush());
  }
  return store;
}

/**
 * One navigation (a tab, a drill-down): sets the keys together in a new history entry, so Back returns to the
 * view before. `persist: false` leaves localStorage as it was (a drill-down's filters are not the user's own).
 */
export function navigate(changes: Record<string, unknown>, options: { persist?: boolean } = {}): void {
  settings().navigate(changes, options);
}

/**
 * A setting kept in the URL query string (shareable) and localStorage, like `useState`.
 * `initial` is the default and fixes the type used to parse the URL; keys are shared page-wide.
 */
export function useUrlState<T>(key: string, initial: T): [T, (v: T) => void] {
  const s = settings();
  const [value, setValue] = useState<T>(() => s.get(key, initial));
  useEffect(() => {
    setValue(s.get(key, initial));
    return s.subscribe(key, () => setValue(() => s.get(key, initial)));
    // The default is fixed by the first render; only the key matters.
  }, [key]);
  const set = useCallback((v: T) => s.set(key, v), [key]);
  return [value, set];
}
