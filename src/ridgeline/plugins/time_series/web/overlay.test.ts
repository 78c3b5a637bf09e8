import { describe, expect, it } from "vitest";
import { buildOverlay } from "./overlay";

describe("overlay", () => {
  it("draws the scalar on the left axis and the histogram's bands on the right one, on one step axis", () => {
    const bp = [0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000];
    const values = bp.map((b) => [b / 1000, b / 1000 + 1]);
    const m = buildOverlay(
      [
        { run: "a", colour: "#ff0000", scalar: { step: [0, 1, 2], value: [3, 2, 1] }, distribution: { basis_points: bp, step: [0, 2], values } },
        { run: "b", colour: "#0000ff", scalar: { step: [0, 1, 2], value: [1, 1, 1] }, distribution: null },
      ],
      "loss",
      "grad",
      300,
    );
    expect(m.lines.map((l) => l.label)).toEqual(["a · loss", "a · grad max", "a · grad min", "a · grad 84%", "a · grad 16%", "a · grad median", "b · loss"]);
    expect(m.lines.filter((l) => l.scale === "y2")).toHaveLength(5);
    expect(m.bands).toEqual([
      { upper: 2, lower: 3, colour: "#ff0000", alpha: 0.08 },
      { upper: 4, lower: 5, colour: "#ff0000", alpha: 0.18 },
    ]);
    expect(Array.from(m.data[0] as number[])).toEqual([0, 1, 2]);
    expect((m.data[6] as (number | null | undefined)[])[0]).toBe(5); // the median at step 0
    expect(m.points).toBe(8);
  });

  it("joins the marked (image) steps into the step axis without adding a series", () => {
    const m = buildOverlay([{ run: "a", colour: "#ff0000", scalar: { step: [0, 1, 2], value: [3, 2, 1] }, distribution: null }], "loss", "", 300, [2, 5]);
    expect(Array.from(m.data[0] as number[])).toEqual([0, 1, 2, 5]);
    expect(m.lines).toHaveLength(1);
    expect(m.data).toHaveLength(2);
  });
});
