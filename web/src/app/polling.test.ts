import { describe, expect, it } from "vitest";
import { DEFAULT_INTERVAL_S, generationChanged, loadingNotice, MIN_INTERVAL_S, pollInterval } from "./useRuns";
import { visibleRange } from "./VirtualList";

describe("auto-reload", () => {
  it("polls at the server's reload interval, with a floor and a default", () => {
    expect(pollInterval({ reload_interval: 2 })).toBe(2);
    expect(pollInterval({ reload_interval: 0.01 })).toBe(MIN_INTERVAL_S);
    expect(pollInterval({ reload_interval: null })).toBe(DEFAULT_INTERVAL_S);
    expect(pollInterval(null)).toBe(DEFAULT_INTERVAL_S);
  });

  it("polls often while the server's first pass reads the log directory, and says how far it got", () => {
    const loading = { files_read: 120, files: 1500, runs: 12 };
    expect(pollInterval({ reload_interval: 30, loading })).toBe(MIN_INTERVAL_S);
    expect(pollInterval({ reload_interval: 30, loading: null })).toBe(30);
    expect(loadingNotice({ loading })).toBe("Reading event files: 120 of 1,500");
    expect(loadingNotice({ loading: { files_read: 0, files: null, runs: 0 } })).toBe("Reading the log directory…");
    expect(loadingNotice({ loading: null })).toBeNull();
    expect(loadingNotice(null)).toBeNull();
  });

  it("counts a poll as new data when the generation moved (or the server has none)", () => {
    expect(generationChanged(3, 3)).toBe(false);
    expect(generationChanged(3, 4)).toBe(true);
    expect(generationChanged(3, undefined)).toBe(true);
  });
});

describe("visibleRange", () => {
  it("renders only the rows in view plus the overscan", () => {
    expect(visibleRange(1000, 28, 0, 560, 8)).toEqual([0, 28]);
    expect(visibleRange(1000, 28, 28 * 500, 560, 8)).toEqual([492, 528]);
    expect(visibleRange(1000, 28, 28 * 990, 560, 8)).toEqual([982, 1000]);
    expect(visibleRange(0, 28, 0, 560, 8)).toEqual([0, 0]);
  });
});
