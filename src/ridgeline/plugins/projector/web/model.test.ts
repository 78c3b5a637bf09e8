import { describe, expect, it } from "vitest";
import {
  colouring,
  DEFAULT_VIEW,
  pointStyle,
  RAMP_SIZE,
  readBookmarks,
  readView,
  scaleCoordinates,
  spriteOffset,
  stratifiedSample,
  unionBounds,
  type MetadataColumn,
} from "./model";

describe("scaleCoordinates", () => {
  it("scales both axes by one factor into [-1, 1] and leaves NaN rows out", () => {
    const flat = Float32Array.from([0, 0, 10, 5, NaN, 1, 5, 2.5]);
    const scaled = scaleCoordinates(flat, 2, [
      [0, 10],
      [0, 5],
    ]);
    expect(scaled.count).toBe(3);
    expect(Array.from(scaled.visible)).toEqual([1, 1, 0, 1]);
    // The wider axis (x, span 10) sets the scale; y keeps its aspect: 5 / 10 of it.
    expect(scaled.x[0]!).toBeCloseTo(-0.95);
    expect(scaled.x[1]!).toBeCloseTo(0.95);
    expect(scaled.y[1]! - scaled.y[0]!).toBeCloseTo(0.95);
    expect(scaled.x[3]!).toBeCloseTo(0);
  });

  it("draws one-dimensional coordinates along x", () => {
    const scaled = scaleCoordinates(Float32Array.from([1, 3]), 1, [[1, 3]]);
    expect(Array.from(scaled.y)).toEqual([0, 0]);
    expect(scaled.x[0]!).toBeCloseTo(-0.95);
  });

  it("keeps one scale across steps with the union of their bounds", () => {
    expect(unionBounds([[0, 1]], [[-2, 0.5]])).toEqual([[-2, 1]]);
    expect(unionBounds(null, [[3, 4]])).toEqual([[3, 4]]);
  });
});

const column = (values: string[], codes: number[], kind: MetadataColumn["kind"] = "categorical", numbers?: (number | null)[]): MetadataColumn => ({
  name: "c",
  kind,
  values,
  codes,
  numbers,
});

describe("colouring", () => {
  it("gives each category a colour and a legend with counts", () => {
    const c = colouring(column(["dog", "cat"], [0, 1, 1, 0, 1]), 5, "#000");
    expect(c.kind).toBe("categorical");
    expect(Array.from(c.index)).toEqual([0, 1, 1, 0, 1]);
    expect(c.legend.map((l) => [l.label, l.count])).toEqual([
      ["cat", 3],
      ["dog", 2],
    ]);
    expect(c.palette[0]).not.toBe(c.palette[1]);
  });

  it("maps numbers onto the ramp, and a point without a number onto grey", () => {
    const c = colouring(column(["0", "10", "5", ""], [0, 1, 2, 3], "numeric", [0, 10, 5, null]), 4, "#000");
    expect(c.kind).toBe("numeric");
    expect(c.range).toEqual([0, 10]);
    expect(Array.from(c.index)).toEqual([0, RAMP_SIZE - 1, Math.round((RAMP_SIZE - 1) / 2), RAMP_SIZE]);
    expect(c.palette).toHaveLength(RAMP_SIZE + 1);
  });

  it("draws every point in the base colour without a column", () => {
    const c = colouring(undefined, 3, "#123456");
    expect(c.palette).toEqual(["#123456"]);
    expect(c.legend).toEqual([]);
  });
});

describe("stratifiedSample", () => {
  it("keeps each stratum's share and never picks a hidden point", () => {
    const visible = new Uint8Array(1000).fill(1);
    visible[5] = 0;
    const strata = Uint16Array.from({ length: 1000 }, (_, i) => (i < 900 ? 0 : 1));
    const sample = stratifiedSample(visible, 100, strata);
    expect(sample.length).toBe(100);
    expect(Array.from(sample).filter((i) => i >= 900)).toHaveLength(10);
    expect(Array.from(sample)).not.toContain(5);
    expect(Array.from(sample)).toEqual([...sample].sort((a, b) => a - b));
    expect(Array.from(stratifiedSample(visible, 100, strata))).toEqual(Array.from(sample)); // deterministic
  });

  it("keeps at least one point of a rare stratum, and everything when the sample is larger", () => {
    const visible = new Uint8Array(101).fill(1);
    const strata = Uint16Array.from({ length: 101 }, (_, i) => (i === 100 ? 1 : 0));
    expect(Array.from(stratifiedSample(visible, 10, strata))).toContain(100);
    expect(stratifiedSample(visible, 500, null).length).toBe(101);
  });
});

describe("view state", () => {
  it("reads what it can of a view and falls back to the defaults", () => {
    expect(readView(null)).toEqual(DEFAULT_VIEW);
    const view = readView({ method: "umap", dims: 3, components: [1, 4], metric: "nope", sample: 1000, custom: ["a"] });
    expect(view.method).toBe("umap");
    expect(view.dims).toBe(3);
    expect(view.components).toEqual([1, 4]);
    expect(view.metric).toBe(DEFAULT_VIEW.metric);
    expect(view.custom).toEqual(DEFAULT_VIEW.custom);
    expect(view.sample).toBe(1000);
  });

  it("reads bookmarks and skips broken ones", () => {
    const raw = JSON.stringify([{ name: "a", view: { method: "tsne" }, selected: [1, -2, 3], camera: [1, 2], step: 10 }, { nope: 1 }, 3]);
    const [only, ...rest] = readBookmarks(raw);
    expect(rest).toEqual([]);
    expect(only!.view.method).toBe("tsne");
    expect(only!.selected).toEqual([1, 3]);
    expect(only!.camera).toEqual([1, 2]);
    expect(only!.step).toBe(10);
    expect(readBookmarks("{not json")).toEqual([]);
  });
});

describe("drawing", () => {
  it("makes points smaller and lighter as they get denser", () => {
    const few = pointStyle(200);
    const many = pointStyle(1_000_000);
    expect(few.size).toBeGreaterThan(many.size);
    expect(few.opacity).toBeGreaterThan(many.opacity);
    expect(many.size).toBeGreaterThanOrEqual(1.5);
  });

  it("finds a point's image in the sprite", () => {
    expect(spriteOffset(0, 3, [8, 6])).toEqual({ x: 0, y: 0 });
    expect(spriteOffset(4, 3, [8, 6])).toEqual({ x: 8, y: 6 });
  });
});
