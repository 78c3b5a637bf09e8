/**
 * The retention notice in the top bar: what `ridgeline serve --retention` deleted (or, in a dry run, would delete),
 * from GET /api/retention, fetched when the page opens and whenever the runs changed. Nothing shows when retention
 * is off, or when the server cannot say (an older server without the route).
 */
import { useEffect, useState } from "preact/hooks";
import { getJson } from "@api/client";
import type { RetentionOn, RetentionResponse } from "@api/types";

export interface Notice {
  text: string;
  /** The details shown on hover: the policy, the latest sweep, the runs it took. */
  title: string;
  warning: boolean;
}

/** Bytes in decimal units, as `ridgeline clean` prints them: 1.2 GB, 512 kB, 17 B. */
export function formatBytes(size: number): string {
  for (const [unit, scale] of [["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]] as const) {
    if (size >= scale) {
      const value = size / scale;
      return `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ${unit}`;
    }
  }
  return `${Math.floor(size)} B`;
}

function runs(count: number): string {
  return `${count} run${count === 1 ? "" : "s"}`;
}

/** What the notice says for a status; null when retention is off. */
export function retentionNotice(status: RetentionResponse | null): Notice | null {
  if (!status || !status.enabled) return null;
  const on = status as RetentionOn;
  const details = [`Retention: ${on.policy} (--retention ${on.spec})`];
  if (on.error) return { text: "Retention: the last sweep failed", title: [...details, on.error].join("\n"), warning: true };
  const last = on.last;
  if (!last) return { text: "Retention on", title: details.join("\n"), warning: false };
  details.push(`Last sweep: ${new Date(last.finished * 1000).toLocaleString()}`);
  const listed = last.runs.slice(0, 10).map((r) => `  ${r.run} (${formatBytes(r.size)}): ${r.reasons.join("; ")}`);
  if (last.runs.length > listed.length) listed.push(`  and ${last.runs.length - listed.length} more`);
  let text: string;
  if (on.mode === "dry-run") {
    text = last.runs.length
      ? `Retention (dry run): ${runs(last.runs.length)}, ${formatBytes(last.selected_bytes)} would go`
      : "Retention (dry run): nothing would go";
    if (last.runs.length) details.push("Would go:", ...listed, "Add --yes (or --trash DIR) to --retention to delete them.");
  } else {
    const done = on.mode === "trash" ? "moved to the trash" : "deleted";
    text = on.removed_runs
      ? `Retention: ${runs(on.removed_runs)} ${done} (${formatBytes(on.removed_bytes)})`
      : `Retention: nothing ${done} yet`;
    if (last.runs.length) details.push(on.mode === "trash" ? `Moved to ${on.trash}:` : "Deleted:", ...listed);
  }
  const failures = [...last.problems, ...last.failures];
  if (failures.length) details.push("Problems:", ...failures.slice(0, 5).map((p) => `  ${p}`));
  return { text, title: details.join("\n"), warning: last.failures.length > 0 };
}

/** GET /api/retention when the page opens and at every `tick` (the runs changed: a sweep may have removed some). */
export function useRetention(tick: number): RetentionResponse | null {
  const [status, setStatus] = useState<RetentionResponse | null>(null);
  const enabled = status === null || status.enabled;
  useEffect(() => {
    if (!enabled) return; // off: it stays off while this server runs
    const controller = new AbortController();
    getJson<RetentionResponse>("/api/retention", undefined, { signal: controller.signal })
      .then(setStatus)
      .catch(() => undefined); // no such route, or the server is away: the error banner says the latter
    return () => controller.abort();
  }, [tick, enabled]);
  return status;
}

export function RetentionNotice(props: { tick: number }) {
  const notice = retentionNotice(useRetention(props.tick));
  if (!notice) return null;
  return (
    <span
      class={notice.warning ? "retention-notice retention-warning" : "retention-notice"}
      data-testid="retention"
      role="status"
      title={notice.title}
    >
      {notice.text}
    </span>
  );
}
