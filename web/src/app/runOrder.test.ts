import { describe, expect, it } from "vitest";
import { compareRuns, descendants, runDepths, runParents } from "./runOrder";

describe("compareRuns", () => {
  it("orders decimals as numbers", () => {
    const runs = ["adam_lr0.1", "adam_lr1", "adam_lr0.001", "adam_lr0.01", "adam_lr0.0001"];
    expect([...runs].sort(compareRuns)).toEqual(["adam_lr0.0001", "adam_lr0.001", "adam_lr0.01", "adam_lr0.1", "adam_lr1"]);
  });

  it("orders integers and exponents as numbers", () => {
    expect(["seed10", "seed2", "seed1"].sort(compareRuns)).toEqual(["seed1", "seed2", "seed10"]);
    expect(["lr1e-3", "lr1e-4", "lr1e-2"].sort(compareRuns)).toEqual(["lr1e-4", "lr1e-3", "lr1e-2"]);
  });

  it("keeps a run's sub-runs right under it", () => {
    const runs = ["run-b", "run/loss_val", "run", "run/1796175606.61", "run/loss_train", "run0"];
    expect([...runs].sort(compareRuns)).toEqual([
      "run",
      "run/1796175606.61",
      "run/loss_train",
      "run/loss_val",
      "run0",
      "run-b",
    ]);
  });

  it("is a total order (equal numbers written differently)", () => {
    expect(compareRuns("a1.0", "a1")).not.toBe(0);
    expect(Math.sign(compareRuns("a1.0", "a1"))).toBe(-Math.sign(compareRuns("a1", "a1.0")));
  });
});

describe("nesting", () => {
  it("nests a run under the nearest run its path starts with, never under '.'", () => {
    const runs = [".", "a", "a/b/c", "a/b", "x/y"];
    const parents = runParents(runs);
    expect(Object.fromEntries(parents)).toEqual({ ".": null, a: null, "a/b/c": "a/b", "a/b": "a", "x/y": null });
    expect(Object.fromEntries(runDepths(parents))).toEqual({ ".": 0, a: 0, "a/b/c": 2, "a/b": 1, "x/y": 0 });
    expect(descendants("a", runs)).toEqual(["a/b/c", "a/b"]);
    expect(descendants("a/b", ["a/bc", "a/b/c"])).toEqual(["a/b/c"]);
  });
});
