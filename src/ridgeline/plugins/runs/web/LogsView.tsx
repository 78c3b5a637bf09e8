/**
 * One run's console lines (GET /api/runs/logs): time, stream, step and text per line, a regular-expression
 * filter (RE2, applied by the server; an invalid pattern shows the server's message) and follow mode: while on,
 * each reload (the shell's `tick`) asks for the lines after the last one shown and keeps the view at the end.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, getJson } from "@api/client";
import { formatWallTime } from "@charts/format";
import type { LogLine, LogsResponse } from "./model";

const FILTER_DELAY_MS = 250;

export function LogsView({ run, tick, onClose }: { run: string; tick: number; onClose(): void }) {
  const [pattern, setPattern] = useState("");
  const [applied, setApplied] = useState("");
  const [follow, setFollow] = useState(true);
  const [lines, setLines] = useState<LogLine[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [truncated, setTruncated] = useState(false);
  const next = useRef(0);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const timer = setTimeout(() => setApplied(pattern), FILTER_DELAY_MS);
    return () => clearTimeout(timer);
  }, [pattern]);

  // A new pattern starts over from the first line.
  useEffect(() => {
    next.current = 0;
    setLines([]);
    setTruncated(false);
    void load(true);
  }, [run, applied]);

  // Following: each reload brings the lines after the last one shown.
  useEffect(() => {
    if (follow) void load(false);
  }, [tick, follow]);

  // A fresh load (a new run or pattern) supersedes every answer still on its way; answers of one epoch may
  // overlap (a follow poll sent before the fresh answer came), so lines are appended by position, once each.
  const epoch = useRef(0);
  async function load(fresh: boolean): Promise<void> {
    if (fresh) epoch.current += 1;
    const mine = epoch.current;
    try {
      const answer = await getJson<LogsResponse>("/api/runs/logs", {
        run,
        regex: applied || null,
        since: fresh ? 0 : next.current,
      });
      if (mine !== epoch.current) return;
      next.current = fresh ? answer.next : Math.max(next.current, answer.next);
      setError(null);
      setTruncated((t) => (fresh ? answer.truncated : t || answer.truncated));
      setLines((old) => {
        if (fresh) return answer.lines;
        const last = old.length ? old[old.length - 1].index : -1;
        const added = answer.lines.filter((line) => line.index > last);
        return added.length ? [...old, ...added] : old;
      });
    } catch (err) {
      if (mine !== epoch.current) return;
      setError(err instanceof ApiError ? err.message : String(err));
      if (fresh) setLines([]);
    }
  }

  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, follow]);

  return (
    <section class="rl-logs" data-testid="logs-view" aria-label={`logs of ${run}`}>
      <header class="rl-logs-bar">
        <strong>Logs: {run}</strong>
        <input
          type="search"
          class="rl-logs-filter"
          placeholder="filter lines (regular expression)"
          aria-label="filter lines by regular expression"
          value={pattern}
          onInput={(e) => setPattern((e.currentTarget as HTMLInputElement).value)}
        />
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow((e.currentTarget as HTMLInputElement).checked)} />{" "}
          follow
        </label>
        <span class="muted" data-testid="logs-count">
          {lines.length} line{lines.length === 1 ? "" : "s"}
          {truncated ? " (the last ones)" : ""}
        </span>
        <button type="button" onClick={onClose} aria-label="close the logs">
          ×
        </button>
      </header>
      {error && (
        <div class="banner banner-error" role="alert" data-testid="logs-error">
          {error}
        </div>
      )}
      <div class="rl-logs-lines" ref={box} role="log" aria-live="off">
        {lines.map((line) => (
          <div key={line.index} class={`rl-logs-line rl-logs-${line.stream}`} data-index={line.index}>
            <span class="rl-logs-time">{formatWallTime(line.wall_time)}</span>
            <span class="rl-logs-stream">{line.stream}</span>
            <span class="rl-logs-step">{line.step ?? "–"}</span>
            <span class="rl-logs-text">{line.text}</span>
          </div>
        ))}
        {!error && lines.length === 0 && <p class="muted">No line{applied ? " matches" : " was captured"}.</p>}
      </div>
    </section>
  );
}
