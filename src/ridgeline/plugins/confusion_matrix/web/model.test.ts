import { describe, expect, it } from "vitest";
import { cellDetails, cellText, matrixOf, type Matrix } from "./model";

const step = { step: 1, wall_time: 0, class_names: ["a", "b"], counts: [[3, 1], [0, 0]] };

describe("matrixOf", () => {
  it("sums each true class's samples", () => {
    const m = matrixOf(step) as Matrix;
    expect(m.rowTotals).toEqual([4, 0]);
  });
  it("names a step that is not n×n", () => {
    expect(matrixOf({ ...step, counts: [[1, 2, 3]] })).toMatch(/shape \[1, 3\], not \[2, 2\]/);
    expect(matrixOf({ step: 1, wall_time: 0, error: "bad" })).toBe("bad");
  });
});

describe("cells", () => {
  const m = matrixOf(step) as Matrix;
  it("shows counts or row shares", () => {
    expect(cellText(m, 0, 0, false)).toBe("3");
    expect(cellText(m, 0, 0, true)).toBe("75.0%");
    expect(cellText(m, 1, 0, true)).toBe("–");
  });
  it("details name both classes", () => {
    expect(cellDetails(m, 0, 1)).toEqual({ trueClass: "a", predictedClass: "b", count: 1, rowTotal: 4, rowShare: "25.0%" });
  });
});
