/**
 * The hparams dashboard's data model, free of the DOM: the table's columns (one per hyperparameter, two per
 * metric: final and best, or one where they agree for every trial), cell values, their text as written ("32", not "32.000"; true/false), a total
 * order that sorts mixed-type columns without throwing, value-range and checkbox filters, and the scales the
 * parallel coordinates and scatter plots share.
 */

export type Cell = number | string | boolean | null;
export type ColumnType = "number" | "string" | "bool" | "mixed" | "none";

export interface HParamColumnInfo {
  name: string;
  display_name: string;
  description: string;
  type: ColumnType;
  declared_type: string | null;
  domain: { values: Cell[] } | { min: number; max: number } | null;
}

export interface MetricInfo {
  id: string;
  group: string;
  tag: string;
  display_name: string;
  description: string;
  dataset_type: string | null;
  goal: "min" | "max";
}

export interface MetricValue {
  final: number | string | null;
  final_step: number;
  best: number | null;
  best_step: number | null;
  points: number;
}

export interface Trial {
  /** The run the trial belongs to: a torch add_hparams trial's is the run it was written from. */
  run: string;
  /** The run its hparams record was read from (a torch trial's timestamped sub-run; else `run`). */
  trial?: string;
  hparams: Record<string, Cell | undefined>;
  metrics: Record<string, MetricValue | null | undefined>;
  status: string | null;
  start_time: number | null;
  end_time: number | null;
  group_name: string;
  related_runs: string[];
}

export interface Table {
  hparams: HParamColumnInfo[];
  metrics: MetricInfo[];
  metrics_source: "experiment" | "shared_tags";
  experiments: string[];
  trials: Trial[];
  /** hparams records that could not be read (their trials are missing). */
  problems?: { path: string; offset: number | null; reason: string }[];
}

export interface Column {
  /** "h:<name>" for a hyperparameter, "m:<metric id>:final" / "m:<metric id>:best" for a metric. */
  id: string;
  kind: "hparam" | "metric";
  label: string;
  description: string;
  type: ColumnType;
  name: string;
  which?: "final" | "best";
  goal?: "min" | "max";
  /** The hyperparameter's declared domain (axes span it, so a sweep's unexplored values show as space). */
  domain?: HParamColumnInfo["domain"];
}

/** Whether a metric's best value is its final one for every trial (always so for add_hparams's single values). */
export function bestIsFinal(table: Table, metric: string): boolean {
  return table.trials.every((t) => {
    const m = t.metrics[metric];
    if (!m || m.points <= 1) return true;
    const [final, best] = [toNumber(m.final), toNumber(m.best)];
    return final === best || (final !== null && best !== null && Number.isNaN(final) && Number.isNaN(best));
  });
}

/**
 * Every column of the table, hyperparameters first (in the server's order), then final and best per metric; a
 * metric whose best is its final value for every trial (a single value per run, as torch's add_hparams writes)
 * has one column, its final one, named after the metric alone.
 */
export function columnsOf(table: Table): Column[] {
  const cols: Column[] = table.hparams.map((h) => ({
    id: `h:${h.name}`,
    kind: "hparam",
    label: h.display_name || h.name,
    description: h.description,
    type: h.type,
    name: h.name,
    domain: h.domain,
  }));
  for (const m of table.metrics) {
    const name = m.display_name || m.id;
    const single = bestIsFinal(table, m.id);
    for (const which of single ? (["final"] as const) : (["final", "best"] as const)) {
      cols.push({
        id: `m:${m.id}:${which}`,
        kind: "metric",
        label: single ? name : `${name} (${which === "final" ? "final" : m.goal === "min" ? "best ↓" : "best ↑"})`,
        description: m.description,
        type: "number",
        name: m.id,
        which,
        goal: m.goal,
      });
    }
  }
  return cols;
}

/** The metric columns shown by default: all when there are few; else those under "hparam/" (torch's
 * convention for the metrics of add_hparams), else the first four metrics' final values. */
