/**
 * The Runs dashboard: one row per selected run — status badge, start, duration, last step, hyperparameters, the
 * chosen metrics' last values, the notes' excerpt and tags — sortable by any column. A row opens to show its
 * notes (Markdown, sanitised as the text dashboard does) and, for a run that failed or crashed, its traceback;
 * "Logs" opens the run's console lines below the table (./LogsView.tsx). Read-only, like the whole server.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { getJson } from "@api/client";
import { useUrlState } from "@app/state";
import { renderMarkdown } from "@app/markdown";
import { StatusBadge } from "@app/StatusBadge";
import { formatWallTime } from "@charts/format";
import { excerpt, formatDuration, hparamNames, sortRows, type RunRow, type SortKey, type TableResponse } from "./model";
import { LogsView } from "./LogsView";

export function RunsDashboard({ runs, tick }: DashboardProps) {
  const [metrics, setMetrics] = useUrlState<string[]>("runs.metrics", []);
  const [sort, setSort] = useUrlState<SortKey>("runs.sort", "start");
  const [descending, setDescending] = useUrlState<boolean>("runs.desc", true);
  const [logsOf, setLogsOf] = useUrlState<string>("runs.logs", "");
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [table, setTable] = useState<TableResponse | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    getJson<TableResponse>("/api/runs/table", { metrics: metrics.join("\n") }, { signal: controller.signal }).then(
      (answer) => {
        setTable(answer);
        setError(null);
      },
      (err: unknown) => {
        if (!controller.signal.aborted) setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => controller.abort();
  }, [tick, metrics.join("\n"), runs.map((r) => `${r.run}:${r.status ?? ""}`).join("\n")]);

  const selected = useMemo(() => new Set(runs.map((r) => r.run)), [runs]);
  const colours = useMemo(() => new Map(runs.map((r) => [r.run, r.colour])), [runs]);
  const rows = useMemo(
    () => sortRows((table?.runs ?? []).filter((row) => selected.has(row.run)), sort, descending),
    [table, selected, sort, descending],
  );
  const hparams = useMemo(() => hparamNames(rows), [rows]);

  function sortBy(key: SortKey): void {
    if (key === sort) setDescending(!descending);
    else {
      setSort(key);
      setDescending(key !== "run");
    }
  }

  function toggle(run: string): void {
    const next = new Set(open);
    if (next.has(run)) next.delete(run);
    else next.add(run);
    setOpen(next);
  }

  const header = (key: SortKey, label: string, title?: string) => (
    <th
      scope="col"
      aria-sort={sort === key ? (descending ? "descending" : "ascending") : "none"}
      data-sort={key}
      title={title}
    >
      <button type="button" class="rl-runs-sort" onClick={() => sortBy(key)}>
        {label}
        {sort === key ? (descending ? " ▼" : " ▲") : ""}
      </button>
    </th>
  );

  if (error) return <div class="banner banner-error" role="alert">Runs table: {error}</div>;
  if (!table) return <p class="muted">Loading runs…</p>;
  return (
    <div class="rl-runs" data-testid="runs-dashboard">
      <MetricPicker tags={table.scalar_tags} chosen={metrics} onChange={setMetrics} />
      <div class="rl-runs-scroll">
        <table class="rl-runs-table" data-testid="runs-table">
          <thead>
            <tr>
              <th scope="col" aria-label="expand" />
              {header("run", "Run")}
              {header("status", "Status")}
              {header("start", "Start")}
              {header("duration", "Duration")}
              {header("step", "Last step")}
              {hparams.map((name) => header(`hp:${name}`, name, `hyperparameter ${name}`))}
              {metrics.map((tag) => header(`m:${tag}`, tag, `last value of ${tag}`))}
              <th scope="col">Notes</th>
              <th scope="col" aria-label="logs" />
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <RunRowView
                key={row.run}
                row={row}
                colour={colours.get(row.run) ?? "transparent"}
                hparams={hparams}
                metrics={metrics}
                open={open.has(row.run)}
                onToggle={() => toggle(row.run)}
                onLogs={() => setLogsOf(logsOf === row.run ? "" : row.run)}
                logsOpen={logsOf === row.run}
              />
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && <p class="muted">No selected run.</p>}
      {logsOf && <LogsView key={logsOf} run={logsOf} tick={tick} onClose={() => setLogsOf("")} />}
    </div>
  );
}

interface RowProps {
  row: RunRow;
  colour: string;
  hparams: string[];
  metrics: string[];
  open: boolean;
  logsOpen: boolean;
  onToggle(): void;
  onLogs(): void;
}

function RunRowView({ row, colour, hparams, metrics, open, logsOpen, onToggle, onLogs }: RowProps) {
  const hasMore = row.notes.some((n) => n.trim()) || !!row.traceback;
  const span = 7 + hparams.length + metrics.length;
  return (
    <>
      <tr data-run={row.run} class={`rl-runs-row rl-runs-${row.status}`}>
        <td>
          {hasMore && (
            <button type="button" class="rl-runs-expand" aria-expanded={open} aria-label={`details of ${row.run}`} onClick={onToggle}>
              {open ? "▾" : "▸"}
            </button>
          )}
        </td>
        <th scope="row" class="rl-runs-name">
          <span class="swatch" style={{ background: colour }} aria-hidden="true" /> {row.run}
          {row.tags.map((tag) => (
            <span key={tag} class="rl-runs-tag" data-tag={tag}>
              {tag}
            </span>
          ))}
        </th>
        <td data-col="status">
          <StatusBadge status={row.status} />
          {row.error && <span class="rl-runs-error" title={row.error}> {row.error}</span>}
        </td>
        <td>{row.start_time !== null ? formatWallTime(row.start_time) : ""}</td>
        <td>{formatDuration(row.duration)}</td>
        <td class="num">{row.last_step ?? ""}</td>
        {hparams.map((name) => (
          <td key={name} class="num">
            {row.hparams[name] === undefined || row.hparams[name] === null ? "" : String(row.hparams[name])}
          </td>
        ))}
        {metrics.map((tag) => (
          <td key={tag} class="num" data-metric={tag}>
            {row.metrics[tag] === null || row.metrics[tag] === undefined ? "" : formatNumber(row.metrics[tag] as number)}
          </td>
        ))}
        <td class="rl-runs-excerpt" data-testid="notes-excerpt">
          {excerpt(row.notes)}
        </td>
        <td>
          {row.has_logs && (
            <button type="button" class="rl-runs-logs-button" aria-pressed={logsOpen} onClick={onLogs}>
              Logs
            </button>
          )}
        </td>
      </tr>
      {open && hasMore && (
        <tr class="rl-runs-details" data-details={row.run}>
          <td />
          <td colSpan={span}>
            {row.notes
              .filter((note) => note.trim())
              .map((note, i) => (
                <div key={i} class="rl-markdown rl-runs-note" dangerouslySetInnerHTML={{ __html: renderMarkdown(note) }} />
              ))}
            {row.traceback && (
              <pre class="rl-runs-traceback" data-testid="traceback">
                {row.traceback}
              </pre>
            )}
          </td>
        </tr>
      )}
    </>
  );
}

function formatNumber(value: number): string {
  return Math.abs(value) >= 1e5 || (value !== 0 && Math.abs(value) < 1e-3) ? value.toExponential(3) : String(+value.toPrecision(5));
}

function MetricPicker({ tags, chosen, onChange }: { tags: string[]; chosen: string[]; onChange(tags: string[]): void }) {
  const available = tags.filter((tag) => !chosen.includes(tag));
  return (
    <div class="rl-runs-metrics" data-testid="metric-picker">
      <span class="muted">Metric columns:</span>
      {chosen.map((tag) => (
        <span key={tag} class="rl-runs-chip">
          {tag}
          <button type="button" aria-label={`remove ${tag}`} onClick={() => onChange(chosen.filter((t) => t !== tag))}>
            ×
          </button>
        </span>
      ))}
      {available.length > 0 && (
        <select
          aria-label="add a metric column"
          value=""
          onChange={(e) => {
            const tag = (e.currentTarget as HTMLSelectElement).value;
            if (tag) onChange([...chosen, tag]);
          }}
        >
          <option value="">add a scalar tag…</option>
          {available.map((tag) => (
            <option key={tag} value={tag}>
              {tag}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}
