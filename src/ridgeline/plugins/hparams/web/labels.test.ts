import { describe, expect, it } from "vitest";
import { middleEllipsis, wrapLabel } from "./labels";

const measure = (text: string) => text.length * 7;

describe("axis titles", () => {
  it("stay on one line when they fit", () => {
    expect(wrapLabel("lr", 100, measure)).toEqual(["lr"]);
  });
  it("wrap at their natural breaks, no line wider than the slot", () => {
    const lines = wrapLabel("hparam/validation_accuracy (best ↑)", 100, measure);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(measure(line)).toBeLessThanOrEqual(100);
    expect(lines[0]).toBe("hparam/");
    expect(lines.at(-1)!.endsWith("best ↑)")).toBe(true); // the end, which tells final from best, stays
  });
  it("keep the end of a title that needs more lines than allowed", () => {
    const lines = wrapLabel("metrics/a_very_long_name_of_a_metric_logged_at_the_end_of_training_top5", 70, measure);
    expect(lines).toHaveLength(3);
    expect(lines[2]!.endsWith("top5")).toBe(true);
    expect(lines[2]).toContain("…");
    for (const line of lines) expect(measure(line)).toBeLessThanOrEqual(70);
  });
  it("cut a long word in the middle", () => {
    expect(middleEllipsis("abcdefghijkl", 49, measure)).toBe("ab…ijkl");
  });
});
