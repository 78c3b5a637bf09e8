/**
 * The contract between the shell and the dashboards.
 *
 * Every plugin that has a web half default-exports a {@link Dashboard} from
 * `src/ridgeline/plugins/<name>/web/index.ts(x)`; the shell finds it with `import.meta.glob` and renders its
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
}
