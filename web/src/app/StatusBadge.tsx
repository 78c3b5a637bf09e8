/**
 * A run's status as a small badge (docs/runs.md): the run selector shows one beside each run whose status is
 * worth a glance (running, failed, crashed), the Runs table one per row.
 */
const LABELS: Record<string, string> = {
  running: "running",
  finished: "finished",
  failed: "failed",
  crashed: "crashed",
  stopped: "stopped",
};

const TITLES: Record<string, string> = {
  running: "Running: still written to",
  finished: "Finished: its writer was closed",
  failed: "Failed: it ended by an error",
  crashed: "Crashed: no end was recorded and nothing was written for a while",
  stopped: "Stopped: no longer written to; its writer records no end, so finished or crashed cannot be told",
};

export function StatusBadge({ status, compact = false }: { status: string | null | undefined; compact?: boolean }) {
  if (!status || !(status in LABELS)) return null;
  return (
    <span
      class={`status-badge status-${status}${compact ? " status-compact" : ""}`}
      data-status={status}
      title={TITLES[status]}
      aria-label={`status: ${LABELS[status]}`}
    >
      {compact ? "" : LABELS[status]}
    </span>
  );
}

/** Whether the run selector shows the badge: the statuses that need attention or are live. */
export function selectorShowsStatus(status: string | null | undefined): boolean {
  return status === "running" || status === "failed" || status === "crashed";
}
