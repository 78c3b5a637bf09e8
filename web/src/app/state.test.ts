import { describe, expect, it } from "vitest";
import { decodeSetting, encodeSetting, SettingsStore, STORAGE_PREFIX, type SettingsEnv } from "./state";

/** An in-memory address bar and localStorage; flushes run when the test says so. */
function memoryEnv(search = "", stored: Record<string, string> = {}) {
  const storage = new Map(Object.entries(stored).map(([k, v]) => [STORAGE_PREFIX + k, v]));
  const queue: (() => void)[] = [];
  const env: SettingsEnv & { search: string; writes: number; run(): void; storage: Map<string, string> & Storage } = {
    search,
    writes: 0,
    getSearch: () => env.search,
    replaceSearch: (s) => {
      env.search = s;
      env.writes++;
    },
    storage: Object.assign(storage, {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    }) as never,
    schedule: (fn) => void queue.push(fn),
    run: () => queue.splice(0).forEach((fn) => fn()),
  };
  return env;
}

describe("encodeSetting / decodeSetting", () => {
  it.each([
    ["a string", "^train/.*(loss|acc)$ & ü"],
    ["a number", 0.6],
    ["zero", 0],
    ["a negative number", -1e-7],
    ["true", true],
    ["false", false],
    ["an object", { mode: "except", names: ["a,b", "c&d=e"] }],
    ["an array", ["x", "y"]],
  ])("round-trips %s through the query string", (_, value) => {
    const params = new URLSearchParams();
    params.set("k", encodeSetting(value));
    const back = decodeSetting(new URLSearchParams(params.toString()).get("k")!, value);
    expect(back).toEqual(value);
  });

  it("rejects values of the wrong type so the default is used", () => {
    expect(decodeSetting("abc", 1)).toBeUndefined();
    expect(decodeSetting("", 1)).toBeUndefined();
    expect(decodeSetting("maybe", true)).toBeUndefined();
    expect(decodeSetting("{bad json", { a: 1 })).toBeUndefined();
    expect(decodeSetting("[1]", { a: 1 })).toBeUndefined();
  });
});

describe("SettingsStore", () => {
  it("reads the URL first, then localStorage, then the default", () => {
    const env = memoryEnv("?a=url", { a: "stored", b: "stored" });
    const store = new SettingsStore(env);
    expect(store.get("a", "default")).toBe("url");
    expect(store.get("b", "default")).toBe("stored");
    expect(store.get("c", "default")).toBe("default");
  });

  it("puts a value restored from localStorage into the URL, so the link shows the view", () => {
    const env = memoryEnv("", { smooth: "0.9" });
    const store = new SettingsStore(env);
    expect(store.get("smooth", 0.6)).toBe(0.9);
    env.run();
    expect(new URLSearchParams(env.search).get("smooth")).toBe("0.9");
  });

  it("writes set values to both, batched into one URL update", () => {
    const env = memoryEnv("?keep=1");
    const store = new SettingsStore(env);
    store.get("s.smooth", 0.6);
    store.get("tagFilter", "");
    store.set("s.smooth", 0.7);
    store.set("s.smooth", 0.8);
    store.set("tagFilter", "^train/");
    expect(env.writes).toBe(0);
    env.run();
    expect(env.writes).toBe(1);
    const params = new URLSearchParams(env.search);
    expect(params.get("keep")).toBe("1");
    expect(params.get("s.smooth")).toBe("0.8");
    expect(params.get("tagFilter")).toBe("^train/");
    expect(env.storage.get(STORAGE_PREFIX + "s.smooth")).toBe("0.8");
  });

  it("drops a value equal to its default from the URL and localStorage", () => {
    const env = memoryEnv("?s.smooth=0.8", { "s.smooth": "0.8" });
    const store = new SettingsStore(env);
    expect(store.get("s.smooth", 0.6)).toBe(0.8);
    store.set("s.smooth", 0.6);
    env.run();
    expect(env.search).toBe("");
    expect(env.storage.has(STORAGE_PREFIX + "s.smooth")).toBe(false);
  });

  it("round-trips a setting through a shared link into a fresh page", () => {
    const first = memoryEnv();
    const a = new SettingsStore(first);
    a.get("runs", { mode: "except", names: [] as string[] });
    a.set("runs", { mode: "only", names: ["lr=0.1,bs=32", "b/c"] });
    a.get("autoReload", true);
    a.set("autoReload", false);
    first.run();
    const second = new SettingsStore(memoryEnv(first.search));
    expect(second.get("runs", { mode: "except", names: [] as string[] })).toEqual({ mode: "only", names: ["lr=0.1,bs=32", "b/c"] });
    expect(second.get("autoReload", true)).toBe(false);
  });

  it("notifies subscribers of the key that changed, and on back/forward navigation", () => {
    const env = memoryEnv();
    const store = new SettingsStore(env);
    store.get("tab", "");
    const seen: string[] = [];
    store.subscribe("tab", () => seen.push(store.get("tab", "")));
    store.set("tab", "scalars");
    env.search = "?tab=images";
    store.reloadFromUrl();
    expect(seen).toEqual(["scalars", "images"]);
  });
});

describe("SettingsStore.navigate", () => {
  function historyEnv(search = "", stored: Record<string, string> = {}) {
    const storage = new Map(Object.entries(stored).map(([k, v]) => [STORAGE_PREFIX + k, v]));
    const entries: string[] = [search];
    const env: SettingsEnv & { entries: string[] } = {
      entries,
      getSearch: () => entries[entries.length - 1]!,
      replaceSearch: (s) => void (entries[entries.length - 1] = s),
      pushSearch: (s) => void entries.push(s),
      storage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
        removeItem: (k: string) => void storage.delete(k),
      },
      schedule: () => {},
    };
    return { env, storage };
  }

  it("puts one navigation in one new history entry, after the pending setting changes", () => {
    const { env } = historyEnv();
    const store = new SettingsStore(env);
    store.get("tab", "");
    store.get("s.smooth", 0.6);
    store.set("s.smooth", 0.9); // queued, not yet written
    store.navigate({ tab: "hparams" });
    expect(env.entries).toEqual(["?s.smooth=0.9", "?s.smooth=0.9&tab=hparams"]);
    expect(store.get("tab", "")).toBe("hparams");
  });

  it("leaves localStorage as it was for a drill-down", () => {
    const { env, storage } = historyEnv("", { runFilter: "mine" });
    const store = new SettingsStore(env);
    expect(store.get("runFilter", "")).toBe("mine");
    store.navigate({ runFilter: "^exp$", tab: "scalars" }, { persist: false });
    expect(store.get("runFilter", "")).toBe("^exp$");
    expect(storage.get(`${STORAGE_PREFIX}runFilter`)).toBe("mine");
    expect(storage.has(`${STORAGE_PREFIX}tab`)).toBe(false);
  });
});
