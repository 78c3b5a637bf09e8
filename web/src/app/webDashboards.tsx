/**
 * The dashboards of pip-installed plugins, found at run time (the built-ins are found at build time, ./dashboards.ts):
 * `GET /api/plugin-web` lists the plugins whose Python half declares a web folder, the page imports each one's
 * module and turns what its default export returns ({@link WebDashboard}, given the {@link RidgelineApi}) into a
 * {@link Dashboard} beside the built-ins. A module that fails to load, or exports something else, becomes a tab
 * that says why: the shell and the other dashboards keep working.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, getJson } from "@api/client";
import type { PluginModule, PluginWebResponse } from "@api/types";
import { API_VERSION, pluginApi, type RidgelineApi, type WebDashboard } from "./pluginApi";
import type { Dashboard, DashboardProps } from "./types";

/** Imports an ES module by its absolute URL (the browser's `import()`; tests hand in their own). */
export type ModuleLoader = (url: string) => Promise<unknown>;

const importModule: ModuleLoader = (url) => import(/* @vite-ignore */ url);

function baseUrl(): string {
  return typeof document !== "undefined" ? document.baseURI : "http://localhost/";
}

/** The dashboard of one listed module: what its default export returns, or a tab that shows why it cannot be. */
export async function loadWebDashboard(
  entry: PluginModule,
  load: ModuleLoader = importModule,
  api: RidgelineApi = pluginApi(entry.plugin),
): Promise<Dashboard> {
  const url = new URL(entry.url, baseUrl()).href;
  try {
    return await toDashboard(entry, await load(url), api);
  } catch (err) {
    console.warn(`dashboard ${entry.plugin}: ${url} failed to load`, err);
    return failedDashboard(entry, err);
  }
}

/** A module's {@link Dashboard}; throws an Error saying what is wrong when it does not export one. */
export async function toDashboard(entry: PluginModule, module: unknown, api: RidgelineApi): Promise<Dashboard> {
  const factory = (module as { default?: unknown } | null)?.default;
  if (typeof factory !== "function") {
    throw new Error("its module has no default export function: export default function dashboard(ridgeline) {...}");
  }
  const spec = (await factory(api)) as Partial<WebDashboard> | null | undefined;
  if (!spec || typeof spec.title !== "string" || !spec.title) {
    throw new Error(`its default export returned no dashboard with a title (the API is version ${API_VERSION})`);
  }
  const { component, render, hasData } = spec;
  if ((typeof component === "function") === (typeof render === "function")) {
    throw new Error("its dashboard needs exactly one of component (a Preact component) and render(element, props)");
  }
  if (hasData !== undefined && typeof hasData !== "function") throw new Error("its dashboard's hasData is no function");
  return {
    name: entry.plugin,
    title: spec.title,
    order: entry.order,
    hasData: hasData ? (runs) => hasData.call(spec, runs) : () => true,
    component: component ?? elementHost(entry.plugin, spec as WebDashboard),
  };
}

/** A tab for a module that cannot be shown, with the reason in its area. */
export function failedDashboard(entry: PluginModule, error: unknown): Dashboard {
  const message = error instanceof Error ? error.message : String(error);
  return {
    name: entry.plugin,
    title: entry.plugin,
    order: entry.order,
    hasData: () => true,
    component: () => (
      <div class="banner banner-error" role="alert" data-testid="plugin-failed">
        The {entry.plugin} dashboard ({entry.url}) cannot be shown: {message}
      </div>
    ),
  };
}

/** The component of a dashboard that draws with `render(element, props)` into an element the shell owns. */
function elementHost(name: string, spec: WebDashboard) {
  return function PluginElement(props: DashboardProps) {
    const ref = useRef<HTMLDivElement>(null);
    useEffect(() => {
      const element = ref.current!;
      return () => spec.unmount?.call(spec, element);
    }, []);
    useEffect(() => {
      spec.render!.call(spec, ref.current!, props);
    }, [props.runs, props.allRuns, props.tagFilter, props.tick, props.theme]);
    return <div ref={ref} class="plugin-web" data-plugin={name} />;
  };
}

export interface WebDashboards {
  dashboards: Dashboard[];
  /** True until the listing and every listed module have been loaded (or failed). */
  loading: boolean;
}

/**
 * The installed plugins' dashboards, loaded once when the page starts (again when the server could not be
 * reached then and `online` turns true). A listed name that is already a built-in's is left to the built-in.
 */
export function useWebDashboards(builtIn: readonly Dashboard[], online: boolean): WebDashboards {
  const [state, setState] = useState<WebDashboards>({ dashboards: [], loading: true });
  const [attempt, setAttempt] = useState(0);
  const offline = useRef(false);

  useEffect(() => {
    if (online && offline.current) {
      offline.current = false;
      setAttempt((n) => n + 1);
    }
  }, [online]);

  useEffect(() => {
    let live = true;
    const names = new Set(builtIn.map((d) => d.name));
    getJson<PluginWebResponse>("/api/plugin-web")
      .then((answer) => Promise.all(answer.modules.filter((m) => !names.has(m.plugin)).map((m) => loadWebDashboard(m))))
      .then((dashboards) => live && setState({ dashboards, loading: false }))
      .catch((err: unknown) => {
        if (!live) return;
        if (err instanceof ApiError && err.unreachable) offline.current = true;
        else console.warn("the installed plugins' dashboards cannot be listed", err);
        setState({ dashboards: [], loading: false });
      });
    return () => {
      live = false;
    };
  }, [attempt]);

  return state;
}
