import { describe, expect, it } from "vitest";
import type { RunInfo } from "@app/types";
import type { SeriesData } from "@charts/series/data";
import { buildMarginModel, chartId, chartKeys, chartShown, dashFor, multilineTags, type ChartSpec } from "./chart";

const run = (name: string, scalars: string[]): RunInfo => ({
  run: name,
  colour: "#123456",
  tags: { scalars },
  last_step: null,
  last_wall_time: null,
  annotations: 0,
});

const series = (steps: number[], values: number[]): SeriesData => ({
  step: Float64Array.from(steps),
  wall: Float64Array.from(steps, (s) => 1000 + s),
  value: Float64Array.from(values),
  low: null,
  high: null,
  reduced: false,
  total: steps.length,
  nonfinite: [],
});

const multiline: ChartSpec = { title: "losses", kind: "multiline", tags: ["loss/"], matched: ["loss/train", "loss/val"], errors: [] };
const margin: ChartSpec = { title: "m", kind: "margin", series: [{ value: "v", lower: "lo", upper: "hi" }] };

describe("custom scalars charts", () => {
  it("draws each run's matched tags", () => {
    const runs = [run("a", ["loss/train", "acc"]), run("b", ["loss/val", "loss/train"])];
    expect(chartKeys(multiline, runs)).toEqual([
      { run: "a", tag: "loss/train" },
      { run: "b", tag: "loss/train" },
      { run: "b", tag: "loss/val" },
    ]);
    expect(multilineTags(multiline, [runs[0]])).toEqual(["loss/train"]);
    expect(chartKeys(multiline, [run("c", ["x"])])).toEqual([]);
  });

  it("asks a margin's bounds only for runs with its value tag", () => {
    const runs = [run("a", ["v", "lo", "hi"]), run("b", ["lo", "hi"]), run("c", ["v"])];
    expect(chartKeys(margin, runs)).toEqual([
      { run: "a", tag: "v" },
      { run: "a", tag: "lo" },
      { run: "a", tag: "hi" },
      { run: "c", tag: "v" },
    ]);
  });

  it("filters charts by title or tag", () => {
    expect(chartShown(multiline, null)).toBe(true);
    expect(chartShown(multiline, /val/)).toBe(true);
    expect(chartShown(multiline, /^losses$/)).toBe(true);
    expect(chartShown(margin, /^hi$/)).toBe(true);
    expect(chartShown(margin, /acc/)).toBe(false);
    expect(chartShown({ title: "e", kind: "empty" }, /x/)).toBe(false);
  });

  it("tells tags apart by dash and charts by category", () => {
    expect(dashFor(0)).toBeUndefined();
    expect(dashFor(1)).not.toEqual(dashFor(2));
    expect(chartId("A", multiline)).not.toEqual(chartId("B", multiline));
  });

  it("fills a margin band between lower and upper at the value's steps", () => {
    const m = buildMarginModel(
      [
        {
          run: "a",
          colour: "#ff0000",
          series: { value: "v", lower: "lo", upper: "hi" },
          index: 0,
          value: series([0, 1, 2], [1, 2, 3]),
          lower: series([0, 2], [0, 2]),
          upper: series([0, 1, 2], [2, 3, 4]),
        },
      ],
      "step",
      false,
      300,
    );
    expect(m.lines.map((l) => !!l.bandEdge)).toEqual([false, true, true]);
    expect(m.bands).toEqual([{ upper: 2, lower: 3, colour: "#ff0000", alpha: 0.2 }]);
    expect(Array.from(m.data[0] as number[])).toEqual([0, 1, 2]);
    expect(Array.from(m.data[1] as number[])).toEqual([1, 2, 3]);
    expect(Array.from(m.data[2] as number[])).toEqual([2, 3, 4]);
    expect(Array.from(m.data[3] as number[])).toEqual([0, 1, 2]); // lower interpolated at step 1
    expect(m.points).toBe(3);
    expect(Array.from(m.hover[0].bandLow!)).toEqual([0, 1, 2]);
  });

  it("draws no band without bounds, and an open band without one of them", () => {
    const m = buildMarginModel(
      [{ run: "a", colour: "#00ff00", series: { value: "v", lower: "lo", upper: "hi" }, index: 1, value: series([0, 1], [5, 6]), lower: null, upper: null }],
      "relative",
      false,
      300,
    );
    expect(Array.from(m.data[0] as number[])).toEqual([0, 1]);
    expect(m.lines).toHaveLength(1);
    expect(m.bands).toEqual([]);
    expect(m.lines[0].dash).toEqual(dashFor(1));
    const half = buildMarginModel(
      [{ run: "a", colour: "#00ff00", series: { value: "v", lower: "lo", upper: "hi" }, index: 0, value: series([0, 1], [5, 6]), lower: null, upper: series([0, 1], [7, 8]) }],
      "step",
      false,
      300,
    );
    expect(half.bands).toHaveLength(1);
    expect((half.data[3] as (number | null)[]).every((v) => v == null || Number.isNaN(v))).toBe(true);
  });
});
