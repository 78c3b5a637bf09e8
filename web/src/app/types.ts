/**
 * The contract between the shell and the dashboards.
 *
 * Every plugin that has a web half default-exports a {@link DashboardEntry} from
 * `src/ridgeline/plugins/<name>/web/index.ts(x)`: its tab (name, title, order, hasData) and a `load()` that
 * imports its component with a dynamic `import()`, so each dashboard's code is a chunk of its own, fetched only
 * when its tab opens. The shell finds the entries with `import.meta.glob` (./dashboards.ts) and renders the
 * component with {@link DashboardProps}. Keep this file small and stable: dashboards build against it.
 */
import type { ComponentType } from "preact";

// The runs and props are the same for a built-in dashboard and an installed one: ./pluginTypes.ts declares them
// for both (it is the file docs/plugins.md gives authors of installed dashboards).
import type { DashboardProps, RunInfo } from "./pluginTypes";

export type { DashboardProps, RunInfo };

export interface Dashboard {
  /** The same as the Python plugin name, e.g. "scalars". */
  name: string;
  /** The tab label, e.g. "Scalars". */
  title: string;
  /** Position in the top bar (smaller first). */
  order: number;
  /** Show the tab only when some selected run has this dashboard's data. */
  hasData(runs: RunInfo[]): boolean;
  component: ComponentType<DashboardProps>;
  /** Starts fetching the component's code where it is a chunk of its own (a built-in dashboard); idempotent. */
  preload?(): Promise<unknown>;
}

/**
 * What a built-in dashboard's `index.ts(x)` default-exports: a {@link Dashboard} whose component is imported on
 * demand, e.g. `load: () => import("./ScalarsDashboard").then((m) => m.ScalarsDashboard)`. The index module is
 * in the shell's bundle, so it stays small: the tab's metadata and `hasData` (which the shell calls for every tab
 * on every reload), the CSS and the rest of the dashboard go with the component's module.
 */
export interface DashboardEntry extends Omit<Dashboard, "component" | "preload"> {
  load(): Promise<ComponentType<DashboardProps>>;
}
