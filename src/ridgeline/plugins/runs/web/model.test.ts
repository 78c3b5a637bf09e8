import { describe, expect, it } from "vitest";
import { excerpt, formatDuration, sortRows, type RunRow } from "./model";

function row(run: string, extra: Partial<RunRow> = {}): RunRow {
  return {
    run,
    status: "finished",
    start_time: null,
    end_time: null,
    duration: null,
    last_activity: null,
    last_step: null,
    hparams: {},
    metrics: {},
    notes: [],
    tags: [],
    error: null,
    traceback: null,
    has_logs: false,
    attached_to: null,
    ...extra,
  };
}

describe("sortRows", () => {
  it("sorts numbers as numbers, names naturally, and empty cells last both ways", () => {
    const rows = [row("b", { metrics: { loss: 2 } }), row("a"), row("c", { metrics: { loss: 10 } })];
    expect(sortRows(rows, "m:loss", false).map((r) => r.run)).toEqual(["b", "c", "a"]);
    expect(sortRows(rows, "m:loss", true).map((r) => r.run)).toEqual(["c", "b", "a"]);
    expect(sortRows([row("run10"), row("run9")], "run", false).map((r) => r.run)).toEqual(["run9", "run10"]);
  });
  it("puts failed and crashed runs first by status", () => {
    const rows = [row("ok"), row("bad", { status: "failed" }), row("live", { status: "running" })];
    expect(sortRows(rows, "status", false).map((r) => r.run)).toEqual(["bad", "live", "ok"]);
  });
});

describe("formatDuration and excerpt", () => {
  it("formats durations", () => {
    expect(formatDuration(9.4)).toBe("9 s");
    expect(formatDuration(252)).toBe("4 min 12 s");
    expect(formatDuration(11100)).toBe("3 h 05 min");
    expect(formatDuration(null)).toBe("");
  });
  it("takes the first non-empty line without its heading marks", () => {
    expect(excerpt(["", "\n# Trial 3\nwider"])).toBe("Trial 3");
    expect(excerpt(["x".repeat(200)], 10)).toBe("xxxxxxxxx…");
  });
});
