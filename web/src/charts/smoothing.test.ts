import { describe, expect, it } from "vitest";
import { emaTensorBoard, emaTimeWeighted, gaussian, medianSpacing, smooth } from "./smoothing";

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
