import { describe, expect, it } from "vitest";
import { emaTensorBoard, emaTensorBoardFrom, emaTimeWeighted, emaTimeWeightedFrom, gaussian, medianSpacing, smooth, smoothWindow } from "./smoothing";

// Expected values computed independently (by hand and with a separate Python transcription of TensorBoard's
// classicSmoothing: last = last*w + (1-w)*v; k += 1; out = last / (1 - w**k), non-finite passed through).
const close = (got: ArrayLike<number>, want: number[]) => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    if (Number.isNaN(w)) expect(got[i]).toBeNaN();
    else if (!Number.isFinite(w)) expect(got[i]).toBe(w);
    else expect(got[i]).toBeCloseTo(w, 12);
  });
};

describe("emaTensorBoard (TensorBoard's classicSmoothing)", () => {
  it("matches hand-computed values with the default weight 0.6, passing NaN and Inf through", () => {
    // k=1: 0.4*1/0.4 = 1; k=2: (0.24+0.8)/0.64 = 1.625; ...
    close(emaTensorBoard([1, 2, NaN, 4, Infinity, 3], 0.6), [1, 1.625, NaN, 2.8367346938775513, Infinity, 2.911764705882353]);
  });
  it("matches at weight 0.9", () => {
    close(emaTensorBoard([10, 0, 5, -5], 0.9), [10, 4.736842105263158, 4.833948339483395, 1.974411166036638]);
  });
  it("treats null as a non-finite value and starts counting at the first finite one", () => {
    close(emaTensorBoard([null, 1, 2], 0.5), [NaN, 1, 1.6666666666666667]);
  });
  it("returns a constant series unchanged (TensorBoard #786)", () => {
    close(emaTensorBoard([7, 7, 7], 0.6), [7, 7, 7]);
  });
  it("does not debias at weight 1, like TensorBoard", () => {
    close(emaTensorBoard([3, 5], 1), [0, 0]);
  });
  it("is the identity at weight 0 and clamps bad weights", () => {
    close(emaTensorBoard([1, 5, 2], 0), [1, 5, 2]);
    close(emaTensorBoard([1, 5, 2], NaN), [1, 5, 2]);
    close(emaTensorBoard([1, 5, 2], -3), [1, 5, 2]);
  });
  it("handles empty and one-point series", () => {
    expect(emaTensorBoard([], 0.6).length).toBe(0);
    close(emaTensorBoard([4], 0.6), [4]);
  });
});

describe("emaTimeWeighted", () => {
  it("equals the TensorBoard EMA on evenly spaced steps", () => {
    const v = [3, 1, 4, 1, 5, 9, 2, 6];
    const x = v.map((_, i) => i * 10);
    close(emaTimeWeighted(x, v, 0.6), Array.from(emaTensorBoard(v, 0.6)));
  });
  it("forgets more across a long gap (independently computed)", () => {
    // decay = 0.6 ** (dx / 1); num/den accumulators.
    close(emaTimeWeighted([0, 1, 2, 12], [1, 2, 3, 4], 0.6), [1, 1.625, 2.3265306122448983, 3.980399388382231]);
  });
  it("passes non-finite values through without breaking later points", () => {
    const out = emaTimeWeighted([0, 1, 2, 3], [1, NaN, -Infinity, 1], 0.6);
    expect(out[1]).toBeNaN();
    expect(out[2]).toBe(-Infinity);
    expect(out[3]).toBeCloseTo(1, 12);
  });
});

describe("gaussian", () => {
  it("keeps a constant series constant and ignores NaN neighbours", () => {
    const out = gaussian([0, 1, 2, 3, 4], [2, 2, NaN, 2, 2], 0.8);
    close(out, [2, 2, NaN, 2, 2]);
  });
  it("is symmetric: a centred spike spreads evenly", () => {
    const out = gaussian([0, 1, 2, 3, 4], [0, 0, 1, 0, 0], 0.5);
    expect(out[1]).toBeCloseTo(out[3], 12);
    expect(out[2]).toBeLessThan(1);
    expect(out[2]).toBeGreaterThan(out[1]);
  });
  it("uses the median spacing", () => {
    expect(medianSpacing([0, 10, 20, 1000])).toBe(10);
    expect(medianSpacing([5])).toBe(1);
  });
});

