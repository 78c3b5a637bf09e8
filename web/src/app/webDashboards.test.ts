import { afterEach, describe, expect, it, vi } from "vitest";
import { API_VERSION, pluginApi, type RidgelineApi } from "./pluginApi";
import type { RunInfo } from "./types";
import { loadWebDashboard, toDashboard } from "./webDashboards";

const entry = { plugin: "hello", url: "api/plugin-web/hello/index.js", order: 1000 };
const Component = () => null;
const run = (name: string, scalars: string[]): RunInfo => ({
  run: name,
  colour: "#000",
  tags: { scalars },
  last_step: null,
  last_wall_time: null,
  annotations: 0,
});

afterEach(() => vi.restoreAllMocks());

describe("toDashboard", () => {
  it("takes the name and order from the server's listing and the rest from what the module returns", async () => {
    const seen: RidgelineApi[] = [];
    const module = {
      default: (api: RidgelineApi) => {
        seen.push(api);
        const hasData = (runs: RunInfo[]) => runs.some((r) => r.tags.scalars!.length > 0);
        return { name: "ignored", title: "Hello", hasData, component: Component };
      },
    };
    const dashboard = await toDashboard(entry, module, pluginApi("hello"));
    expect(dashboard).toMatchObject({ name: "hello", title: "Hello", order: 1000, component: Component });
    expect(dashboard.hasData([run("a", [])])).toBe(false);
    expect(dashboard.hasData([run("a", []), run("b", ["loss"])])).toBe(true);
    expect(seen[0]!.version).toBe(API_VERSION);
    expect(seen[0]!.plugin.name).toBe("hello");
  });

  it("waits for a factory that returns a promise, and shows the tab for every selection without hasData", async () => {
    const module = { default: async () => ({ title: "Hello", render() {} }) };
    const dashboard = await toDashboard(entry, module, pluginApi("hello"));
    expect(dashboard.title).toBe("Hello");
    expect(typeof dashboard.component).toBe("function");
    expect(dashboard.hasData([run("a", [])])).toBe(true);
  });

  it.each([
    [{}, /no default export function/],
    [{ default: { title: "Hello" } }, /no default export function/],
    [null, /no default export function/],
    [{ default: () => undefined }, /no dashboard with a title/],
    [{ default: () => ({ component: Component }) }, /no dashboard with a title/],
    [{ default: () => ({ title: "Hello" }) }, /exactly one of component .* and render/],
    [{ default: () => ({ title: "Hello", component: Component, render() {} }) }, /exactly one of component .* and render/],
    [{ default: () => ({ title: "Hello", component: Component, hasData: true }) }, /hasData is no function/],
  ])("refuses a module that exports no dashboard (%o), saying what is wrong", async (module, message) => {
    await expect(toDashboard(entry, module, pluginApi("hello"))).rejects.toThrow(message);
  });
});

describe("loadWebDashboard", () => {
  it("imports the module at its URL resolved against the page", async () => {
    const urls: string[] = [];
    const load = async (url: string) => {
      urls.push(url);
      return { default: () => ({ title: "Hello", component: Component }) };
    };
    const dashboard = await loadWebDashboard(entry, load);
    expect(urls).toEqual(["http://localhost/api/plugin-web/hello/index.js"]);
    expect(dashboard.title).toBe("Hello");
  });

  it.each([
    ["a module that fails to import", () => Promise.reject(new TypeError("Failed to fetch dynamically imported module"))],
    [
      "a module that throws while making its dashboard",
      async () => ({
        default: () => {
          throw new Error("boom");
        },
      }),
    ],
    ["a module that exports something else", async () => ({ default: 42 })],
  ])("turns %s into a tab that says why", async (_what, load) => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const dashboard = await loadWebDashboard(entry, load);
    expect(dashboard).toMatchObject({ name: "hello", title: "hello", order: 1000 });
    expect(dashboard.hasData([])).toBe(true);
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]![0])).toContain("api/plugin-web/hello/index.js");
  });
});
