import { describe, expect, it } from "vitest";
import { ALL, isSelected, normalise, selectedRuns, setRuns, validSelection } from "./selection";

const runs = ["a", "b", "c", "d", "e"];

describe("run selection", () => {
  it("selects every run by default, including runs that appear later", () => {
    expect(selectedRuns(ALL, runs)).toEqual(runs);
    expect(isSelected(ALL, "new-run")).toBe(true);
  });

  it("toggles single runs and keeps the shorter form", () => {
    const offOne = setRuns(ALL, runs, ["c"], false);
    expect(offOne).toEqual({ mode: "except", names: ["c"] });
    const onlyOne = setRuns(setRuns(ALL, runs, runs, false), runs, ["b"], true);
    expect(onlyOne).toEqual({ mode: "only", names: ["b"] });
    expect(setRuns(offOne, runs, ["c"], true)).toEqual(ALL);
  });

  it("selects none and all of a filtered subset", () => {
    const none = setRuns(ALL, runs, runs, false);
    expect(selectedRuns(none, runs)).toEqual([]);
    const someOn = setRuns(none, runs, ["a", "b"], true);
    expect(selectedRuns(someOn, runs)).toEqual(["a", "b"]);
    const someOff = setRuns(ALL, runs, ["d", "e"], false);
    expect(selectedRuns(someOff, runs)).toEqual(["a", "b", "c"]);
  });

  it("forgets runs that no longer exist", () => {
    expect(normalise(new Set(["a", "gone"]), runs)).toEqual({ mode: "only", names: ["a"] });
  });

  it("treats a malformed stored value as every run", () => {
    expect(validSelection(null)).toEqual(ALL);
    expect(validSelection({ mode: "some", names: [] })).toEqual(ALL);
    expect(validSelection({ mode: "only", names: [1] })).toEqual(ALL);
    expect(validSelection({ mode: "only", names: ["a"] })).toEqual({ mode: "only", names: ["a"] });
  });
});
