import { describe, expect, it } from "vitest";
import { curveOf, hoverRow, nearestIndex, type PrStep } from "./model";

const entry: PrStep = {
  step: 3,
  wall_time: 0,
  thresholds: [0, 1 / 3, 2 / 3, 1],
  tp: [10, 8, 5, 0],
  fp: [10, 5, 2, 0],
  tn: [0, 5, 8, 10],
  fn: [0, 2, 5, 10],
  precision: [0.5, 0.6, 0.7, null],
  recall: [1, 0.8, 0.5, 0],
};

describe("curveOf", () => {
  it("keeps finite points in recall order and remembers their thresholds", () => {
    const c = curveOf(entry);
    expect(c.recall).toEqual([0.5, 0.8, 1]);
    expect(c.precision).toEqual([0.7, 0.6, 0.5]);
    expect(c.source).toEqual([2, 1, 0]);
  });

  it("leaves out thresholds with nothing predicted positive (precision undefined)", () => {
    const c = curveOf({ ...entry, tp: [10, 8, 5, 0], fp: [10, 5, 2, 0], precision: [0.5, 0.6, 0.7, 0], recall: [1, 0.8, 0.5, 0] });
    expect(c.source).toEqual([2, 1, 0]);
  });

  it("is empty for an entry without arrays (an error entry)", () => {
    expect(curveOf({ step: 0, wall_time: 0, error: "bad" })).toEqual({ recall: [], precision: [], source: [] });
  });
});

describe("nearestIndex and hoverRow", () => {
  it("finds the nearest point in pixels and reports its threshold and counts", () => {
    const c = curveOf(entry);
    const px = (v: number) => v * 100;
    const { index, distance } = nearestIndex(c, 79, 61, px, px);
    expect(index).toBe(1);
    expect(distance).toBeCloseTo(Math.hypot(1, 1));
    const row = hoverRow("run", "#000", entry, c.source[index], distance);
    expect(row).toMatchObject({ threshold: 1 / 3, precision: 0.6, recall: 0.8, tp: 8, fp: 5, tn: 5, fn: 2, step: 3 });
  });

  it("answers -1 for an empty curve", () => {
    expect(nearestIndex({ recall: [], precision: [], source: [] }, 0, 0, (v) => v, (v) => v).index).toBe(-1);
  });
});
