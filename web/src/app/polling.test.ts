import { describe, expect, it } from "vitest";
import { DEFAULT_INTERVAL_S, generationChanged, MIN_INTERVAL_S, pollInterval } from "./useRuns";
import { visibleRange } from "./VirtualList";

describe("auto-reload", () => {
  it("polls at the server's reload interval, with a floor and a default", () => {
    expect(pollInterval({ reload_interval: 2 })).toBe(2);
    expect(pollInterval({ reload_interval: 0.01 })).toBe(MIN_INTERVAL_S);
    expect(pollInterval({ reload_interval: null })).toBe(DEFAULT_INTERVAL_S);
    expect(pollInterval(null)).toBe(DEFAULT_INTERVAL_S);
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
