/**
 * The insights dashboard: the alerts of the selected runs (live, sortable, filterable by kind, each linking
 * to its spot on the scalars dashboard, optionally as desktop notifications) and each run's diagnosis in
 * plain words with a button that opens the charts showing it, a link to each spot its evidence comes from, and
 * for the runs with nothing to report, what was checked.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useState } from "preact/hooks";
import { ALL } from "@app/selection";
import { navigate, useUrlState } from "@app/state";
import type { DashboardProps } from "@app/types";
import { formatNumber, formatStep } from "@charts/format";
import { registry } from "@charts/registry";
import { StragglersPanel } from "./stragglers";
import { fetchDiagnosis, notificationsOn, notificationsSupported, setNotifications, useAlerts } from "./data";
import {
  ALERT_KINDS,
  checkedWithoutFindings,
  countKinds,
  evidenceText,
  exactPattern,
  filterAlerts,
  EVIDENCE_SETTINGS,
  expectedRange,
  FOCUS_KEY,
  focusOf,
  formatAlertValue,
  formatRange,
  groupFindings,
  scalarsLink,
  sortAlerts,
  spotLink,
  spotText,
  type Alert,
  type AlertSortKey,
  type Checked,
  type Finding,
  type Spot,
} from "./model";

/** Rows drawn at most (the rest are counted): a run with a NaN storm can raise thousands. */
const MAX_ROWS = 500;
const KIND_LABELS: Record<string, string> = { outlier: "outlier", nan: "NaN", inf: "Inf", spike: "spike", stalled: "stalled" };
const fmt = (x: number) => formatNumber(x);

type Open = (runs: string[], tags: string[], step: number | null, tab?: string) => void;

/** Opens the scalars (or another) dashboard on runs/tags (and a step), in place: the shell's own URL settings. */
function useOpenScalars(): Open {
  return useCallback((runs, tags, step, tab = "scalars") => {
    // A drill-down: its own history entry (Back returns here), its filters not remembered for the next visit.
    navigate(
      {
        runFilter: exactPattern(runs),
        runs: ALL,
        tagFilter: tags.length ? exactPattern(tags) : "",
        [FOCUS_KEY]: step != null && tags.length && tab === "scalars" ? focusOf(tags, step) : [],
        ...(tab === "scalars" ? EVIDENCE_SETTINGS : {}),
        tab,
      },
      { persist: false },
    );
    window.scrollTo(0, 0);
  }, []);
}

/** A real link (opens in a new tab too) that a plain click follows in place. */
function SpotLink(props: { href: string; onOpen(): void; label: string; testId: string; children: preact.ComponentChildren }) {
  return (
    <a
      href={props.href}
      data-testid={props.testId}
      aria-label={props.label}
      title={props.label}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        props.onOpen();
      }}
    >
      {props.children}
    </a>
  );
}

export function InsightsDashboard({ runs, tagFilter, tick }: DashboardProps) {
  const stream = useAlerts(tick);
  const open = useOpenScalars();
  const [findings, setFindings] = useState<Finding[] | null>(null);
  const [checked, setChecked] = useState<Checked[]>([]);
  const [diagError, setDiagError] = useState<string | null>(null);

  // The diagnosis is asked again when the runs changed (a tick), never more than once per tick.
  useEffect(() => {
    let live = true;
    fetchDiagnosis(tick).then(
      (answer) => {
        if (!live) return;
        setFindings(answer.findings);
        setChecked(answer.checked);
        setDiagError(null);
      },
      (err: unknown) => {
        if (!live) return;
        setDiagError(err instanceof Error ? err.message : String(err));
        setFindings((f) => f ?? []);
      },
    );
    return () => {
      live = false;
    };
  }, [tick]);

  const colours = useMemo(() => new Map(runs.map((r) => [r.run, r.colour])), [runs]);

  // For tests and the UI benchmark: the page is ready once the alerts and the diagnosis answered.
  const ready = stream.loaded && findings !== null;
  useLayoutEffect(() => {
    registry.add("insights:panels");
    registry.setVisible("insights:panels", true);
    return () => registry.remove("insights:panels");
  }, []);
  useLayoutEffect(() => registry.setReady("insights:panels", ready), [ready]);

  return (
    <div class="rl-insights">
      <AlertsPanel
        alerts={stream.alerts}
        error={stream.error}
        loaded={stream.loaded}
        runs={runs.map((r) => r.run)}
        colours={colours}
        tagFilter={tagFilter}
        open={open}
      />
      <StragglersPanel tick={tick} runs={runs.map((r) => r.run)} />
      <FindingsPanel findings={findings} checked={checked} error={diagError} runs={runs.map((r) => r.run)} open={open} />
    </div>
  );
}