export function defaultHidden(cols: Column[]): string[] {
  const metrics = cols.filter((c) => c.kind === "metric");
  if (metrics.length <= 8) return [];
  const hparamLike = metrics.filter((c) => /^hparams?[/_]/i.test(c.name));
  const shown = new Set(
    (hparamLike.length ? hparamLike : metrics.filter((c) => c.which === "final").slice(0, 4)).map((c) => c.id),
  );
  return metrics.filter((c) => !shown.has(c.id)).map((c) => c.id);
}

/** A metric value from JSON as a number: "NaN" / "Infinity" / "-Infinity" (non-finite) parse back. */
export function toNumber(v: number | string | null | undefined): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return v;
  const n = Number(v);
  return Number.isNaN(n) && v !== "NaN" ? null : n;
}

/** The cell of one trial in one column (null when the trial lacks it). */
export function cellValue(trial: Trial, col: Column): Cell {
  if (col.kind === "hparam") {
    const v = trial.hparams[col.name];
    return v === undefined ? null : v;
  }
  const m = trial.metrics[col.name];
  if (!m) return null;
  return col.which === "best" ? toNumber(m.best) : toNumber(m.final);
}

/** A number as written: the shortest text that reads back the same double ("32", "0.001", "1e-7"). */
export function formatExact(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  return String(x);
}

/** A metric: scalars are mostly float32, so 7 significant digits is what was written (0.6, not 0.6000000238). */
export function formatMetric(x: number): string {
  if (!Number.isFinite(x)) return formatExact(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e7 || a < 1e-5) return x.toExponential(6).replace(/\.?0+e/, "e").replace("e+", "e");
  return String(Number(x.toPrecision(7)));
}

/** The text of a cell. */
export function formatCell(v: Cell, col: Pick<Column, "kind">): string {
  if (v === null) return "–";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return col.kind === "metric" ? formatMetric(v) : formatExact(v);
  return v;
}

/** A key per distinct value that keeps the type: the number 32 and the string "32" are different values. */
export function valueKey(v: Cell): string {
  if (v === null) return "null";
  if (typeof v === "number") return `n:${v}`;
  if (typeof v === "boolean") return `b:${v}`;
  return `s:${v}`;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

function typeRank(v: Cell): number {
  if (typeof v === "number") return Number.isNaN(v) ? 1 : 0;
  if (typeof v === "boolean") return 2;
  if (typeof v === "string") return 3;
  return 4;
}

/** A total order on cells of any types: numbers (NaN after them), then booleans, then strings, then missing. */
export function compareCells(a: Cell, b: Cell): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return (a as number) - (b as number) || 0;
  if (ra === 2) return Number(a) - Number(b);
  if (ra === 3) return collator.compare(a as string, b as string);
  return 0;
}

export type SortDir = "asc" | "desc";

/** The trials sorted by a column; missing values stay last in both directions, ties keep run-name order. */
export function sortTrials(trials: Trial[], col: Column | null, dir: SortDir): Trial[] {
  const byRun = [...trials].sort((a, b) => collator.compare(a.run, b.run));
  if (!col) return dir === "desc" ? byRun.reverse() : byRun;
  const keyed = byRun.map((t, i) => ({ t, i, v: cellValue(t, col) }));
  keyed.sort((x, y) => {
    const missX = x.v === null;
    const missY = y.v === null;
    if (missX !== missY) return missX ? 1 : -1;
    const c = compareCells(x.v, y.v);
    return (dir === "desc" ? -c : c) || x.i - y.i;
  });
  return keyed.map((k) => k.t);
}

/** A filter on one column: a numeric range (either end optional) or the set of value keys kept. */
export type Filter = { min?: number | null; max?: number | null } | { keys: string[] };

export type Filters = Record<string, Filter>;

/** Whether a column filters by range (numbers only) or by checkboxes (strings, booleans, mixed types). */
export function filterKind(col: Column): "range" | "values" {
  return col.type === "number" || col.type === "none" ? "range" : "values";
}

