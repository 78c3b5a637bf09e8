import { describe, expect, it } from "vitest";
import { binAt, binEdges, histogramTags, offsetLayout, runsWithTag, unionSteps } from "./data";

const run = (name: string, tags: string[]) => ({ run: name, colour: "#000000", tags: { histograms: tags }, last_step: null, last_wall_time: null, annotations: 0 });

describe("histogram data helpers", () => {
  it("stacks curves oldest on top, newest on the bottom line, the peak fitting above the first", () => {
    const l = offsetLayout(5, 10, 110);
    expect(l.baseline(4)).toBeCloseTo(110);
    expect(l.baseline(0) - l.peak).toBeCloseTo(10);
    for (let i = 1; i < 5; i++) expect(l.baseline(i)).toBeGreaterThan(l.baseline(i - 1));
    const one = offsetLayout(1, 10, 110);
    expect(one.baseline(0)).toBeCloseTo(110);
    expect(one.peak).toBeCloseTo(100);
  });

  it("finds bins and their edges", () => {
    expect(binAt(0, 0, 10, 5)).toBe(0);
    expect(binAt(10, 0, 10, 5)).toBe(4);
    expect(binAt(4.1, 0, 10, 5)).toBe(2);
    expect(binAt(-1, 0, 10, 5)).toBe(-1);
    expect(binAt(1, 3, 3, 5)).toBe(-1);
    expect(binEdges([0, 10], 5, 2)).toEqual([4, 6]);
  });

  it("collects tags and steps across runs", () => {
    const runs = [run("a", ["w/1", "w/2"]), run("b", ["w/2"])];
    expect(histogramTags(runs).sort()).toEqual(["w/1", "w/2"]);
    expect(runsWithTag(runs, "w/1").map((r) => r.run)).toEqual(["a"]);
    expect(unionSteps([[0, 5, 10], [5, 7]])).toEqual([0, 5, 7, 10]);
  });
});
