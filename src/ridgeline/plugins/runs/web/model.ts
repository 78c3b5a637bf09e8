/** The Runs table's data and its pure helpers: sorting, durations, excerpts. */
import type { Answer } from "@api/types";

export interface RunRow {
  run: string;
  status: string;
  start_time: number | null;
  end_time: number | null;
  duration: number | null;
  last_activity: number | null;
  last_step: number | null;
  hparams: Record<string, string | number | boolean | null>;
  metrics: Record<string, number | null>;
  notes: string[];
  tags: string[];
  error: string | null;
  traceback: string | null;
  has_logs: boolean;
  attached_to: string | null;
}

export type TableResponse = Answer<
  "/api/runs/table",
  { runs: RunRow[]; scalar_tags: string[]; metrics: string[]; crashed_after: number }
>;

export interface LogLine {
  index: number;
  wall_time: number;
  stream: "stdout" | "stderr";
  step: number | null;
  text: string;
}

export type LogsResponse = Answer<
  "/api/runs/logs",
  { run: string; lines: LogLine[]; next: number; total: number; truncated: boolean }
>;

/** A sortable column: "run", "status", "start", "duration", "step", "hp:<name>" or "m:<tag>". */
export type SortKey = string;

const STATUS_ORDER: Record<string, number> = { failed: 0, crashed: 1, running: 2, stopped: 3, finished: 4 };

function cell(row: RunRow, key: SortKey): string | number | boolean | null {
  if (key === "run") return row.run;
  if (key === "status") return STATUS_ORDER[row.status] ?? 9;
  if (key === "start") return row.start_time;
  if (key === "duration") return row.duration;
  if (key === "step") return row.last_step;
  if (key.startsWith("hp:")) return row.hparams[key.slice(3)] ?? null;
  if (key.startsWith("m:")) return row.metrics[key.slice(2)] ?? null;
  return null;
}

/** Rows sorted by one column; empty cells always last, whatever the direction. */
export function sortRows(rows: RunRow[], key: SortKey, descending: boolean): RunRow[] {
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = cell(a, key);
    const y = cell(b, key);
    if (x === null || x === undefined) return y === null || y === undefined ? a.run.localeCompare(b.run) : 1;
    if (y === null || y === undefined) return -1;
    const order =
      typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
    return order * sign || a.run.localeCompare(b.run);
  });
}

/** "3 h 05 min", "4 min 12 s", "9 s". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/** The first non-empty line of the notes, cut to `max` characters (the row's excerpt). */
export function excerpt(notes: string[], max = 120): string {
  for (const note of notes) {
    const line = note.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find((l) => l.length > 0);
    if (line) return line.length > max ? `${line.slice(0, max - 1)}…` : line;
  }
  return "";
}

/** The hparam names of every row, in first-seen order. */
export function hparamNames(rows: RunRow[]): string[] {
  const names: string[] = [];
  for (const row of rows) for (const name of Object.keys(row.hparams)) if (!names.includes(name)) names.push(name);
  return names;
}
