import { describe, expect, it } from "vitest";
import { builtInDashboard, DASHBOARDS, preloadDashboard, sortDashboards } from "./dashboards";
import type { Dashboard, DashboardEntry, DashboardProps } from "./types";

const Component = (_props: DashboardProps) => null;

function entry(name: string, order: number, loads: string[]): DashboardEntry {
  return {
    name,
    title: name.toUpperCase(),
    order,
    hasData: () => true,
    load: () => {
      loads.push(name);
      return Promise.resolve(Component);
    },
  };
}

describe("built-in dashboards", () => {
  it("are every plugin's index module, each with its component loaded on demand", () => {
    const names = DASHBOARDS.map((d) => d.name);
    expect(names).toContain("scalars");
    expect(names).toContain("distributed");
    expect(names).toEqual(sortDashboards(DASHBOARDS).map((d) => d.name));
    for (const dashboard of DASHBOARDS) {
      expect(typeof dashboard.component, dashboard.name).toBe("function");
      expect(typeof dashboard.preload, dashboard.name).toBe("function");
    }
  });

  it("keep an entry's tab and load its component once, however often it is preloaded", async () => {
    const loads: string[] = [];
    const dashboard = builtInDashboard(entry("text", 60, loads))!;
    expect(dashboard).toMatchObject({ name: "text", title: "TEXT", order: 60 });
    expect(loads).toEqual([]); // nothing is fetched before it is asked for
    const first = dashboard.preload!();
    expect(dashboard.preload!()).toBe(first);
    expect(await first).toBe(Component);
    expect(loads).toEqual(["text"]);
  });

  it("take a module that exports a whole Dashboard as it is", () => {
    const whole: Dashboard = { name: "x", title: "X", order: 1, hasData: () => true, component: Component };
    expect(builtInDashboard(whole)).toBe(whole);
    expect(builtInDashboard(undefined)).toBeUndefined();
  });
});

describe("preloadDashboard", () => {
  const loads: string[] = [];
  const dashboards = sortDashboards([entry("b", 2, loads), entry("a", 1, loads)].map(builtInDashboard));

  it("loads the named tab's code, the first tab's when none is named, nothing for an unknown one", () => {
    preloadDashboard("b", dashboards);
    expect(loads).toEqual(["b"]);
    preloadDashboard("", dashboards);
    expect(loads).toEqual(["b", "a"]);
    preloadDashboard("an-installed-plugin", dashboards);
    expect(loads).toEqual(["b", "a"]);
  });
});