function AlertsPanel(props: {
  alerts: Alert[];
  error: string | null;
  loaded: boolean;
  runs: string[];
  colours: Map<string, string>;
  tagFilter: RegExp | null;
  open: Open;
}) {
  const [sortKey, setSortKey] = useUrlState<string>("i.sort", "step");
  const [sortDir, setSortDir] = useUrlState<string>("i.dir", "desc");
  const [kinds, setKinds] = useUrlState<string[]>("i.kinds", []);
  const [notify, setNotify] = useState(notificationsOn);
  const runSet = useMemo(() => new Set(props.runs), [props.runs.join("\u0000")]);
  const shown = useMemo(() => filterAlerts(props.alerts, runSet, props.tagFilter, []), [props.alerts, runSet, props.tagFilter]);
  const counts = useMemo(() => countKinds(shown), [shown]);
  const kindList = Array.isArray(kinds) ? kinds : [];
  const key = (["run", "tag", "step", "kind", "value"].includes(sortKey) ? sortKey : "step") as AlertSortKey;
  const rows = useMemo(
    () => sortAlerts(filterAlerts(shown, runSet, null, kindList), key, sortDir === "desc"),
    [shown, kindList.join(","), key, sortDir],
  );
  const toggleKind = (k: string) => setKinds(kindList.includes(k) ? kindList.filter((x) => x !== k) : [...kindList, k]);
  const sortBy = (k: AlertSortKey) => {
    if (k === key) setSortDir(sortDir === "desc" ? "asc" : "desc");
    else {
      setSortKey(k);
      setSortDir(k === "step" || k === "value" ? "desc" : "asc");
    }
  };
  const header = (k: AlertSortKey, label: string) => (
    <th aria-sort={k === key ? (sortDir === "desc" ? "descending" : "ascending") : "none"} class={k === "step" || k === "value" ? "num" : undefined}>
      <button type="button" class="rl-sort" data-testid={`alerts-sort-${k}`} onClick={() => sortBy(k)}>
        {label}
        {k === key ? (sortDir === "desc" ? " ▼" : " ▲") : ""}
      </button>
    </th>
  );

  return (
    <section class="rl-insights-panel" data-testid="alerts-panel" aria-label="Alerts" data-count={String(rows.length)}>
      <header class="rl-insights-head">
        <h2>Alerts</h2>
        <span class="rl-muted">
          {shown.length} alert{shown.length === 1 ? "" : "s"} in the selected runs{props.tagFilter ? " (tag filter applied)" : ""}
        </span>
        <span class="rl-insights-kinds" role="group" aria-label="Show kinds">
          {ALERT_KINDS.map((k) => (
            <button
              type="button"
              class={`rl-kind rl-kind-${k}`}
              data-testid="alert-kind-filter"
              data-kind={k}
              aria-pressed={kindList.includes(k)}
              title={kindList.includes(k) ? `Stop filtering on ${KIND_LABELS[k]}` : `Show only ${KIND_LABELS[k]} alerts (with other chosen kinds)`}
              onClick={() => toggleKind(k)}
            >
              {KIND_LABELS[k]} <span class="rl-count">{counts[k]}</span>
            </button>
          ))}
        </span>
        {notificationsSupported() && (
          <label class="rl-field rl-check" title="A desktop notification for each new alert while this page is open (the browser asks for permission first)">
            <input
              type="checkbox"
              data-testid="alerts-notify"
              checked={notify}
              onChange={(e) => {
                const want = (e.target as HTMLInputElement).checked;
                void setNotifications(want).then(setNotify);
              }}
            />
            <span>Desktop notifications</span>
          </label>
        )}
      </header>
      {props.error && (
        <p role="alert" class="rl-error">
          Could not load the alerts: {props.error}
        </p>
      )}
      {!props.loaded && <p class="rl-muted">Loading alerts…</p>}
      {props.loaded && !props.error && rows.length === 0 && (
        <p class="rl-muted" data-testid="alerts-empty">
          {shown.length ? "No alert of the chosen kinds." : "No alerts: every watched curve stayed within its expected range."}
        </p>
      )}
      {rows.length > 0 && (
        <div class="rl-insights-table-wrap">
          <table class="rl-insights-table">
            <thead>
              <tr>
                {header("run", "Run")}
                {header("tag", "Tag")}
                {header("step", "Step")}
                {header("kind", "Kind")}
                {header("value", "Value")}
                <th class="num">Expected</th>
                <th>
                  <span class="rl-sr">Link</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, MAX_ROWS).map((a) => (
                <tr key={`${a.run}\u0000${a.tag}\u0000${a.step}\u0000${a.kind}`} data-testid="alert-row" data-kind={a.kind} data-run={a.run} data-tag={a.tag} data-step={String(a.step)}>
                  <td>
                    <span class="rl-swatch" style={{ background: props.colours.get(a.run) }} />
                    {a.run}
                  </td>
                  <td>{a.tag}</td>
                  <td class="num">{formatStep(a.step)}</td>
                  <td>
                    <span class={`rl-kind rl-kind-${a.kind}`}>{KIND_LABELS[a.kind] ?? a.kind}</span>
                  </td>
                  <td class="num">{formatAlertValue(a, fmt)}</td>
                  <td class="num">{formatRange(...expectedRange(a), fmt) || "—"}</td>
                  <td>
                    <SpotLink
                      href={scalarsLink(location.search, [a.run], [a.tag], a.step)}
                      onOpen={() => props.open([a.run], [a.tag], a.step)}
                      label={`Show ${a.tag} of ${a.run} at step ${a.step}`}
                      testId="alert-link"
                    >
                      show ↗
                    </SpotLink>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length > MAX_ROWS && <p class="rl-muted">…and {rows.length - MAX_ROWS} more: filter by kind or by tag to see them.</p>}
        </div>
      )}
    </section>
  );
}

