import { describe, expect, it } from "vitest";
import { graphData } from "./fixture";
import { ancestors, edgeLabel, indexGraph, initialExpanded, searchNames, shownGraph, type GraphData } from "./model";

function graph(names: [string, string[], string?][]): GraphData {
  return graphData(
    names.map(([name]) => ({ name, op: "Op", device: "", attrs: {}, shapes: [], dtype: null })),
    names.flatMap(([name, inputs, shape]) => inputs.map((source) => ({ source, target: name, output: 0, control: false, shape: shape ?? null }))),
  );
}

const cnn = graph([
  ["input/x", []],
  ["Net/conv/a", ["input/x"], "1×3×32×32"],
  ["Net/conv/b", ["Net/conv/a"], "1×8×32×32"],
  ["Net/fc/c", ["Net/conv/b"], "1×8×32×32"],
  ["output/y", ["Net/fc/c"], "1×10"],
]);

describe("shownGraph", () => {
  it("draws a collapsed scope as one box and merges the edges crossing it", () => {
    const index = indexGraph(cnn);
    const shown = shownGraph(index, new Set(["input", "output"]));
    expect(shown.roots.map((b) => [b.id, b.kind])).toEqual([
      ["s:input", "group"],
      ["s:Net", "scope"],
      ["s:output", "group"],
    ]);
    expect(shown.owner.get("Net/conv/b")).toBe("s:Net");
    expect(shown.edges.map((e) => [e.source, e.target, edgeLabel(e)])).toEqual([
      ["n:input/x", "s:Net", "1×3×32×32"],
      ["s:Net", "n:output/y", "1×10"],
    ]);
  });

  it("opens at the top level, with the scopes wrapping a single input or output open", () => {
    const index = indexGraph(cnn);
    expect([...initialExpanded(index)].sort()).toEqual(["input", "output"]);
    const shown = shownGraph(index, initialExpanded(index));
    expect(shown.edges.map((e) => [e.source, e.target])).toEqual([
      ["n:input/x", "s:Net"],
      ["s:Net", "n:output/y"],
    ]);
  });

  it("keeps a node named like a scope inside that scope's box", () => {
    const index = indexGraph(graph([["dense", []], ["dense/kernel", []], ["out", ["dense"]]]));
    const shown = shownGraph(index, new Set(["dense"]));
    expect(shown.roots[0].children.map((b) => b.id)).toEqual(["n:dense", "n:dense/kernel"]);
    expect(shownGraph(index, new Set()).owner.get("dense")).toBe("s:dense");
    expect(ancestors(index, "dense")).toEqual(["dense"]);
  });
});

describe("labels and search", () => {
  it("names the shapes of merged edges", () => {
    const edge = { id: "e", source: "a", target: "b", count: 4, control: false, shapes: ["1×2", "1×3", "1×4"] };
    expect(edgeLabel(edge)).toBe("4 tensors, 3 shapes");
    expect(edgeLabel({ ...edge, shapes: ["1×2"] })).toBe("1×2");
    expect(edgeLabel({ ...edge, shapes: [], count: 1 })).toBe("");
  });

  it("finds scopes and nodes by case-insensitive regex and rejects a bad one", () => {
    const index = indexGraph(cnn);
    expect(searchNames(index, "CONV")).toEqual(["Net/conv", "Net/conv/a", "Net/conv/b"]);
    expect(() => searchNames(index, "(")).toThrow();
  });
});