export function passes(trial: Trial, cols: Column[], filters: Filters): boolean {
  for (const col of cols) {
    const f = filters[col.id];
    if (!f) continue;
    const v = cellValue(trial, col);
    if ("keys" in f) {
      if (!f.keys.includes(valueKey(v))) return false;
    } else {
      const lo = f.min ?? null;
      const hi = f.max ?? null;
      if (lo === null && hi === null) continue;
      if (typeof v !== "number" || Number.isNaN(v)) return false;
      if (lo !== null && v < lo) return false;
      if (hi !== null && v > hi) return false;
    }
  }
  return true;
}

/** Whether a filter restricts anything (an empty range does not). */
export function isActive(f: Filter | undefined): boolean {
  if (!f) return false;
  if ("keys" in f) return true;
  return (f.min ?? null) !== null || (f.max ?? null) !== null;
}

export interface Distinct {
  key: string;
  value: Cell;
  label: string;
  count: number;
}

/** The distinct values of a column over the trials, in sort order, with how many trials have each. */
export function distinctValues(trials: Trial[], col: Column): Distinct[] {
  const found = new Map<string, Distinct>();
  for (const t of trials) {
    const v = cellValue(t, col);
    const key = valueKey(v);
    const d = found.get(key);
    if (d) d.count++;
    else found.set(key, { key, value: v, label: formatCell(v, col), count: 1 });
  }
  return [...found.values()].sort((a, b) => {
    if ((a.value === null) !== (b.value === null)) return a.value === null ? 1 : -1;
    return compareCells(a.value, b.value);
  });
}

/** One axis of the parallel coordinates or a scatter plot: maps a cell to [0, 1] (null: not placeable). */
export interface Scale {
  kind: "linear" | "log" | "category";
  /** Tick positions in [0, 1] with their labels (and, on a categorical axis, the value's key). */
  ticks: { at: number; label: string; key?: string }[];
  pos(v: Cell): number | null;
  /** The value at a position in [0, 1] (numeric scales only). */
  invert?(p: number): number;
}

/** A numeric scale when every value is a finite number (log when all positive and spanning >= 100x), else a
 * categorical one with the distinct values evenly spaced; either spans the column's declared domain too. */
export function scaleFor(trials: Trial[], col: Column): Scale {
  const values = trials.map((t) => cellValue(t, col)).filter((v) => v !== null);
  const domain = col.domain ?? null;
  const declared: Cell[] = domain && "values" in domain ? domain.values.filter((v) => v !== null) : [];
  const numeric = values.length > 0 && values.every((v) => typeof v === "number");
  if (numeric) {
    const finite = (values as number[]).filter((v) => Number.isFinite(v));
    if (domain && "min" in domain) finite.push(domain.min, domain.max);
    if (declared.every((v) => typeof v === "number")) finite.push(...(declared as number[]));
    if (finite.length > 0) return numericScale(finite.filter(Number.isFinite), col);
  }
  const seen = distinctValues(trials, col).filter((d) => d.value !== null);
  const keys = new Set(seen.map((d) => d.key));
  const unseen = declared.filter((v) => !keys.has(valueKey(v)));
  const distinct = seen.map((d) => ({ key: d.key, value: d.value, label: d.label }));
  for (const v of unseen) distinct.push({ key: valueKey(v), value: v, label: formatCell(v, col) });
  distinct.sort((a, b) => compareCells(a.value, b.value));
  const n = distinct.length;
  const at = new Map(distinct.map((d, i) => [d.key, n === 1 ? 0.5 : i / (n - 1)]));
  return {
    kind: "category",
    ticks: distinct.map((d) => ({ at: at.get(d.key)!, label: d.label, key: d.key })),
    pos: (v) => (v === null ? null : (at.get(valueKey(v)) ?? null)),
  };
}

