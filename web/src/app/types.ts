/**
 * The contract between the shell and the dashboards.
 *
 * Every plugin that has a web half default-exports a {@link Dashboard} from
 * `src/ridgeline/plugins/<name>/web/index.ts(x)`; the shell finds it with `import.meta.glob` and renders its
 * component with {@link DashboardProps}. Keep this file small and stable: dashboards build against it.
 */
import type { ComponentType } from "preact";

/** One run as the shell hands it to dashboards: the server's `/api/runs` entry plus its stable colour. */
export interface RunInfo {
  run: string;
  /** CSS colour from `colourFor(run)`: the same run has the same colour in every chart and in the sidebar. */
  colour: string;
  /** Tags per kind ("scalars", "histograms", ...), as `/api/runs` lists them. */
  tags: Record<string, string[]>;
  last_step: number | null;
  last_wall_time: number | null;
  /** How many annotations the run has (cards ask GET /api/annotations only for runs that have some). */
  annotations: number;
}

export interface DashboardProps {
  /** The SELECTED runs after the run filter, with their stable colours. */
  runs: RunInfo[];
  /** Every run the server knows. */
  allRuns: RunInfo[];
  /** The shell's tag regex (null = all tags). */
  tagFilter: RegExp | null;
  /**
   * Increments on every reload (auto-reload found new data, or the reload button was pressed): dashboards
   * fetch what is new (`since_step`) when it changes.
   */
  tick: number;
  theme: "light" | "dark";
}

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
