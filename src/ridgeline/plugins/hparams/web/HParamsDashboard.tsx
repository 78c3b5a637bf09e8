/**
 * The hparams dashboard: one row per trial (a run with hyperparameters) in a sortable, filterable table, a
 * parallel coordinates view and a scatter-plot matrix of hyperparameters against metrics. The three share
 * the filters, the hidden columns and the selected trial; settings live in the URL under "hp.".
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, getJson } from "@api/client";
import { ALL } from "@app/selection";
import { navigate, useUrlState } from "@app/state";
import { exactRunsPattern } from "@app/filters";
import type { DashboardProps } from "@app/types";
import { registry } from "@charts/registry";
import {
  colourBy,
  columnsOf,
  defaultHidden,
  isActive,
  passes,
  sortTrials,
  type Filter,
  type Filters,
  type SortDir,
  type Table,
  type Trial,
} from "./model";
import { ParallelCoords } from "./ParallelCoords";
import { ScatterMatrix } from "./ScatterMatrix";
import { ScalarsLink, type ViewProps } from "./shared";
import { TrialTable } from "./TrialTable";
import type { Answer } from "@api/types";

const CARDS = ["table", "parallel", "scatter"] as const;

export function HParamsDashboard({ runs, tick }: DashboardProps) {
  const [table, setTable] = useState<Table | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sortCol, setSortCol] = useUrlState("hp.sort", "");
  const [sortDir, setSortDir] = useUrlState<string>("hp.dir", "asc");
  // "" = the default (hide most metrics when there are many), else a JSON list of the hidden column ids.
  const [hiddenSetting, setHiddenSetting] = useUrlState("hp.hidden", "");
  const [filters, setFilters] = useUrlState<Filters>("hp.filters", {});
  const [colourSetting, setColour] = useUrlState("hp.colour", "");
  const [selected, setSelected] = useUrlState("hp.run", "");

  useEffect(() => {
    const abort = new AbortController();
    getJson<Answer<"/api/hparams/table", Table>>("/api/hparams/table", undefined, { signal: abort.signal }).then(
      (t) => {
        setTable(t);
        setError(null);
      },
      (err: unknown) => {
        if (err instanceof DOMException && err.name === "AbortError") return;
        setError(err instanceof ApiError || err instanceof Error ? err.message : String(err));
      },
    );
    return () => abort.abort();
  }, [tick]);

  const colourOfRun = useMemo(() => new Map(runs.map((r) => [r.run, r.colour])), [runs]);
  const trialsAll = useMemo(
    () => (table?.trials ?? []).filter((t) => colourOfRun.has(t.run)),
    [table, colourOfRun],
  );
  const columns = useMemo(() => (table ? columnsOf(table) : []), [table]);
  const hidden = useMemo(() => new Set(parseList(hiddenSetting) ?? defaultHidden(columns)), [hiddenSetting, columns]);
  const visibleCols = useMemo(() => columns.filter((c) => !hidden.has(c.id)), [columns, hidden]);
  const safeFilters = filters && typeof filters === "object" && !Array.isArray(filters) ? filters : {};
  /** One column's filter set (null or an empty range: removed), from the table or an axis brush. */
  const setFilter = (id: string, f: Filter | null) => {
    const next = { ...safeFilters };
    if (f === null || !isActive(f)) delete next[id];
    else next[id] = f;
    setFilters(next);
  };
  const shown = useMemo(
    () => trialsAll.filter((t) => passes(t, columns, safeFilters)),
    [trialsAll, columns, safeFilters],
  );
  const sortColumn = columns.find((c) => c.id === sortCol) ?? null;
  const sorted = useMemo(
    () => sortTrials(shown, sortColumn, sortDir === "desc" ? "desc" : "asc"),
    [shown, sortColumn, sortDir],
  );
  const metricCols = columns.filter((c) => c.kind === "metric");
  const colourCol =
    metricCols.find((c) => c.id === colourSetting) ??
    visibleCols.find((c) => c.kind === "metric") ??
    metricCols[0] ??
    null;
  const metricColours = useMemo(() => colourBy(trialsAll, colourCol), [trialsAll, colourCol]);

  const selectedTrial = trialsAll.find((t) => t.run === selected) ?? null;
  // A stable callback: the memoised lines and points do not redraw when the selection changes.
  const selection = useRef({ selected, setSelected });
  selection.current = { selected, setSelected };
  const onSelect = useCallback((run: string) => {
    const { selected, setSelected } = selection.current;
    setSelected(run === selected ? "" : run);
  }, []);
  const showScalars = useCallback((trial: Trial) => {
    // A drill-down: its own history entry (Back returns here), its filter not remembered for the next visit.
    const runFilter = exactRunsPattern(trial.related_runs.length ? trial.related_runs : [trial.run]);
    navigate({ runFilter, runs: ALL, tab: "scalars" }, { persist: false });
  }, []);

  const ready = table !== null || error !== null;
  useLayoutEffect(() => {
    for (const id of CARDS) {
      registry.add(`hparams:${id}`);
      registry.setVisible(`hparams:${id}`, true);
    }
    return () => {
      for (const id of CARDS) registry.remove(`hparams:${id}`);
    };
  }, []);
  useLayoutEffect(() => {
    for (const id of CARDS) registry.setReady(`hparams:${id}`, ready);
  }, [ready, sorted, visibleCols]);

  if (error && !table) {
    return (
      <div class="rl-hparams">
        <p class="hp-error" role="alert" data-testid="hparams-error">
          Could not load the hyperparameters: {error}
        </p>
      </div>
    );
  }
  if (!table) {
    return (
      <div class="rl-hparams">
        <p class="muted" aria-busy="true">
          Loading hyperparameters…
        </p>
      </div>
    );
  }
  if (trialsAll.length === 0) {
    return (
      <div class="rl-hparams">
        <Problems table={table} />
        <p class="rl-empty" data-testid="hparams-empty">
          None of the selected runs recorded hyperparameters ({table.trials.length} runs in the log directory did).
        </p>
      </div>
    );
  }

  const views: ViewProps = { trials: sorted, columns: visibleCols, colours: colourOfRun, selected, onSelect };
  // The charts get the trials in a fixed order: sorting the table does not redraw them.
  const charted: ViewProps = { ...views, trials: shown };
  const filterCount = Object.values(safeFilters).filter(isActive).length;
  return (
    <div class="rl-hparams" data-testid="hparams-dashboard">
      {error && (
        <p class="hp-error" role="alert">
          Reload failed: {error}
        </p>
      )}
      <Problems table={table} />
      <div class="hp-selection" data-testid="hparams-selection" aria-live="polite">
        {selectedTrial ? (
          <>
            <span class="hp-swatch" style={{ background: colourOfRun.get(selectedTrial.run) }} />
            <strong>{selectedTrial.run}</strong>
            <ScalarsLink trial={selectedTrial} onOpen={showScalars} />
            <button type="button" onClick={() => setSelected("")}>
              Clear
            </button>
          </>
        ) : (
          <span class="muted">Click a trial in the table, a line or a point to highlight it in every view.</span>
        )}
        <span class="hp-count muted" data-testid="hparams-count">
          {shown.length} of {trialsAll.length} trials{filterCount ? ` (${filterCount} filter${filterCount > 1 ? "s" : ""})` : ""}
        </span>
        {filterCount > 0 && (
          <button type="button" onClick={() => setFilters({})} data-testid="hparams-clear-filters">
            Clear filters
          </button>
        )}
      </div>
      <section class="hp-card" data-testid="hparams-card" data-tag="table" data-ready={ready ? "true" : "false"}>
        <TrialTable
          {...views}
          allTrials={trialsAll}
          allColumns={columns}
          hidden={hidden}
          onHidden={(ids) => setHiddenSetting(JSON.stringify(ids))}
          filters={safeFilters}
          onFilter={setFilter}
          sortCol={sortColumn?.id ?? ""}
          sortDir={sortDir === "desc" ? "desc" : "asc"}
          onSort={(id: string, dir: SortDir) => {
            setSortCol(id);
            setSortDir(dir);
          }}
          onScalars={showScalars}
        />
      </section>
      <section class="hp-card" data-testid="hparams-card" data-tag="parallel" data-ready={ready ? "true" : "false"}>
        <header class="hp-card-head">
          <h3>Parallel coordinates</h3>
          <label class="rl-field">
            <span>Colour by</span>
            <select
              data-testid="hparams-colour"
              value={colourCol?.id ?? ""}
              onChange={(e) => setColour((e.target as HTMLSelectElement).value)}
            >
              {metricCols.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
        </header>
        <ParallelCoords
          {...charted}
          lineColours={metricColours}
          colourCol={colourCol}
          scaleTrials={trialsAll}
          filters={safeFilters}
          onFilter={setFilter}
        />
      </section>
      <section class="hp-card" data-testid="hparams-card" data-tag="scatter" data-ready={ready ? "true" : "false"}>
        <header class="hp-card-head">
          <h3>Hyperparameters against metrics</h3>
        </header>
        <ScatterMatrix {...charted} />
      </section>
    </div>
  );
}

/** What could not be read, said once above the views (the rest of the page works without it). */
function Problems({ table }: { table: Table }) {
  const problems = table.problems ?? [];
  if (problems.length === 0) return null;
  return (
    <details class="hp-problems" data-testid="hparams-problems">
      <summary>
        {problems.length === 1 ? "1 hyperparameter record" : `${problems.length} hyperparameter records`} could not be
        read: {problems.length === 1 ? "its trial is" : "their trials are"} not shown
      </summary>
      <ul>
        {problems.map((p, i) => (
          <li key={i}>
            <code>{p.path}</code>
            {p.offset !== null ? ` at byte ${p.offset}` : ""}: {p.reason}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** A JSON list of strings, or null when `raw` is empty or not one. */
function parseList(raw: string): string[] | null {
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === "string") : null;
  } catch {
    return null;
  }
}