describe("smooth", () => {
  it("dispatches and returns raw values at weight 0", () => {
    close(smooth("gaussian", [0, 1], [1, 3], 0), [1, 3]);
    close(smooth("ema", [0, 1], [1, 2], 0.6), [1, 1.625]);
  });
});

// Expected values below computed by hand / with a separate Python loop (last = last*w + (1-w)*v; k += 1;
// out = last / (1 - w**k)), not with this module.
describe("emaTensorBoardFrom (carrying the accumulator and the debias count)", () => {
  it("returns the state after the values: accumulator 0.24 + 0.8 and two values counted", () => {
    const { out, state } = emaTensorBoardFrom([1, 2], 0.6);
    close(out, [1, 1.625]);
    expect(state.last).toBeCloseTo(1.04, 12);
    expect(state.count).toBe(2);
  });
  it("continues from a given state: last = 0.5·0.5 + 0.5·2 = 1.25, k = 4, 1.25 / (1 − 0.5⁴)", () => {
    const { out, state } = emaTensorBoardFrom([2], 0.5, { last: 0.5, count: 3 });
    close(out, [1.3333333333333333]);
    expect(state).toEqual({ last: 1.25, count: 4 });
  });
  it("split anywhere, the two halves give the whole series' values (non-finite values do not count)", () => {
    const first = emaTensorBoardFrom([1, 2, NaN], 0.6);
    expect(first.state.count).toBe(2);
    close(emaTensorBoardFrom([4, Infinity, 3], 0.6, first.state).out, [2.8367346938775513, Infinity, 2.911764705882353]);
  });
});

describe("emaTimeWeightedFrom", () => {
  it("carries the spacing: the window [2, 12] alone would have d = 10, the whole run has d = 1", () => {
    const prefix = emaTimeWeightedFrom([0, 1], [1, 2], 0.6, { num: 0, den: 0, prevX: NaN, spacing: 1 });
    close(emaTimeWeightedFrom([2, 12], [3, 4], 0.6, prefix.state).out, [2.3265306122448983, 3.980399388382231]);
  });
});

describe("smoothWindow (a zoomed-in window continuing the whole series' smoothing)", () => {
  it("exponential: equals the whole series' smoothing at the window's points", () => {
    const context = { x: [0, 1, 2, 3, 4, 5], values: [1, 2, NaN, 4, Infinity, 3] };
    close(smoothWindow("ema", context, [3, 4, 5], [4, Infinity, 3], 0.6), [2.8367346938775513, Infinity, 2.911764705882353]);
  });
  it("exponential over a reduced context: starts from the state after the context's points before the window", () => {
    // Context points before x = 20: 1, 2 (last 1.25, k 2); then 3, 5, 1 at full resolution.
    const context = { x: [0, 10, 20], values: [1, 2, 3] };
    close(smoothWindow("ema", context, [20, 21, 22], [3, 5, 1], 0.5), [2.4285714285714284, 3.8, 2.3548387096774195]);
  });
  it("exponential: a constant run stays exactly constant when zoomed in", () => {
    close(smoothWindow("ema", { x: [0, 1, 2, 3], values: [7, 7, 7, 7] }, [2, 3], [7, 7], 0.9), [7, 7]);
  });
  it("time-weighted: the same as the whole series at the window's points", () => {
    close(smoothWindow("time-ema", { x: [0, 1, 2, 12], values: [1, 2, 3, 4] }, [2, 12], [3, 4], 0.6), [2.3265306122448983, 3.980399388382231]);
  });
  it("Gaussian: neighbours outside the window count (σ = 1 at w = 0.5, window ±3)", () => {
    // A spike of 1 at x = 4 among zeros: out(3) = e^-0.5 / Σ_{d=-3..3} e^(-d²/2), out(4) = 1 / that sum.
    const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const v = [0, 0, 0, 0, 1, 0, 0, 0, 0, 0];
    close(smoothWindow("gaussian", { x, values: v }, [3, 4, 5], [0, 1, 0], 0.5), [0.2420362293761143, 0.3990502796524549, 0.2420362293761143]);
  });
  it("returns the raw window at weight 0", () => {
    close(smoothWindow("ema", { x: [0, 1], values: [5, 6] }, [1], [6], 0), [6]);
  });
});
