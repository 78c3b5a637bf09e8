import { describe, expect, it } from "vitest";
import { formatLogTick, linearTicks, logTicks } from "./ticks";

describe("logTicks", () => {
  it("puts powers of ten, and 2 and 5 between them when few decades are shown", () => {
    expect(logTicks(0.08, 3.8, 7)).toEqual([0.1, 0.2, 0.5, 1, 2]);
    expect(logTicks(1, 10, 7)).toEqual([1, 2, 5, 10]);
  });

  it("keeps only powers of ten over many decades, skipping decades when they do not fit", () => {
    expect(logTicks(1e-3, 1e5, 10)).toEqual([1e-3, 0.01, 0.1, 1, 10, 100, 1000, 1e4, 1e5]);
    expect(logTicks(1e-3, 1e5, 6)).toEqual([0.01, 1, 100, 1e4]);
    expect(logTicks(1e-30, 3.4e38, 6).length).toBeLessThanOrEqual(6);
  });

  it("uses every digit inside one decade, and round linear steps inside a narrow range", () => {
    expect(logTicks(0.3, 0.95, 8)).toEqual([0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    const narrow = logTicks(0.52, 0.58, 6);
    expect(narrow.length).toBeGreaterThanOrEqual(2);
    for (const t of narrow) expect(t >= 0.52 && t <= 0.58).toBe(true);
  });

  it("gives nothing for a range that is not positive", () => {
    expect(logTicks(0, 1, 5)).toEqual([]);
    expect(logTicks(-1, 1, 5)).toEqual([]);
    expect(logTicks(2, 1, 5)).toEqual([]);
  });
});

describe("linearTicks", () => {
  it("gives round values without floating point noise", () => {
    expect(linearTicks(0.1, 0.5, 4)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
  });
});

describe("formatLogTick", () => {
  it("is compact", () => {
    expect([1e-3, 2e-3, 0.01, 0.1, 0.5, 1, 10, 2000, 1e4, 1e5, 3.4e38].map(formatLogTick)).toEqual([
      "1e-3", "2e-3", "0.01", "0.1", "0.5", "1", "10", "2000", "1e4", "1e5", "3.4e38",
    ]);
    expect(formatLogTick(null)).toBe("");
  });
});

describe("logTicks on a short range", () => {
  it("falls back to round linear steps when powers and 1-2-5 give fewer than three labels", () => {
    expect(logTicks(0.45, 1.02, 5)).toEqual([0.6, 0.8, 1]);
  });
});