function SpotList(props: { spots: Spot[]; open: Open }) {
  if (!props.spots.length) return null;
  return (
    <ul class="rl-finding-spots" data-testid="insight-spots" aria-label="Where the evidence is">
      {props.spots.map((spot, i) => (
        <li key={`${spot.tag}:${spot.step}:${i}`}>
          <SpotLink
            href={spotLink(location.search, spot)}
            onOpen={() => props.open([spot.run], [spot.tag], spot.step, spot.chart === "histograms" ? "histograms" : "scalars")}
            label={`Show ${spot.tag} of ${spot.run} at step ${formatStep(spot.step)}`}
            testId="spot-link"
          >
            {spotText(spot, formatStep)} ↗
          </SpotLink>
        </li>
      ))}
    </ul>
  );
}

function FindingsPanel(props: { findings: Finding[] | null; checked: Checked[]; error: string | null; runs: string[]; open: Open }) {
  const runSet = new Set(props.runs);
  const grouped = groupFindings((props.findings ?? []).filter((f) => runSet.has(f.run)), props.runs);
  const healthy = props.findings && !props.error ? props.runs.filter((r) => !grouped.some(([run]) => run === r)) : [];
  const looked = props.findings && !props.error ? checkedWithoutFindings(props.checked, props.findings, healthy) : [];
  return (
    <section class="rl-insights-panel" data-testid="insights-panel" aria-label="Diagnosis">
      <header class="rl-insights-head">
        <h2>Diagnosis</h2>
        <span class="rl-muted">what the curves of each selected run suggest</span>
      </header>
      {props.error && (
        <p role="alert" class="rl-error">
          Could not load the diagnosis: {props.error}
        </p>
      )}
      {!props.findings && <p class="rl-muted">Reading the runs…</p>}
      {grouped.map(([run, list]) => (
        <div class="rl-insights-run" key={run} data-testid="insight-run" data-run={run}>
          <h3>{run}</h3>
          <ul>
            {list.map((f, i) => (
              <li key={`${f.kind}:${i}`} class="rl-finding" data-testid="insight-finding" data-kind={f.kind} data-run={f.run}>
                <div class="rl-finding-head">
                  <span class={`rl-kind rl-finding-kind`}>{f.kind.replace(/_/g, " ")}</span>
                  <span class="rl-confidence" title="How sure the diagnosis is" data-testid="insight-confidence">
                    {Math.round(Math.max(0, Math.min(1, f.confidence)) * 100)}% confidence
                  </span>
                  {f.step != null && <span class="rl-muted">from step {formatStep(f.step)}</span>}
                  {f.tags.length > 0 && (
                    <SpotLink
                      href={scalarsLink(location.search, [f.run], f.tags, f.step)}
                      onOpen={() => props.open([f.run], f.tags, f.step)}
                      label={`Show the charts of ${f.tags.join(", ")} for ${f.run}`}
                      testId="show-charts"
                    >
                      show charts ↗
                    </SpotLink>
                  )}
                </div>
                <p class="rl-finding-message">{f.message}</p>
                {Object.keys(f.evidence ?? {}).length > 0 && (
                  <p class="rl-finding-evidence rl-muted">
                    {f.tags.length > 0 && <>tags: {f.tags.join(", ")} · </>}
                    {evidenceText(f.evidence, fmt).join(" · ")}
                  </p>
                )}
                <SpotList spots={f.spots ?? []} open={props.open} />
              </li>
            ))}
          </ul>
        </div>
      ))}
      {healthy.length > 0 && (
        <p class="rl-muted" data-testid="insight-healthy">
          Nothing to report for {healthy.length === props.runs.length ? "any selected run" : healthy.join(", ")}.
        </p>
      )}
      {looked.map(({ run, checked }) => (
        <details class="rl-insights-checked" key={run} data-testid="insight-checked" data-run={run}>
          <summary>What was checked for {run}</summary>
          <ul>
            {checked.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  );
}
