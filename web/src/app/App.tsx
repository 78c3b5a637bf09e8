/**
 * The shell: fetches the runs, owns the run selection and the filters (all kept in the URL and localStorage),
 * and renders the active dashboard with {@link DashboardProps}.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { DASHBOARDS, sortDashboards } from "./dashboards";
import { EmptyState } from "./EmptyState";
import { ErrorBoundary } from "./ErrorBoundary";
import { FilterInput } from "./FilterInput";
import { compileFilter, filterByName } from "./filters";
import { assignColours, colourFor, encodeColours, seedColours } from "./palette";
import { compareRuns, descendants, runParents } from "./runOrder";
import { RunSelector } from "./RunSelector";
import { useSidebarWidth } from "./sidebarWidth";
import { RetentionNotice } from "./RetentionNotice";
import { QueryNote, SearchBox } from "./SearchBox";
import { ALL, isSelected, selectionLookup, setRuns, validSelection, type Selection } from "./selection";
import { navigate, settings, useUrlState } from "./state";
import { applyTheme, resolveTheme, THEME_KEY, useSystemTheme, type ThemeSetting } from "./theme";
import { TopBar } from "./TopBar";
import type { Dashboard, RunInfo } from "./types";
import { loadingNotice, useRuns } from "./useRuns";
import { useRunFilterSearch } from "./useSearch";
import { useWebDashboards } from "./webDashboards";

/** The URL key of the runs' colours (palette.ts): a shared link shows every run in the sender's colour. */
const COLOURS_KEY = "colours";
let coloursSeeded = false;

/** How long the tag filter waits after the last keystroke before dashboards re-filter (ms). */
const TAG_FILTER_DELAY_MS = 150;

function useDebounced<T>(value: T, delay: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return current;
}

