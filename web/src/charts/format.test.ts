import { describe, expect, it } from "vitest";
import { formatDuration, formatNumber, formatStep, formatTicks } from "./format";
import { robustRange } from "./range";
import { groupStats, interpolateAt, nearestIndex } from "./aggregate";
import { joinSeries } from "./join";
import { toCsv, toJson, safeFileName } from "./export";
import { sortRows, tooltipHtml, type TooltipRow } from "./tooltip";

describe("formatNumber", () => {
  it("is compact and scientific for huge and tiny magnitudes", () => {
    expect(formatNumber(3.4e38)).toBe("3.4e38");
    expect(formatNumber(-1.2345e-7)).toBe("-1.235e-7");
    expect(formatNumber(0.5)).toBe("0.5");
    expect(formatNumber(1234.5678)).toBe("1235");
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(NaN)).toBe("NaN");
    expect(formatNumber(Infinity)).toBe("+Inf");
    expect(formatNumber(-Infinity)).toBe("-Inf");
    expect(formatNumber(null)).toBe("–");
  });
  it("gives distinct tick labels", () => {
    const labels = formatTicks([1.0001, 1.0002, 1.0003]);
    expect(new Set(labels).size).toBe(3);
  });
  it("formats steps and durations", () => {
    expect(formatStep(1234567)).toBe("1,234,567");
    expect(formatDuration(0.25)).toBe("250ms");
    expect(formatDuration(12.34)).toBe("12.3s");
    expect(formatDuration(3725)).toBe("1h 02m");
  });
});

describe("robustRange", () => {
  it("ignores a single 3.4e38 but keeps a clean curve whole", () => {
    const values = Array.from({ length: 100 }, (_, i) => 1 / (i + 1));
    values[50] = 3.4e38;
    const r = robustRange([values])!;
    expect(r.max).toBeLessThan(2);
    expect(r.min).toBeCloseTo(0.01, 3);
    const clean = Array.from({ length: 100 }, (_, i) => i);
    expect(robustRange([clean])).toEqual({ min: 0, max: 99 });
    expect(robustRange([[NaN, null]])).toBeNull();
  });

  it("samples the quantiles of many values and keeps the clean extremes exact", () => {
    const runs = Array.from({ length: 100 }, (_, r) => Array.from({ length: 2000 }, (_, i) => r + Math.sin(i)));
    runs[7][1234] = 3.4e38;
    const r = robustRange(runs)!;
    expect(r.max).toBeLessThan(200);
    expect(r.min).toBe(Math.min(...runs[0]));
  });
});

describe("aggregate", () => {
  it("interpolates inside the range and leaves NaN outside", () => {
    expect(Array.from(interpolateAt([0, 10], [0, 1], [-1, 0, 5, 10, 11]))).toEqual([NaN, 0, 0.5, 1, NaN]);
  });
  it("computes group mean, σ, min and max", () => {
    const s = groupStats([
      { x: [0, 1], y: [1, 3] },
      { x: [0, 1], y: [3, 5] },
    ]);
    expect(Array.from(s.mean)).toEqual([2, 4]);
    expect(Array.from(s.std)).toEqual([1, 1]);
    expect(Array.from(s.min)).toEqual([1, 3]);
    expect(Array.from(s.max)).toEqual([3, 5]);
  });
  it("finds the nearest index", () => {
    expect(nearestIndex([0, 10, 20], 14)).toBe(1);
    expect(nearestIndex([0, 10, 20], 16)).toBe(2);
  });
});

describe("joinSeries", () => {
  it("joins exactly with undefined holes and null gaps", () => {
    const j = joinSeries(
      [
        { x: [0, 2], columns: [[1, NaN]] },
        { x: [1, 2], columns: [[5, 6]] },
      ],
      100,
    );
    expect(j.exact).toBe(true);
    expect(j.x).toEqual([0, 1, 2]);
    expect(j.columns[0]).toEqual([1, undefined, null]);
    expect(j.columns[1]).toEqual([undefined, 5, 6]);
  });
  it("resamples onto a grid past the budget", () => {
    const j = joinSeries(
      [
        { x: [0, 1, 2, 3], columns: [[0, 1, 2, 3]] },
        { x: [0.5, 1.5, 2.5], columns: [[0, 0, 0]] },
      ],
      4,
      4,
    );
    expect(j.exact).toBe(false);
    expect(j.x).toEqual([0, 1, 2, 3]);
    expect(j.columns[0]).toEqual([0, 1, 2, 3]);
    expect(j.columns[1]).toEqual([undefined, 0, 0, undefined]);
  });
  it("shares the x array when every series has the same steps", () => {
    const j = joinSeries([{ x: [1, 2], columns: [[1, 2]] }, { x: [1, 2], columns: [[3, Infinity]] }], 10);
    expect(j.columns).toEqual([[1, 2], [3, null]]);
  });
});

describe("export", () => {
  const s = { run: "a,b", tag: "Loss/训练", step: [1, 2], wall_time: [10, 11], value: [0.5, null], nonfinite: [{ step: 2, value: "inf" }] };
  it("writes CSV with quoting and non-finite names", () => {
    expect(toCsv([s])).toBe('run,tag,step,wall_time,value\n"a,b",Loss/训练,1,10,0.5\n"a,b",Loss/训练,2,11,inf\n');
  });
  it("writes JSON", () => {
    expect(JSON.parse(toJson([s]))[0].value).toEqual([0.5, "inf"]);
    expect(safeFileName("Loss/训练 x")).toBe("Loss_训练_x");
  });
});

describe("tooltip", () => {
  const row = (label: string, smoothed: number, distance: number): TooltipRow => ({
    label, colour: "#000", smoothed, raw: smoothed, step: 1, time: "", distance,
  });
  it("sorts and limits rows with +N more", () => {
    const rows = Array.from({ length: 12 }, (_, i) => row(`r${i}`, i, 12 - i));
    expect(sortRows(rows, "nearest")[0].label).toBe("r11");
    expect(sortRows(rows, "value-asc")[0].label).toBe("r0");
    const html = tooltipHtml("step 1", rows, "nearest", 5);
    expect(html).toContain("+7 more");
    expect(html.match(/<tr>/g)!.length).toBe(6);
    expect(tooltipHtml("<b>", [row("<i>", 1, 0)], "name", 5)).not.toContain("<i>");
  });
});