function numericScale(values: number[], col: Column): Scale {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const log = lo > 0 && hi / lo >= 100;
  const f = log ? Math.log10 : (x: number) => x;
  let a = f(lo);
  let b = f(hi);
  if (a === b) {
    a -= 0.5;
    b += 0.5;
  }
  const pos = (v: Cell) => {
    if (typeof v !== "number" || !Number.isFinite(v) || (log && v <= 0)) return null;
    return (f(v) - a) / (b - a);
  };
  const ticks: { at: number; label: string }[] = [];
  const fmt = (x: number) => formatCell(x, col);
  if (log) {
    for (let e = Math.ceil(a - 1e-9); e <= Math.floor(b + 1e-9); e++) ticks.push({ at: (e - a) / (b - a), label: fmt(10 ** e) });
  } else if (lo === hi) {
    ticks.push({ at: 0.5, label: fmt(lo) });
  } else {
    for (let i = 0; i <= 4; i++) {
      const x = a + ((b - a) * i) / 4;
      ticks.push({ at: i / 4, label: fmt(Number(x.toPrecision(3))) });
    }
  }
  const invert = (t: number) => {
    const x = a + t * (b - a);
    return log ? 10 ** x : x;
  };
  return { kind: log ? "log" : "linear", ticks, pos, invert };
}

/** The filter a brush from `p0` to `p1` (positions in [0, 1]) on a column's axis means: the value range on a
 * numeric axis (open-ended where it reaches the axis' end), the values it covers on a categorical one. */
export function brushFilter(col: Column, scale: Scale, p0: number, p1: number): Filter {
  const lo = Math.max(0, Math.min(p0, p1));
  const hi = Math.min(1, Math.max(p0, p1));
  if (scale.invert && filterKind(col) === "range") {
    // A brush that reaches an end of the axis leaves that side open: "everything above 0.006".
    const round = (x: number) => Number(x.toPrecision(4));
    return { min: lo <= 0.005 ? null : round(scale.invert(lo)), max: hi >= 0.995 ? null : round(scale.invert(hi)) };
  }
  const keys = scale.ticks.filter((t) => t.at >= lo - 1e-9 && t.at <= hi + 1e-9).map((t) => t.key ?? "");
  return { keys: keys.filter((k) => k !== "") };
}

/** Where a column's range filter sits on its axis ([p0, p1] in [0, 1]); null for none or a checkbox filter. */
export function filterSpan(scale: Scale, f: Filter | undefined): [number, number] | null {
  if (!f || !isActive(f) || "keys" in f) return null;
  const lo = f.min ?? null;
  const hi = f.max ?? null;
  const p0 = lo === null ? 0 : scale.pos(lo);
  const p1 = hi === null ? 1 : scale.pos(hi);
  if (p0 === null || p1 === null) return null;
  return [Math.max(0, Math.min(p0, p1)), Math.min(1, Math.max(p0, p1))];
}

/** The axis positions of the values a checkbox filter keeps (the kept categories are marked one by one: they
 * need not be neighbours). */
export function filterMarks(scale: Scale, f: Filter | undefined): number[] {
  if (!f || !("keys" in f)) return [];
  return scale.ticks.filter((t) => t.key !== undefined && f.keys.includes(t.key)).map((t) => t.at);
}

/** A colour from bad (0) to good (1): viridis-like, from a blue that still reads on a dark background to yellow. */
export function ramp(t: number): string {
  const stops = [
    [72, 60, 150],
    [59, 110, 170],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ];
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const u = x - i;
  const c = stops[i].map((s, k) => Math.round(s + (stops[i + 1][k] - s) * u));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** Per trial, a colour by a metric column: better values brighter (the goal decides which end is better). */
export function colourBy(trials: Trial[], col: Column | null): Map<string, string | null> {
  const out = new Map<string, string | null>();
  if (!col) return out;
  const scale = scaleFor(trials, col);
  for (const t of trials) {
    const p = scale.pos(cellValue(t, col));
    out.set(t.run, p === null ? null : ramp(col.goal === "min" && scale.kind !== "category" ? 1 - p : p));
  }
  return out;
}

/** `s` cut to `n` characters with an ellipsis (axis and header labels; the full text goes in a title). */
export function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