export function App(props: { dashboards?: readonly Dashboard[] }) {
  const builtIn = props.dashboards ?? DASHBOARDS;
  const [autoReload, setAutoReload] = useUrlState("autoReload", true);
  const [runFilter, setRunFilter] = useUrlState("runFilter", "");
  const [tagFilter, setTagFilter] = useUrlState("tagFilter", "");
  const [rawSelection, setSelection] = useUrlState<Selection>("runs", ALL);
  const [tab] = useUrlState("tab", "");
  const [themeSetting, setThemeSetting] = useUrlState<string>(THEME_KEY, "auto");
  const system = useSystemTheme();
  const theme = resolveTheme(
    themeSetting === "light" || themeSetting === "dark" ? (themeSetting as ThemeSetting) : "auto",
    system,
  );
  useEffect(() => applyTheme(theme), [theme]);

  const { data, error, tick, interval, reloading, reload } = useRuns(autoReload);
  const [sidebarWidth, setSidebarWidth] = useSidebarWidth();
  // Installed plugins' dashboards come in at run time, next to the built-in ones (./webDashboards.tsx).
  const web = useWebDashboards(builtIn, !!data && !error);
  const dashboards = useMemo(
    () => (web.dashboards.length ? sortDashboards([...builtIn, ...web.dashboards]) : builtIn),
    [builtIn, web.dashboards],
  );
  const selection = validSelection(rawSelection);

  const allRuns: RunInfo[] = useMemo(() => {
    const runs = [...(data?.runs ?? [])].sort((a, b) => compareRuns(a.run, b.run));
    if (!coloursSeeded && runs.length) {
      // A shared link's colours (or the last visit's) first: every run as the sender saw it.
      seedColours(settings().get(COLOURS_KEY, ""));
      coloursSeeded = true;
    }
    assignColours(runs.map((r) => r.run));
    const parents = runParents(runs.map((r) => r.run));
    return runs.map((r) => ({
      run: r.run,
      colour: colourFor(r.run),
      tags: r.tags ?? {},
      last_step: r.last_step ?? null,
      last_wall_time: r.last_wall_time ?? null,
      annotations: r.annotations,
      parent: parents.get(r.run) ?? null,
      hparams_trial: r.hparams_trial ?? null,
      attached_to: r.attached_to ?? null,
      status: r.status ?? null,
    }));
  }, [data]);
  const names = useMemo(() => allRuns.map((r) => r.run), [allRuns]);
  useEffect(() => {
    if (allRuns.length) settings().set(COLOURS_KEY, encodeColours());
  }, [allRuns]);

  // Never an empty view on first load: if the remembered selection matches none of the runs, show them all.
  const firstData = useRef(true);
  useEffect(() => {
    if (!data || allRuns.length === 0 || !firstData.current) return;
    firstData.current = false;
    const lookup = selectionLookup(selection);
    if (!allRuns.some((r) => isSelected(selection, r.run, lookup))) setSelection(ALL);
  }, [data, allRuns]);

  // The run filter is a regex over run names, or a search query (hparam:lr=0\.1, a question) that /api/search answers.
  const runSearch = useRunFilterSearch(runFilter, tick);
  const runRegex = useMemo(() => compileFilter(runSearch.active ? "" : runFilter), [runFilter, runSearch.active]);
  const debouncedTagFilter = useDebounced(tagFilter, TAG_FILTER_DELAY_MS);
  const tagRegex = useMemo(() => compileFilter(debouncedTagFilter), [debouncedTagFilter]);
  const tagError = useMemo(() => compileFilter(tagFilter).error, [tagFilter]);

  const shownRuns = useMemo(
    () =>
      runSearch.runs
        ? allRuns.filter((r) => runSearch.runs!.has(r.run))
        : filterByName(allRuns, runRegex.regex, (r) => r.run),
    [allRuns, runRegex, runSearch.runs],
  );
  const lookup = useMemo(() => selectionLookup(selection), [rawSelection]);
  const selectedCount = useMemo(() => allRuns.filter((r) => isSelected(selection, r.run, lookup)).length, [allRuns, lookup]);
  const selectedRuns = useMemo(
    () => shownRuns.filter((r) => isSelected(selection, r.run, lookup)),
    [shownRuns, lookup],
  );

  // Tabs describe the log directory, not the selection: filtering runs never takes a tab away (or reflows the bar).
  const visible = useMemo(() => dashboards.filter((d) => safeHasData(d, allRuns)), [dashboards, allRuns]);
  const withData = useMemo(
    () => new Set(visible.filter((d) => safeHasData(d, selectedRuns)).map((d) => d.name)),
    [visible, selectedRuns],
  );
  // A tab in the URL that may be an installed plugin's: wait for those to load rather than open another one.
  const waiting = web.loading && tab !== "" && !dashboards.some((d) => d.name === tab);
  const active = waiting
    ? null
    : (visible.find((d) => d.name === tab) ?? visible.find((d) => withData.has(d.name)) ?? visible[0] ?? null);

  useEffect(() => {
    document.title = active ? `${active.title} · ridgeline` : "ridgeline";
  }, [active]);

  const toggleTheme = () => {
    const next = theme === "dark" ? "light" : "dark";
    setThemeSetting(next === system ? "auto" : next);
  };

  let content;
  if (!data) {
    content = error ? null : (
      <p class="loading muted" aria-busy="true">
        Loading runs…
      </p>
    );
  } else if (allRuns.length === 0) {
    content = <EmptyState logdir={data.logdir} />;
  } else if (dashboards.length === 0) {
    content = (
      <p class="notice muted">This build of the UI has no dashboards: rebuild it with <code>make build-web</code>.</p>
    );
  } else if (selectedRuns.length === 0) {
    content = (
      <p class="notice muted">
        No run selected{runRegex.regex || runSearch.runs ? " among the runs the filter shows" : ""}: tick some in the run list, or press
        “Select all”.
      </p>
    );
  } else if (waiting) {
    content = (
      <p class="loading muted" aria-busy="true">
        Loading dashboards…
      </p>
    );
  } else if (!active) {
    const kinds = [...new Set(selectedRuns.flatMap((r) => Object.keys(r.tags).filter((k) => r.tags[k]!.length > 0)))];
    content = (
      <p class="notice muted">
        No dashboard has data for the selected runs{kinds.length ? ` (they hold: ${kinds.join(", ")})` : ""}.
      </p>
    );
  } else if (!withData.has(active.name)) {
    const holders = allRuns.filter((r) => safeHasData(active, [r])).length;
    content = (
      <p class="notice muted" data-testid="tab-empty">
        None of the selected runs has data for {active.title}: {holders} of the log directory's runs{" "}
        {holders === 1 ? "does" : "do"}. Tick {holders === 1 ? "it" : "them"} in the run list, or clear the run filter.
      </p>
    );
  } else {
    const Component = active.component;
    content = (
      <ErrorBoundary name={active.title} key={active.name}>
        <Component runs={selectedRuns} allRuns={allRuns} tagFilter={tagRegex.regex} tick={tick} theme={theme} />
      </ErrorBoundary>
    );
  }

  const hasRuns = !!data && allRuns.length > 0;
  return (
    <div class={hasRuns ? "layout" : "layout layout-nosidebar"} style={{ "--sidebar-width": `${sidebarWidth}px` }}>
      <TopBar
        dashboards={visible}
        withData={withData}
        active={active?.name ?? null}
        onSelect={(name) => navigate({ tab: name })}
        logdir={data?.logdir}
        reloading={reloading}
        onReload={reload}
        autoReload={autoReload}
        interval={interval}
        onAutoReload={setAutoReload}
        theme={theme}
        onToggleTheme={toggleTheme}
        search={hasRuns && <SearchBox allRuns={allRuns} dashboards={dashboards.map((d) => d.name)} />}
        notice={
          <>
            {loadingNotice(data) && (
              <span class="retention-notice" data-testid="loading" role="status">
                {loadingNotice(data)}
              </span>
            )}
            <RetentionNotice tick={tick} />
          </>
        }
      />
      {error && (
        <div class="banner banner-error" role="alert" data-testid="server-error">
          {error.unreachable ? (
            <>
              Cannot reach the ridgeline server. Is <code>ridgeline serve</code> still running? Retrying every{" "}
              {interval} s…
            </>
          ) : (
            `The server answered with an error: ${error.message}`
          )}
        </div>
      )}
      {hasRuns && (
        <RunSelector
          allRuns={allRuns}
          shownRuns={shownRuns}
          isSelected={(run) => isSelected(selection, run, lookup)}
          selectedCount={selectedCount}
          filter={runFilter}
          filterError={runSearch.active ? (runSearch.state.failure?.message ?? null) : runRegex.error}
          filterNote={runSearch.active && <QueryNote state={runSearch.state} onEdit={setRunFilter} />}
          filterErrorPrefix={runSearch.active ? "Search: " : undefined}
          onFilter={setRunFilter}
          width={sidebarWidth}
          onResize={setSidebarWidth}
          onToggle={(run, on) => setSelection(setRuns(selection, names, [run, ...descendants(run, names)], on))}
          onSetShown={(on) => setSelection(setRuns(selection, names, shownRuns.map((r) => r.run), on))}
        />
      )}
      <main id="main" class="main" tabIndex={-1} data-tick={tick}>
        {hasRuns && (
          <div class="toolbar">
            <FilterInput
              label="Filter tags (regex)"
              testId="tag-filter"
              value={tagFilter}
              error={tagError}
              placeholder="e.g. ^train_.*"
              onInput={setTagFilter}
            />
          </div>
        )}
        {content}
      </main>
    </div>
  );
}

/** A dashboard's hasData, with a throwing one counted as "no data" rather than breaking the shell. */
function safeHasData(dashboard: Dashboard, runs: RunInfo[]): boolean {
  try {
    return runs.length > 0 && dashboard.hasData(runs);
  } catch (err) {
    console.warn(`dashboard ${dashboard.name}: hasData failed`, err);
    return false;
  }
}
