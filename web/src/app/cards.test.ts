import { describe, expect, it } from "vitest";
import { allSteps, entryAt, tagsOf, wallTimeAt } from "./cards";

const list = [
  { step: 0, wall_time: 10 },
  { step: 5, wall_time: 15 },
  { step: 9, wall_time: 19 },
];

describe("entryAt", () => {
  it("answers the entry at the step or the last one before it", () => {
    expect(entryAt(list, 5)?.step).toBe(5);
    expect(entryAt(list, 7)?.step).toBe(5);
    expect(entryAt(list, 100)?.step).toBe(9);
    expect(entryAt(list, -1)).toBeUndefined();
    expect(entryAt([], 3)).toBeUndefined();
    expect(entryAt(list, undefined)).toBeUndefined();
  });
});

describe("allSteps and wallTimeAt", () => {
  it("unites the runs' steps and finds a step's wall time", () => {
    const data = new Map([
      ["a", list],
      ["b", [{ step: 3, wall_time: 13 }, { step: 5, wall_time: 99 }]],
    ]);
    expect(allSteps(data)).toEqual([0, 3, 5, 9]);
    expect(wallTimeAt(data, 3)).toBe(13);
    expect(wallTimeAt(data, 5)).toBe(15);
    expect(wallTimeAt(data, 4)).toBeNull();
  });
});

describe("tagsOf", () => {
  it("lists a kind's tags across runs, sorted and once", () => {
    const run = (tags: string[]) => ({ run: "r", colour: "#000", tags: { text: tags }, last_step: null, last_wall_time: null, annotations: 0 });
    expect(tagsOf([run(["b", "a"]), run(["a", "c"])], "text")).toEqual(["a", "b", "c"]);
    expect(tagsOf([run(["a"])], "pr_curves")).toEqual([]);
  });
});
