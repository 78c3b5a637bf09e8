/**
 * The trials table: a sticky run column and header, every column reachable by scrolling sideways, a click on
 * a header sorts by it, the row under the header filters (min/max for numbers, checkboxes for strings,
 * booleans and mixed types), and the Columns menu hides or shows columns.
 */
import { downloadText } from "@charts/export";
import { TABLE_FORMATS } from "./download";
import { MiddleEllipsis } from "@app/MiddleEllipsis";
import { memo } from "preact/compat";
import { useMemo } from "preact/hooks";
import {
  cellValue,
  distinctValues,
  filterKind,
  formatCell,
  type Column,
  type Filter,
  type Filters,
  type SortDir,
  type Trial,
} from "./model";
import { ScalarsLink, type ViewProps } from "./shared";

interface Props extends ViewProps {
  allTrials: Trial[];
  allColumns: Column[];
  hidden: Set<string>;
  onHidden(ids: string[]): void;
  filters: Filters;
  onFilter(id: string, f: Filter | null): void;
  sortCol: string;
  sortDir: SortDir;
  onSort(id: string, dir: SortDir): void;
  onScalars(trial: Trial): void;
}

export function TrialTable(p: Props) {
  /** A header click: ascending, then descending, then back to run order (the run column just flips). */
  const sortBy = (id: string) => {
    if (p.sortCol !== id) p.onSort(id, "asc");
    else if (p.sortDir === "asc") p.onSort(id, "desc");
    else p.onSort("", "asc");
  };
  const arrow = (id: string) => (p.sortCol === id ? (p.sortDir === "asc" ? " ▲" : " ▼") : "");
  const ariaSort = (id: string) => (p.sortCol === id ? (p.sortDir === "asc" ? "ascending" : "descending") : "none");

  return (
    <>
      <header class="hp-card-head">
        <h3>Trials</h3>
        <ColumnsMenu columns={p.allColumns} hidden={p.hidden} onHidden={p.onHidden} />
        <span class="hp-downloads" aria-label="Download the table as shown">
          {TABLE_FORMATS.map(({ format, label, mime, write }) => (
            <button
              type="button"
              key={format}
              data-testid={`hparams-download-${format}`}
              title={`Download the table as shown (${label})`}
              onClick={() => downloadText(write(p.trials, p.columns), `hparams.${format}`, mime)}
            >
              {label}
            </button>
          ))}
        </span>
      </header>
      <div class="hp-table-wrap" data-testid="hparams-table-wrap" tabIndex={0}>
        <table class="hp-table" data-testid="hparams-table">
          <thead>
            <tr>
              <th class="hp-run-col" scope="col" aria-sort={ariaSort("")}>
                <button type="button" class="hp-sort" data-col="run" onClick={() => sortBy("")}>
                  Run{arrow("")}
                </button>
              </th>
              {p.columns.map((c) => (
                <th
                  key={c.id}
                  scope="col"
                  data-col={c.id}
                  class={c.kind === "metric" ? "hp-metric" : undefined}
                  aria-sort={ariaSort(c.id)}
                  title={c.description || c.label}
                >
                  <button type="button" class="hp-sort" data-col={c.id} onClick={() => sortBy(c.id)}>
                    {c.label}
                    {arrow(c.id)}
                    {c.type === "mixed" ? (
                      <span class="hp-mixed" title="trials disagree on the type of this hyperparameter">
                        {" "}
                        (mixed)
                      </span>
                    ) : null}
                  </button>
                </th>
              ))}
            </tr>
            <tr class="hp-filter-row">
              <th class="hp-run-col" />
              {p.columns.map((c) => (
                <th key={c.id} data-col={c.id}>
                  <FilterControl
                    col={c}
                    trials={p.allTrials}
                    filter={p.filters[c.id]}
                    onFilter={(f) => p.onFilter(c.id, f)}
                  />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.trials.map((t) => (
              <Row
                key={t.run}
                trial={t}
                columns={p.columns}
                colour={p.colours.get(t.run)}
                selected={t.run === p.selected}
                onSelect={p.onSelect}
                onScalars={p.onScalars}
              />
            ))}
          </tbody>
        </table>
        {p.trials.length === 0 && <p class="rl-empty">No trial passes the filters.</p>}
      </div>
    </>
  );
}

interface RowProps {
  trial: Trial;
  columns: Column[];
  colour: string | undefined;
  selected: boolean;
  onSelect(run: string): void;
  onScalars(trial: Trial): void;
}

/** One trial's row; memoised, so selecting a trial re-renders two rows, not all of them. */
const Row = memo(function Row({ trial: t, columns, colour, selected, onSelect, onScalars }: RowProps) {
  return (
    <tr
      data-run={t.run}
      aria-selected={selected ? "true" : "false"}
      class={selected ? "hp-selected" : undefined}
      tabIndex={0}
      onClick={() => onSelect(t.run)}
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget || (e.key !== "Enter" && e.key !== " ")) return;
        e.preventDefault();
        onSelect(t.run);
      }}
    >
      <th scope="row" class="hp-run-col">
        <span class="hp-swatch" style={{ background: colour }} />
        <MiddleEllipsis class="hp-run-name" text={t.run} />
        {t.status && t.status !== "success" && t.status !== "unknown" ? (
          <span class={`hp-status hp-status-${t.status}`}>{t.status}</span>
        ) : null}
        <ScalarsLink trial={t} onOpen={onScalars} />
      </th>
      {columns.map((c) => {
        const v = cellValue(t, c);
        const m = c.kind === "metric" ? t.metrics[c.name] : null;
        const step = m ? (c.which === "best" ? m.best_step : m.final_step) : null;
        const kind = typeof v === "number" ? "hp-num" : typeof v === "string" && c.type === "mixed" ? "hp-str" : undefined;
        return (
          <td key={c.id} data-col={c.id} class={kind} title={step === null || step === undefined ? undefined : `step ${step}`}>
            {formatCell(v, c)}
          </td>
        );
      })}
    </tr>
  );
});

