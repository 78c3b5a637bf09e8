import { describe, expect, it } from "vitest";
import type { RetentionOn } from "@api/types";
import { formatBytes, retentionNotice } from "./RetentionNotice";

const on: RetentionOn = {
  enabled: true,
  spec: "--older-than 30d",
  policy: "runs older than 30 days",
  mode: "dry-run",
  trash: null,
  every: 3600,
  next: null,
  sweeps: 1,
  removed_runs: 0,
  removed_bytes: 0,
  error: null,
  last: {
    mode: "dry-run",
    finished: 1_700_000_000,
    runs: [
      { run: "old1", runs: ["old1"], last_event: 1_690_000_000, size: 1_500_000, reasons: ["older than 30 days"], done: false },
      { run: "old2", runs: ["old2", "old2/x_a"], last_event: null, size: 700_000, reasons: ["older than 30 days"], done: false },
    ],
    selected_bytes: 2_200_000,
    freed_bytes: 0,
    problems: [],
    failures: [],
  },
};

describe("the retention notice", () => {
  it("says nothing when retention is off or unknown", () => {
    expect(retentionNotice(null)).toBeNull();
    expect(retentionNotice({ enabled: false })).toBeNull();
  });

  it("says what a dry run would delete, and how to make it delete", () => {
    const notice = retentionNotice(on)!;
    expect(notice.text).toBe("Retention (dry run): 2 runs, 2.2 MB would go");
    expect(notice.title).toContain("old1 (1.5 MB): older than 30 days");
    expect(notice.title).toContain("Add --yes");
    expect(notice.warning).toBe(false);
  });

  it("counts what was deleted since the server started", () => {
    const deleted = { ...on, mode: "delete" as const, removed_runs: 3, removed_bytes: 4_000_000_000 };
    expect(retentionNotice(deleted)!.text).toBe("Retention: 3 runs deleted (4.0 GB)");
    expect(retentionNotice({ ...deleted, removed_runs: 0 })!.text).toBe("Retention: nothing deleted yet");
    expect(retentionNotice({ ...deleted, mode: "trash", removed_runs: 1 })!.text).toBe(
      "Retention: 1 run moved to the trash (4.0 GB)",
    );
  });

  it("warns when a sweep failed", () => {
    const failed = retentionNotice({ ...on, error: "the retention sweep failed: gone" })!;
    expect(failed.warning).toBe(true);
    expect(failed.title).toContain("gone");
    expect(retentionNotice({ ...on, last: null })!.text).toBe("Retention on");
  });

  it("prints sizes as the command line does", () => {
    expect(formatBytes(17)).toBe("17 B");
    expect(formatBytes(512_000)).toBe("512 kB");
    expect(formatBytes(1_234_000_000)).toBe("1.2 GB");
    expect(formatBytes(150e9)).toBe("150 GB");
  });
});
