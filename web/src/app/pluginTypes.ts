// What ridgeline's page hands the web half of an installed dashboard: API version 1 (docs/plugins.md).
import type { ComponentType, Fragment, h } from "preact";
import type * as hooks from "preact/hooks";

/** One run as the page hands it to dashboards: the server's `/api/runs` entry plus its stable colour. */
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
  /** The run this one is nested under in the run list (the nearest run its path starts with), else null. */
  parent?: string | null;
  /** The torch add_hparams sub-run whose hyperparameters this run has (docs/hparams.md#torch-trials), else null. */
  hparams_trial?: string | null;
  /** For such a sub-run: the run it is attached to, else null. */
  attached_to?: string | null;
  /** "running", "finished", "failed", "crashed" or "stopped" (docs/runs.md). */
  status?: string | null;
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

/** What the module's default export returns: a title, and exactly one of `component` and `render`. */
export interface WebDashboard {
  title: string;
  /** Whether the tab shows for these selected runs (default: always). */
  hasData?(runs: RunInfo[]): boolean;
  /** A Preact component made with the API's `h` and hooks (never with a Preact of its own). */
  component?: ComponentType<DashboardProps>;
  /** Draws into `element` when the tab opens and whenever a prop changes (any framework, bundled or not). */
  render?(element: HTMLElement, props: DashboardProps): void;
  /** Called once when the tab closes. */
  unmount?(element: HTMLElement): void;
}

type Query = Record<string, string | number | boolean | null | undefined>;

export interface RidgelineApi {
  version: 1;
  /** The plugin's name, as its Python half's: its routes are /api/plugins/<name>/... */
  plugin: { name: string };
  h: typeof h;
  Fragment: typeof Fragment;
  useState: typeof hooks.useState;
  useEffect: typeof hooks.useEffect;
  useLayoutEffect: typeof hooks.useLayoutEffect;
  useMemo: typeof hooks.useMemo;
  useCallback: typeof hooks.useCallback;
  useRef: typeof hooks.useRef;
  useReducer: typeof hooks.useReducer;
  /** A useState kept in the page's URL and local storage; prefix keys with the plugin's name ("hello.digits"). */
  useUrlState<T>(key: string, initial: T): [T, (value: T) => void];
  /** The same settings without hooks (for `render`). */
  settings: {
    get<T>(key: string, initial: T): T;
    set<T>(key: string, value: T): void;
    subscribe(key: string, listener: () => void): () => void;
  };
  /** GET a JSON route relative to the page ("/api/plugins/hello/last"); rejects with an ApiError. */
  getJson(path: string, params?: Query, options?: { signal?: AbortSignal }): Promise<unknown>;
  postJson(path: string, body: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** `status`: the HTTP status, 0 when the server cannot be reached; `message`: the server's error. */
  ApiError: new (status: number, message: string) => Error & { readonly status: number; readonly unreachable: boolean };
  colourFor(run: string): string;
}
