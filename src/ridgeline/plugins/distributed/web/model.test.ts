import { describe, expect, it } from "vitest";
import { aggregateChart, extremesAt, firstChartPoints, formatOffset, rankChart, splitTags, type SeriesAnswerBody } from "./model";

const body: SeriesAnswerBody = {
  run: "job",
  tag: "loss",
  step: [0, 1, 2],
  mean: [2, 3, null],
  median: [2, 3, null],
  min: [1, 2, null],
  max: [3, 4, null],
  std: [1, 1, null],
  count: [2, 2, 0],
  min_rank: [0, 1, -1],
  max_rank: [1, 0, -1],
  ranks: [
    { rank: 0, step: [0, 1, 2], time: [0, 0.5, 1], value: [1, 4, null] },
    { rank: 1, step: [0, 1], time: [0, 0.6], value: [3, 2] },
  ],
};

describe("aggregateChart", () => {
  it("draws the statistic with a min-max band", () => {
    const chart = aggregateChart(body, "median", "minmax");
    expect(chart.x).toEqual([0, 1, 2]);
    expect(chart.columns).toEqual([
      [2, 3, null],
      [3, 4, null],
      [1, 2, null],
    ]);
    expect(chart.labels).toEqual(["median", "max", "min"]);
    expect(chart.band).toEqual({ upper: 1, lower: 2 });
  });
  it("draws mean ± σ, or no band", () => {
    expect(aggregateChart(body, "mean", "sigma").columns.slice(1)).toEqual([
      [3, 4, null],
      [1, 2, null],
    ]);
    const bare = aggregateChart(body, "max", "none");
    expect(bare.columns).toEqual([[3, 4, null]]);
    expect(bare.band).toBeNull();
  });
});

describe("rankChart", () => {
  it("puts each rank on the union of steps", () => {
    const chart = rankChart(body, "step");
    expect(chart.x).toEqual([0, 1, 2]);
    expect(chart.columns).toEqual([
      [1, 4, null],
      [3, 2, undefined],
    ]);
    expect(chart.labels).toEqual(["rank 0", "rank 1"]);
  });
  it("puts each rank on the union of aligned times", () => {
    const chart = rankChart(body, "relative");
    expect(chart.x).toEqual([0, 0.5, 0.6, 1]);
    expect(chart.columns[1]).toEqual([3, undefined, 2, undefined]);
  });
});

describe("extremesAt and helpers", () => {
  it("names the ranks of the min and max at the nearest step", () => {
    expect(extremesAt(body, 0.9)).toBe("step 1: min rank 1, max rank 0 (2 ranks)");
    expect(extremesAt(body, 7)).toBe("step 2: no finite value");
  });
  it("splits system tags off and formats offsets", () => {
    expect(splitTags(["sys/cpu/system_percent", "loss"])).toEqual({ training: ["loss"], system: ["sys/cpu/system_percent"] });
    const row = { rank: 1, run: "r", host: null, offset_ms: 2000, offset_uncertainty_ms: 0.05, score: 1, flagged: false, straggler: false, restart_count: null };
    expect(formatOffset(row)).toBe("2000.0 ± 0.05");
    expect(formatOffset({ ...row, offset_ms: null })).toBe("—");
  });
});

describe("firstChartPoints", () => {
  it("asks for about one step per device pixel of the window, within the server's bounds", () => {
    expect(firstChartPoints(1280, 1)).toBe(1280);
    expect(firstChartPoints(1280, 2)).toBe(2560);
    expect(firstChartPoints(20, 1)).toBe(64);
    expect(firstChartPoints(30000, 1)).toBe(20000);
    expect(firstChartPoints(800, 0)).toBe(800);
  });
});
