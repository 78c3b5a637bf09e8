import { describe, expect, it } from "vitest";
import { withExtras } from "./plot";

describe("withExtras", () => {
  const rising = { x: [300, 330, 360], expected: [1.7, 1.8, 1.9], low: [1.68, 1.75, 1.8], high: [1.72, 1.85, 2.0] };

  it("widens a range to the expected values and their band", () => {
    expect(withExtras({ min: 0.5, max: 1.7 }, [rising], "y", 0, 360, false)).toEqual({ min: 0.5, max: 2.0 });
  });

  it("lets a band widen the range by at most half its span on a side", () => {
    const wild = { ...rising, high: [1.8, 10, 100] };
    const r = withExtras({ min: 0.5, max: 1.7 }, [wild], "y", 0, 360, false)!;
    expect(r.min).toBe(0.5);
    expect(r.max).toBeCloseTo(1.9 + 0.5 * 1.4);
  });

  it("counts only what lies in the x window, on its own scale", () => {
    expect(withExtras({ min: 0.5, max: 1.7 }, [rising], "y", 0, 299, false)).toEqual({ min: 0.5, max: 1.7 });
    expect(withExtras({ min: 0.5, max: 1.7 }, [rising], "y2", 0, 360, false)).toEqual({ min: 0.5, max: 1.7 });
    const alone = withExtras(null, [rising], "y", 0, 330, false)!;
    expect(alone.min).toBeCloseTo(1.68);
    expect(alone.max).toBeCloseTo(1.85);
  });

  it("works in decades on a log scale and skips values at or below zero", () => {
    const f = { x: [10, 20], expected: [1, 100], low: [0, 0], high: [1e3, 1e9] };
    const r = withExtras({ min: 10, max: 100 }, [f], "y", 0, 20, true)!;
    expect(r.min).toBeCloseTo(1);
    expect(Math.log10(r.max)).toBeCloseTo(3);
  });
});
