import { describe, expect, it } from "vitest";
import { chunked, columnsFor, gridHeight, planSections, ROW_PITCH, ROWS_PER_CHUNK, SECTION_HEAD } from "./layout";

describe("columnsFor (the CSS grid's auto-fill of 420 px columns, 12 px gaps)", () => {
  it("counts the columns that fit", () => {
    expect(columnsFor(968)).toBe(2); // 1280 px window with the run list
    expect(columnsFor(852)).toBe(2); // exactly two: 420 + 12 + 420
    expect(columnsFor(851)).toBe(1);
    expect(columnsFor(1284)).toBe(3);
    expect(columnsFor(0)).toBe(1);
  });
});

describe("chunked", () => {
  it("cuts in order, the last chunk shorter", () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 3)).toEqual([]);
  });
});

describe("planSections", () => {
  it("gives every chunk whole rows and its estimated top", () => {
    const tags = Array.from({ length: 20 }, (_, i) => `a/${i}`);
    const plan = planSections([{ name: "a", items: tags, open: true }, { name: "b", items: ["b/x"], open: false }, { name: "c", items: ["c/y"], open: true }], 2, 100);
    const a = plan[0];
    expect(a.chunks.map((c) => c.items.length)).toEqual([2 * ROWS_PER_CHUNK, 2 * ROWS_PER_CHUNK, 4]);
    expect(a.chunks[0].top).toBe(100 + SECTION_HEAD);
    expect(a.chunks[1].top).toBe(100 + SECTION_HEAD + ROWS_PER_CHUNK * ROW_PITCH);
    // A collapsed section keeps its count, without chunks.
    expect(plan[1]).toMatchObject({ name: "b", open: false, total: 1, chunks: [] });
    const afterA = a.chunks[2].top + gridHeight(4, 2) + 12;
    expect(plan[2].chunks[0].top).toBe(afterA + 2 * SECTION_HEAD);
    expect(plan.flatMap((s) => s.chunks.flatMap((c) => c.items))).toEqual([...tags, "c/y"]);
  });
});