interface ColumnsMenuProps {
  columns: Column[];
  hidden: Set<string>;
  onHidden(ids: string[]): void;
}

function ColumnsMenu({ columns, hidden, onHidden }: ColumnsMenuProps) {
  const shownCount = columns.length - columns.filter((c) => hidden.has(c.id)).length;
  const toggle = (id: string, on: boolean) => {
    const next = new Set(hidden);
    if (on) next.delete(id);
    else next.add(id);
    onHidden(columns.filter((c) => next.has(c.id)).map((c) => c.id));
  };
  return (
    <details class="hp-menu" data-testid="hparams-columns">
      <summary>
        Columns ({shownCount} of {columns.length})
      </summary>
      <div class="hp-menu-body">
        <div class="hp-menu-actions">
          <button type="button" onClick={() => onHidden([])}>
            Show all
          </button>
          <button type="button" onClick={() => onHidden(columns.filter((c) => c.kind === "metric").map((c) => c.id))}>
            Hide metrics
          </button>
        </div>
        {columns.map((c) => (
          <label key={c.id} class="hp-check">
            <input
              type="checkbox"
              data-col={c.id}
              checked={!hidden.has(c.id)}
              onChange={(e) => toggle(c.id, (e.target as HTMLInputElement).checked)}
            />
            <span>{c.label}</span>
          </label>
        ))}
      </div>
    </details>
  );
}

function parseBound(s: string): number | null {
  if (s.trim() === "") return null;
  const n = Number(s);
  return Number.isNaN(n) ? null : n;
}

interface FilterProps {
  col: Column;
  trials: Trial[];
  filter: Filter | undefined;
  onFilter(f: Filter | null): void;
}

function FilterControl({ col, trials, filter, onFilter }: FilterProps) {
  if (filterKind(col) === "range") {
    const range = filter && !("keys" in filter) ? filter : {};
    return (
      <span class="hp-range">
        <Bound col={col} end="min" value={range.min ?? null} onValue={(v) => onFilter({ ...range, min: v })} />
        <Bound col={col} end="max" value={range.max ?? null} onValue={(v) => onFilter({ ...range, max: v })} />
      </span>
    );
  }
  return <ValuesFilter col={col} trials={trials} filter={filter} onFilter={onFilter} />;
}

/** One end of a numeric range filter; empty means open-ended. */
interface BoundProps {
  col: Column;
  end: "min" | "max";
  value: number | null;
  onValue(v: number | null): void;
}

function Bound({ col, end, value, onValue }: BoundProps) {
  return (
    <input
      type="number"
      step="any"
      placeholder={end}
      aria-label={`${col.label}: ${end === "min" ? "minimum" : "maximum"}`}
      data-testid={`hparams-filter-${end}`}
      data-col={col.id}
      value={value ?? ""}
      onChange={(e) => onValue(parseBound((e.target as HTMLInputElement).value))}
    />
  );
}

function ValuesFilter({ col, trials, filter, onFilter }: FilterProps) {
  const values = useMemo(() => distinctValues(trials, col), [trials, col]);
  const keys = filter && "keys" in filter ? new Set(filter.keys) : null;
  const checked = (k: string) => (keys ? keys.has(k) : true);
  const toggle = (k: string, on: boolean) => {
    const next = new Set(keys ?? values.map((v) => v.key));
    if (on) next.add(k);
    else next.delete(k);
    onFilter(next.size === values.length && values.every((v) => next.has(v.key)) ? null : { keys: [...next] });
  };
  const count = values.filter((v) => checked(v.key)).length;
  return (
    <details class="hp-menu hp-values" data-testid="hparams-filter-values" data-col={col.id}>
      <summary>{keys ? `${count} of ${values.length}` : `all ${values.length}`}</summary>
      <div class="hp-menu-body">
        {values.map((v) => (
          <label key={v.key} class="hp-check">
            <input
              type="checkbox"
              data-key={v.key}
              checked={checked(v.key)}
              onChange={(e) => toggle(v.key, (e.target as HTMLInputElement).checked)}
            />
            <span class={typeof v.value === "string" && col.type === "mixed" ? "hp-str" : undefined}>{v.label}</span>
            <span class="muted"> ({v.count})</span>
          </label>
        ))}
      </div>
    </details>
  );
}
