import { describe, expect, it } from "vitest";
import { followSteps } from "./StepSlider";

describe("followSteps", () => {
  it("selects the newest step when nothing was chosen", () => {
    expect(followSteps([], null, [0, 10, 20])).toBe(2);
    expect(followSteps([], null, [])).toBe(0);
  });
  it("follows the newest step when it was selected", () => {
    expect(followSteps([0, 10], 1, [0, 10, 20])).toBe(2);
  });
  it("keeps a chosen step when new ones arrive", () => {
    expect(followSteps([0, 10, 20], 1, [0, 10, 20, 30])).toBe(1);
  });
  it("falls back to the nearest earlier step when the chosen one is gone", () => {
    expect(followSteps([0, 10, 20, 30], 2, [0, 10, 25, 30, 40])).toBe(1);
    expect(followSteps([5, 10, 20], 0, [7, 10, 20])).toBe(0);
  });
});
